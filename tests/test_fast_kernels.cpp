// The bench's micro-kernels one call at a time (the GEMM's and flash attention's, on every kernel set
// this CPU has), every way the accumulators can start, A packed or read in place, against a plain loop
// in double; the fast GEMM past one k block and across the AVX-512 6x64 tile's edges; and the vector
// exp through softmax_row: a masked score weighs exactly 0, tiny weights are not negative; a kept
// packing of B; flash over several batch chunks. No timing.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "fast/bench_attention.h"
#include "fast/cpu_features.h"
#include "fast/fast_gemm.h"
#include "fast/flash_attention.h"
#include "fast/kernels.h"
#include "every_isa.h"

using namespace attn;

namespace {

struct Kernel {
  const char* what;
  int64_t mr, nr;
  MicroKernelFn fn;
};

// One micro-kernel call: C (mr, nr) with row stride ldc, A(r, p) at a[r*rs + p*ks], B packed [p][nr].
void check_kernel(const Kernel& k, int64_t kc, bool packed, Start start) {
  CAPTURE(k.what);
  CAPTURE(k.mr);
  CAPTURE(k.nr);
  CAPTURE(kc);
  CAPTURE(packed);
  CAPTURE(static_cast<int>(start));
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  const int64_t ldc = k.nr + 3, rs = packed ? 1 : kc + 2, ks = packed ? k.mr + 5 : 1;
  std::vector<float> a((k.mr + 1) * (kc + 2) + (k.mr + 5) * (kc + 1)), b(kc * k.nr), c(k.mr * ldc), v(k.nr);
  for (float& x : a) x = u(rng);
  for (float& x : b) x = u(rng);
  for (float& x : c) x = u(rng);
  for (float& x : v) x = u(rng);
  std::vector<double> expected(c.size());
  for (int64_t r = 0; r < k.mr; ++r)
    for (int64_t j = 0; j < k.nr; ++j) {
      const double old = c[r * ldc + j];
      double s = start == Start::C         ? old
                 : start == Start::ScaledC ? double(v[r]) * old
                 : start == Start::Bias    ? v[j]
                                           : 0.0;
      for (int64_t p = 0; p < kc; ++p) s += double(a[r * rs + p * ks]) * b[p * k.nr + j];
      expected[r * ldc + j] = s;
    }
  std::vector<float> out = c;
  k.fn(kc, a.data(), rs, ks, b.data(), out.data(), ldc, start, v.data());
  double worst = 0;
  for (int64_t r = 0; r < k.mr; ++r)
    for (int64_t j = 0; j < k.nr; ++j) worst = std::max(worst, std::fabs(out[r * ldc + j] - expected[r * ldc + j]));
  CHECK(worst < 1e-4);
  for (int64_t r = 0; r < k.mr; ++r)  // the columns past the tile are untouched
    for (int64_t j = k.nr; j < ldc && r * ldc + j < static_cast<int64_t>(c.size()); ++j)
      CHECK(out[r * ldc + j] == c[r * ldc + j]);
}

}  // namespace

TEST_CASE("fast kernels: every micro-kernel, every start, A packed or in place, equals a plain loop") {
  for (Isa isa : supported_isas()) {
    const KernelSet& set = kernel_set(isa);
    CAPTURE(isa_name(isa));
    const FlashKernel flash = flash_kernel_of(set);
    const Kernel kernels[] = {{"gemm", set.mr, set.nr, set.micro_kernel}, {"flash", flash.mr, flash.nr, flash.fn}};
    for (const Kernel& k : kernels)
      for (int64_t kc : {0, 1, 3, 64, 129})
        for (bool packed : {true, false})
          for (Start start : {Start::Zero, Start::Bias, Start::C, Start::ScaledC}) check_kernel(k, kc, packed, start);
    // flash tiles are whole strips of its kernel: queries of mr and nr, keys of mr
    CHECK(set.flash_br % flash.mr == 0);
    CHECK(set.flash_br % flash.nr == 0);
    CHECK(set.flash_bc % flash.mr == 0);
  }
}

TEST_CASE("fast kernels: AVX-512 runs a 6x64 GEMM micro-kernel and a 4x64 one for flash's tiles") {
  if (!isa_supported(Isa::Avx512)) return;
  const KernelSet& set = kernel_set(Isa::Avx512);
  CHECK(set.mr == 6);
  CHECK(set.nr == 64);
  const FlashKernel flash = flash_kernel_of(set);
  CHECK(flash.mr == 4);
  CHECK(flash.nr == 64);
  CHECK((flash.fn != set.micro_kernel));
  const KernelSet& portable = kernel_set(Isa::Portable);  // no flash kernel of its own: the GEMM's
  CHECK((flash_kernel_of(portable).fn == portable.micro_kernel));
}

TEST_CASE("fast kernels: each kernel set is its row of kKernelShapes, its peak loop worded from it") {
  for (Isa isa : supported_isas()) {
    CAPTURE(isa_name(isa));
    const KernelSet& set = kernel_set(isa);
    const KernelShape& shape = kernel_shape(isa);
    const FlashKernel flash = flash_kernel_of(set);
    CHECK(shape.isa == isa);
    CHECK(set.mr == shape.mr);
    CHECK(set.nr == shape.nv * set.fma_lanes);
    CHECK(set.kc == shape.kc);
    CHECK(set.mc == shape.mc);
    CHECK(set.nc == shape.nc);
    CHECK(set.flash_br == shape.flash_tile);
    CHECK(set.flash_bc == shape.flash_tile);
    CHECK(flash.mr == shape.flash_mr);
    CHECK(flash.nr == set.nr);
    CHECK(set.fma_chains == shape.fma_chains);
    CHECK(set.fma_flops_per_iteration == 2.0 * set.fma_chains * set.fma_lanes);
  }
  if (isa_supported(Isa::Avx512))
    CHECK(std::string(kernel_set(Isa::Avx512).fma_loop_text) == "16 independent 16-lane FMAs");
  if (isa_supported(Isa::Avx2Fma))
    CHECK(std::string(kernel_set(Isa::Avx2Fma).fma_loop_text) == "12 independent 8-lane FMAs");
  if (isa_supported(Isa::Neon)) CHECK(std::string(kernel_set(Isa::Neon).fma_loop_text) == "24 independent 4-lane FMAs");
  CHECK(std::string(kernel_set(Isa::Portable).fma_loop_text) == "a multiply and an add on 96 independent floats");
  CHECK(kernel_set(Isa::Portable).nr == 16);
}

TEST_CASE("fast kernels: the GEMM past one k block and across the 6x64 tile's edges, C added after the k loop") {
  GemmSweep sweep;
  sweep.layouts = {BLayout::NxK}, sweep.biases = {false};
  sweep.pad_a = 1, sweep.pad_b = 3, sweep.pad_c = 2, sweep.tolerance = 1e-3;  // k up to 1537 terms of size 1
  check_gemm_against_loop({{7, 65, 769}, {6, 64, 1537}, {13, 127, 800}, {145, 129, 50}, {5, 63, 770}}, sweep, 3);
}

TEST_CASE(
    "fast kernels: exp through softmax_row: masked scores weigh exactly 0, tiny weights are small and not negative") {
  const float minus_inf = -std::numeric_limits<float>::infinity();
  // 0, a masked score, scores whose exp is below the normal floats (-90, -100) or rounds to 0 (-110), a spread.
  std::vector<float> in = {0.0f, minus_inf, -90.0f, -100.0f, -110.0f, -1.5f, 2.25f, -30.0f};
  for (int i = 0; i < 40; ++i) in.push_back(std::sin(0.37f * i) * 20.0f - 5.0f);
  in.push_back(minus_inf);  // in the tail past the last whole vector too
  on_every_isa([&] {
    std::vector<float> out(in.size());
    softmax_row(in.data(), out.data(), static_cast<int64_t>(in.size()), 1.0f);
    double m = -1e300, total = 0;
    for (float x : in) m = std::max(m, static_cast<double>(x));
    for (float x : in) total += std::exp(double(x) - m);
    for (size_t i = 0; i < in.size(); ++i) {
      CAPTURE(in[i]);
      CHECK(out[i] >= 0.0f);
      CHECK(std::fabs(out[i] - std::exp(double(in[i]) - m) / total) < 1e-6);
      if (std::isinf(in[i]) || in[i] <= -110.0f) CHECK(out[i] == 0.0f);
    }
  });
}

TEST_CASE("fast kernels: a kept packing of B is used again only when the call says B is unchanged") {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1, 1);
  const int64_t m = 20, n = 70, k = 33;
  std::vector<float> a(m * k), b(n * k), first(m * n), out(m * n);
  for (float& x : a) x = u(rng);
  for (float& x : b) x = u(rng);
  auto product = [&](const std::vector<float>& bm) {
    std::vector<double> c(m * n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t p = 0; p < k; ++p) c[i * n + j] += double(a[i * k + p]) * bm[j * k + p];
    return c;
  };
  auto worst = [&](const std::vector<double>& expected) {
    double d = 0;
    for (int64_t i = 0; i < m * n; ++i) d = std::max(d, std::fabs(out[i] - expected[i]));
    return d;
  };
  const std::vector<double> old_product = product(b);
  on_every_isa([&] {
    for (int threads : {1, 2}) {
      CAPTURE(threads);
      std::vector<float> bm = b;
      GemmArgs g;
      g.m = m, g.n = n, g.k = k, g.a = a.data(), g.lda = k, g.b = bm.data(), g.ldb = k, g.b_layout = BLayout::NxK;
      g.c = out.data(), g.ldc = n, g.keep_packed_b = true;
      GemmScratch scratch;
      gemm_parallel(g, threads, scratch);
      CHECK(worst(old_product) < 1e-5);
      CHECK(scratch.kept.size() == 1);
      for (float& x : bm) x = -x;  // B changes in place
      const std::vector<double> new_product = product(bm);
      g.b_unchanged = true;  // the caller's word: the kept packing is used, the old product comes out
      gemm_parallel(g, threads, scratch);
      CHECK(worst(old_product) < 1e-5);
      g.b_unchanged = false;  // packed again
      gemm_parallel(g, threads, scratch);
      CHECK(worst(new_product) < 1e-5);
      g.b_unchanged = true;
      gemm_parallel(g, threads, scratch);
      CHECK(worst(new_product) < 1e-5);
      CHECK(scratch.kept.size() == 1);
      CHECK(scratch.bytes() >= sizeof(float) * n * k);  // the kept packing counts as the form's memory
    }
  });
}

TEST_CASE("fast kernels: flash over several batch chunks (weights packed once, kept) agrees with mha") {
  AttentionShape s;
  s.batch = 3, s.tokens = 260, s.d_model = 48, s.heads = 4;  // one batch per chunk at one thread
  std::vector<float> x;
  const MhaWeights w = seeded_weights(s, 9, x);
  on_every_isa([&] {
    for (int threads : {1, 2}) {
      CAPTURE(threads);
      std::vector<float> ref(x.size()), out(x.size());
      Workspace a, b;
      mha_forward(w, s, x.data(), ref.data(), threads, a);
      for (int run = 0; run < 2; ++run) {  // the second run reuses the workspace
        flash_forward(w, s, x.data(), out.data(), threads, b);
        CHECK(max_diff(out, ref) < 1e-5);
      }
    }
  });
}
