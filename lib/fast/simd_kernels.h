#pragma once
// The bench kernels every vector instruction set shares, written once over a vector-traits struct V that
// each kernels_<isa>.cpp defines with its own intrinsics (the only place they appear):
//   reg, mask, lanes                a vector of `lanes` floats (+, -, * lane by lane, as the compilers'
//                                   vector extensions give them), and a lane mask
//   set1, max, min                  broadcast; lane by lane
//   fmadd(a, b, c)                  a·b + c, one rounding
//   round, pow2                     to the nearest integer (ties to even); 2^n of an integral n
//   at_least(x, lo), keep(m, v)     the lanes where x is not below lo; v there, 0 elsewhere
//   reduce_add, reduce_max          all lanes to one float, in the instruction set's order
//   has_scale2, scale2(p, n)        optional: true, and p · 2^n for an integral n that underflows to 0
//                                   by itself (AVX-512's vscalefps): exp then needs no mask
//   adds_c_last                     optional: true where the micro-kernel prefetches C and adds it after
//                                   the k loop (simd_micro_kernel)
// A kernel file defines ATTN_SIMD_TARGET (its functions' target attribute; empty where the instruction set
// is the baseline) and its traits, then includes this header: each function here is compiled for that
// target, with internal linkage, one copy per kernel file.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "fast/kernels.h"

#ifndef ATTN_SIMD_TARGET
#error "define ATTN_SIMD_TARGET before including fast/simd_kernels.h"
#endif

namespace attn {

namespace {

template <class V>
ATTN_SIMD_TARGET inline typename V::reg load(const float* p) {  // unaligned
  typename V::reg r;
  std::memcpy(&r, p, sizeof r);
  return r;
}

template <class V>
ATTN_SIMD_TARGET inline void store(float* p, typename V::reg v) {
  std::memcpy(p, &v, sizeof v);
}

// The lanes of v in order, and the first n < lanes floats of p padded with `fill`; the first n of v to p.
template <class V>
struct Lanes {
  float v[V::lanes];
};
template <class V>
ATTN_SIMD_TARGET inline Lanes<V> lanes_of(typename V::reg v) {
  Lanes<V> out;
  std::memcpy(out.v, &v, sizeof v);
  return out;
}
template <class V>
ATTN_SIMD_TARGET inline typename V::reg load_tail(const float* p, int64_t n, float fill) {
  Lanes<V> lane;
  for (int64_t j = 0; j < V::lanes; ++j) lane.v[j] = j < n ? p[j] : fill;
  return load<V>(lane.v);
}
template <class V>
ATTN_SIMD_TARGET inline void store_tail(float* p, int64_t n, typename V::reg v) {
  std::memcpy(p, lanes_of<V>(v).v, sizeof(float) * n);
}

template <class V, class = void>
struct HasScale2 : std::false_type {};
template <class V>
struct HasScale2<V, std::void_t<decltype(V::has_scale2)>> : std::bool_constant<V::has_scale2> {};

template <class V, class = void>
struct AddsCLast : std::false_type {};
template <class V>
struct AddsCLast<V, std::void_t<decltype(V::adds_c_last)>> : std::bool_constant<V::adds_c_last> {};

// exp(r) for |r| <= ln 2 / 2: Cephes' degree-6 polynomial, 1 + r + r^2 (1/2 + r (1/6 + ...)).
template <class V>
ATTN_SIMD_TARGET inline typename V::reg exp_reduced(typename V::reg r) {
  typename V::reg p = V::set1(1.9875691500e-4f);
  p = V::fmadd(p, r, V::set1(1.3981999507e-3f));
  p = V::fmadd(p, r, V::set1(8.3334519073e-3f));
  p = V::fmadd(p, r, V::set1(4.1665795894e-2f));
  p = V::fmadd(p, r, V::set1(1.6666665459e-1f));
  p = V::fmadd(p, r, V::set1(5.0000001201e-1f));
  p = V::fmadd(p, r * r, r + V::set1(1.0f));
  return p;
}

// exp lane by lane: Cephes' expf, range reduction by ln 2 and a degree-6 polynomial, within 2 ulp of
// std::exp; a masked score (-inf, or NaN) gets weight exactly 0: below -87.3 the result is 0, or, where
// the instruction set scales by 2^n itself (scale2), inputs are clamped at -104, whose exp rounds to 0.
template <class V>
ATTN_SIMD_TARGET inline typename V::reg simd_exp(typename V::reg x) {
  constexpr float kLo = -87.33654f, kHi = 88.37626f, kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;  // ln 2 in two parts: n ln2 exact
  if constexpr (HasScale2<V>::value) {
    x = V::min(V::max(x, V::set1(-104.0f)), V::set1(kHi));  // max(NaN, lo) is lo
    // n = round(x log2e) in one rounding: the FMA's sum with 1.5·2^23 has no bits below the units
    const typename V::reg magic = V::set1(12582912.0f);
    const typename V::reg n = V::fmadd(x, V::set1(kLog2e), magic) - magic;
    typename V::reg r = V::fmadd(n, V::set1(-kLn2Hi), x);
    r = V::fmadd(n, V::set1(-kLn2Lo), r);
    const typename V::reg p = exp_reduced<V>(r);
    return V::scale2(p, n);
  }
  const typename V::reg lo = V::set1(kLo);
  const typename V::mask kept = V::at_least(x, lo);  // the others underflow: 0 (and -inf)
  x = V::min(V::max(x, lo), V::set1(kHi));
  const typename V::reg n = V::round(x * V::set1(kLog2e));
  typename V::reg r = V::fmadd(-n, V::set1(kLn2Hi), x);
  r = V::fmadd(-n, V::set1(kLn2Lo), r);
  const typename V::reg p = exp_reduced<V>(r);
  return V::keep(kept, p * V::pow2(n));  // times 2^n
}

// Flash attention's online softmax (kernels.h, OnlineSoftmaxFn) over V::lanes query columns at a time;
// kSums partial sums of the exps (two: their latencies overlap), added at the end.
template <class V, int kSums>
ATTN_SIMD_TARGET void simd_online_softmax(float* st, int64_t br, int64_t bc, float* m, float* l, float* alpha) {
  for (int64_t c = 0; c < br; c += V::lanes) {
    const typename V::reg m_old = load<V>(m + c);
    typename V::reg m_new = m_old;
    for (int64_t j = 0; j < bc; ++j) m_new = V::max(m_new, load<V>(st + j * br + c));
    typename V::reg sum[kSums];
    for (int s = 0; s < kSums; ++s) sum[s] = V::set1(0.0f);
    int64_t j = 0;
    for (; j + kSums <= bc; j += kSums) {
      typename V::reg p[kSums];
      for (int s = 0; s < kSums; ++s) p[s] = simd_exp<V>(load<V>(st + (j + s) * br + c) - m_new);
      for (int s = 0; s < kSums; ++s) {
        store<V>(st + (j + s) * br + c, p[s]);
        sum[s] = sum[s] + p[s];
      }
    }
    for (; j < bc; ++j) {
      const typename V::reg p = simd_exp<V>(load<V>(st + j * br + c) - m_new);
      store<V>(st + j * br + c, p);
      sum[0] = sum[0] + p;
    }
    typename V::reg total = sum[0];
    for (int s = 1; s < kSums; ++s) total = total + sum[s];
    const typename V::reg a = simd_exp<V>(m_old - m_new);  // m_old = -inf at the first tile: 0
    store<V>(alpha + c, a);
    store<V>(l + c, V::fmadd(load<V>(l + c), a, total));
    store<V>(m + c, m_new);
  }
}

// softmax(in · scale) of one row of n (kernels.h, SoftmaxRowFn): exp(x·scale − max·scale), the tail
// through one vector padded with -inf.
template <class V>
ATTN_SIMD_TARGET void simd_softmax_row(const float* in, float* out, int64_t n, float scale) {
  const float minus_inf = -std::numeric_limits<float>::infinity();
  const int64_t full = n / V::lanes * V::lanes;
  typename V::reg mx = V::set1(minus_inf);
  for (int64_t j = 0; j < full; j += V::lanes) mx = V::max(mx, load<V>(in + j));
  float m = V::reduce_max(mx);
  for (int64_t j = full; j < n; ++j) m = std::max(m, in[j]);
  const typename V::reg vs = V::set1(scale), vms = V::set1(m * scale);
  typename V::reg sum = V::set1(0.0f);
  for (int64_t j = 0; j < full; j += V::lanes) {
    const typename V::reg e = simd_exp<V>(load<V>(in + j) * vs - vms);
    store<V>(out + j, e);
    sum = sum + e;
  }
  if (full < n) {
    const typename V::reg x = load_tail<V>(in + full, n - full, minus_inf);
    const typename V::reg e = simd_exp<V>(x * vs - vms);  // -inf lanes: 0
    store_tail<V>(out + full, n - full, e);
    sum = sum + e;
  }
  const float inv = 1.0f / V::reduce_add(sum);
  const typename V::reg vinv = V::set1(inv);
  for (int64_t j = 0; j < full; j += V::lanes) store<V>(out + j, load<V>(out + j) * vinv);
  for (int64_t j = full; j < n; ++j) out[j] *= inv;
}

// The micro-kernel's tile: MR rows of A by NV vectors of B (nr = NV · V::lanes), MR · NV accumulators; each
// k step loads B's row once (NV vectors) and broadcasts A's MR floats, each into NV FMAs. kPacked: A(r, p)
// at a[r + p*ks] (packed strips, flash's P^T); else at a[r*rs + p] (rows in place). The accumulators
// start from C (Start::C, ScaledC) or, where V::adds_c_last, C is prefetched at the start and added
// after the k loop, so that its load from L2 or memory does not hold up the first FMAs.
template <class V, int MR, int NV, bool kPacked>
ATTN_SIMD_TARGET void simd_tile(int64_t kc, const float* a, int64_t rs, int64_t ks, const float* b, float* c,
                                int64_t ldc, Start start, const float* v) {
  using reg = typename V::reg;
  constexpr int L = V::lanes;
  constexpr bool kCLast = AddsCLast<V>::value;
  const bool reads_c = start == Start::C || start == Start::ScaledC;
  if (kCLast && reads_c)
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
      for (int j = 0; j < NV * L; j += 16) __builtin_prefetch(c + r * ldc + j);  // a 64-byte line each
  reg acc[MR][NV];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int h = 0; h < NV; ++h) {
      const float* cr = c + r * ldc + L * h;
      acc[r][h] = start == Start::Bias             ? load<V>(v + L * h)
                  : kCLast || start == Start::Zero ? V::set1(0.0f)
                  : start == Start::C              ? load<V>(cr)
                                                   : V::set1(v[r]) * load<V>(cr);
    }
  const float* rows[MR];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) rows[r] = kPacked ? a + r : a + r * rs;
  const int64_t step = kPacked ? ks : 1;
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p, b += NV * L) {
    reg bv[NV];
#pragma GCC unroll 4
    for (int h = 0; h < NV; ++h) bv[h] = load<V>(b + L * h);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const reg x = V::set1(rows[r][p * step]);
#pragma GCC unroll 4
      for (int h = 0; h < NV; ++h) acc[r][h] = V::fmadd(x, bv[h], acc[r][h]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    const reg scale = V::set1(start == Start::ScaledC ? v[r] : 1.0f);
#pragma GCC unroll 4
    for (int h = 0; h < NV; ++h) {
      float* cr = c + r * ldc + L * h;
      store<V>(cr, kCLast && reads_c ? V::fmadd(scale, load<V>(cr), acc[r][h]) : acc[r][h]);
    }
  }
}

// The micro-kernel (kernels.h, MicroKernelFn) of MR rows by NV vectors: A packed (rs == 1) or in place.
template <class V, int MR, int NV>
ATTN_SIMD_TARGET void simd_micro_kernel(int64_t kc, const float* a, int64_t rs, int64_t ks, const float* b, float* c,
                                        int64_t ldc, Start start, const float* v) {
  if (rs == 1)
    simd_tile<V, MR, NV, true>(kc, a, rs, ks, b, c, ldc, start, v);
  else
    simd_tile<V, MR, NV, false>(kc, a, rs, ks, b, c, ldc, start, v);
}

// The peak loop: kChains independent FMA chains of V::lanes lanes (kernels.h, FmaLoopFn); the sum is only
// there to keep the loop alive.
template <class V, int kChains>
ATTN_SIMD_TARGET float simd_fma_loop(long n) {
  const typename V::reg mul = V::set1(0.999999f), add = V::set1(1e-6f);  // fixed point 1: no denormals
  typename V::reg acc[kChains];
#pragma GCC unroll 32
  for (int j = 0; j < kChains; ++j) acc[j] = V::set1(1.0f + 0.01f * j);
  for (long i = 0; i < n; ++i) {
#pragma GCC unroll 32
    for (int j = 0; j < kChains; ++j) acc[j] = V::fmadd(acc[j], mul, add);
  }
  typename V::reg s = acc[0];
#pragma GCC unroll 32
  for (int j = 1; j < kChains; ++j) s = s + acc[j];
  return V::reduce_add(s);
}

// The KernelSet of vector instruction set `isa` with traits V, made once from its row of kKernelShapes
// (kernels.h): the functions here for V, the GEMM's micro-kernel and flash attention's.
template <Isa isa, class V>
const KernelSet& simd_kernel_set() {
  constexpr KernelShape s = kernel_shape(isa);
  static const std::string fma_loop_text =
      std::to_string(s.fma_chains) + " independent " + std::to_string(V::lanes) + "-lane FMAs";
  static const KernelSet k{isa,
                           s.mr,
                           s.nv * V::lanes,
                           s.kc,
                           s.mc,
                           s.nc,
                           simd_micro_kernel<V, s.mr, s.nv>,
                           s.flash_tile,
                           s.flash_tile,
                           simd_online_softmax<V, s.exp_sums>,
                           simd_softmax_row<V>,
                           simd_fma_loop<V, s.fma_chains>,
                           2.0 * V::lanes * s.fma_chains,
                           fma_loop_text.c_str(),
                           s.fma_chains,
                           V::lanes,
                           s.flash_mr,
                           s.nv * V::lanes,
                           simd_micro_kernel<V, s.flash_mr, s.nv>};
  return k;
}

}  // namespace

}  // namespace attn
