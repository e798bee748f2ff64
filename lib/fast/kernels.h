#pragma once
// One set of bench kernels per instruction set (kernels_avx512.cpp, kernels_avx2.cpp,
// kernels_neon.cpp, kernels_portable.cpp), each only compiled on its architecture: the GEMM
// micro-kernel and its blocking, flash attention's tile sizes and online softmax, the softmax of
// one row, and the FMA loop that measures the peak. Internal to lib/fast.
#include <cstdint>

#include "fast/cpu_features.h"

namespace attn {

// What the micro-kernel's accumulators hold before the k loop: zeros, the bias row v[j], C, or
// C's rows times v[r] (flash attention's rescaling by exp(m_old - m_new)).
enum class Start { Zero, Bias, C, ScaledC };

// C (mr, nr) = start + A (mr, kc) · B (kc, nr), with A(r, p) at a[r*rs + p*ks] and B packed
// [p][nr]. Kernels specialise rs == 1 (packed strips, flash's P^T) and ks == 1 (rows in place).
using MicroKernelFn = void (*)(int64_t kc, const float* a, int64_t rs, int64_t ks, const float* b, float* c,
                               int64_t ldc, Start start, const float* v);
// St (bc keys, br queries): per query column, running max m, sum l; St becomes P = exp(St - m_new);
// alpha = exp(m_old - m_new). br is a multiple of the vector width.
using OnlineSoftmaxFn = void (*)(float* st, int64_t br, int64_t bc, float* m, float* l, float* alpha);
using SoftmaxRowFn = void (*)(const float* in, float* out, int64_t n, float scale);
using FmaLoopFn = float (*)(long iterations);

struct KernelSet {
  Isa isa;
  int64_t mr, nr;      // micro-kernel tile: mr rows of A broadcast, nr columns of B in registers
  int64_t kc, mc, nc;  // GEMM blocking: B strip (kc, nr) in L1, A block (mc, kc) in L2, B block in L3
  MicroKernelFn micro_kernel;
  int64_t flash_br, flash_bc;  // flash tiles: queries (a multiple of the flash kernel's mr and nr), keys (of mr)
  OnlineSoftmaxFn online_softmax;
  SoftmaxRowFn softmax_row;
  FmaLoopFn fma_loop;
  double fma_flops_per_iteration;
  const char* fma_loop_text;  // e.g. "16 independent 16-lane FMAs" (--version, the JSON's peak_loop)
  int fma_chains, fma_lanes;  // its facts, for a report to word in its own language: 16 chains of 16 lanes
  // Flash attention's tiles through their own micro-kernel where the set names one (the vector sets: AVX-512's
  // 4x64, AVX2's and NEON's the GEMM's own); else (portable) the GEMM's (mr, nr, micro_kernel).
  int64_t flash_mr = 0, flash_nr = 0;
  MicroKernelFn flash_kernel = nullptr;
};

// The micro-kernel flash attention's tiles use, and its tile.
struct FlashKernel {
  int64_t mr, nr;
  MicroKernelFn fn;
};
inline FlashKernel flash_kernel_of(const KernelSet& k) {
  return k.flash_kernel ? FlashKernel{k.flash_mr, k.flash_nr, k.flash_kernel} : FlashKernel{k.mr, k.nr, k.micro_kernel};
}

// Each kernel set's sizes, side by side. The GEMM micro-kernel's tile is mr rows by nv vectors of the set's
// lanes (nr = nv · lanes: AVX-512 6x64, AVX2 and NEON 6x16, portable 6x16 of single floats); its blocking kc,
// mc, nc; flash attention's tiles of flash_tile queries by flash_tile keys, through a micro-kernel of flash_mr
// rows by the same nv vectors (AVX-512's 4x64: one 64-query strip covers a tile, a 64-wide head is one strip);
// exp_sums partial sums in the online softmax; fma_chains independent chains in the peak loop (AVX2: latency
// 4 x 2 FMA units = 8 in flight at least, 12 of the 16 YMM registers; NEON: enough for four FMA units, as on
// Apple's cores). A full-width AVX-512 core (two 512-bit FMA units) needs the broadcasts few against the FMAs:
// at 8x32 (8 broadcasts, 2 loads, 16 FMAs) its loop is modelled at 89% of the FMA ports, at 6x64 and 4x64 at
// 99% (docs/performance.md).
struct KernelShape {
  Isa isa;
  int mr, nv, kc, mc, nc, flash_tile, flash_mr, exp_sums, fma_chains;
};
constexpr KernelShape kKernelShapes[] = {{Isa::Avx512, 6, 4, 768, 144, 2304, 64, 4, 4, 16},
                                         {Isa::Avx2Fma, 6, 2, 384, 120, 2304, 48, 6, 1, 12},
                                         {Isa::Neon, 6, 4, 384, 120, 2304, 48, 6, 1, 24},
                                         {Isa::Portable, 6, 16, 384, 120, 2304, 48, 6, 1, 96}};
constexpr const KernelShape& kernel_shape(Isa isa) {
  for (const KernelShape& s : kKernelShapes)
    if (s.isa == isa) return s;
  return kKernelShapes[3];
}

const KernelSet& kernel_set(Isa isa);  // isa must be supported
const KernelSet& active_kernels();     // kernel_set(active_isa())

// Defined only where compiled (kernels_*.cpp).
const KernelSet& portable_kernels();
#if defined(__x86_64__)
const KernelSet& avx2_kernels();
const KernelSet& avx512_kernels();
#endif
#if defined(__aarch64__)
const KernelSet& neon_kernels();
#endif

}  // namespace attn
