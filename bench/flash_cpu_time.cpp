// The CPU time of the bench kernels, for a machine other programs share: flash, fused-qkv, the two
// projection GEMMs alone and the projection's B packing alone (a GEMM of 6 rows), each the best of
// `repeats` runs after one warm-up, timed with CLOCK_PROCESS_CPUTIME_ID (wall time beside it). Not a
// test and not part of `bench`; docs/performance.md says how its figures were used.
//   attn_flash_cpu_time [threads=1] [repeats=3] [all|flash|check|fused|gemm|pack] [avx512|avx2|portable]
// BATCH=n in the environment changes the batch (default 8; tokens 1024, d_model 768, 12 heads).
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fast/bench_attention.h"
#include "fast/cpu_features.h"
#include "fast/fast_gemm.h"
#include "fast/flash_attention.h"

using namespace attn;

namespace {

double now_ms(clockid_t clock) {
  timespec t;
  clock_gettime(clock, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

template <class F>
void time_it(const char* name, int repeats, double flops, F f) {
  f();
  double cpu = 1e300, wall = 1e300;
  for (int i = 0; i < repeats; ++i) {
    const double w0 = now_ms(CLOCK_MONOTONIC), c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
    f();
    cpu = std::min(cpu, now_ms(CLOCK_PROCESS_CPUTIME_ID) - c0);
    wall = std::min(wall, now_ms(CLOCK_MONOTONIC) - w0);
  }
  std::printf("%-10s CPU best %8.1f ms   wall best %8.1f ms   %6.1f GFLOP per CPU-second\n", name, cpu, wall,
              flops / cpu / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::max(1, std::atoi(argv[1])) : 1;
  const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  const std::string what = argc > 3 ? argv[3] : "all";
  if (argc > 4) {
    Isa isa;
    if (!isa_from_name(argv[4], isa)) {
      std::fprintf(stderr, "attn_flash_cpu_time: kernels '%s' unknown; use avx512, avx2, neon or portable\n", argv[4]);
      return 2;
    }
    force_isa(isa);
  }
  AttentionShape s;
  if (const char* b = std::getenv("BATCH")) s.batch = std::clamp(std::atoi(b), 1, 64);
  std::vector<float> x;
  const MhaWeights w = seeded_weights(s, 123, x);
  std::vector<float> out(s.rows() * s.d_model);
  const double b = s.batch, T = s.tokens, d = s.d_model;
  const double flops = 8 * b * T * d * d + 4 * b * T * T * d;  // as bench counts them
  std::printf("%s, %d thread(s), batch %lld\n", isa_name(active_isa()), threads, static_cast<long long>(s.batch));
  Workspace ws;
  if (what == "all" || what == "flash")
    time_it("flash", repeats, flops, [&] { flash_forward(w, s, x.data(), out.data(), threads, ws); });
  if (what == "all" || what == "check") {
    Workspace other;
    std::vector<float> ref(out.size());
    flash_forward(w, s, x.data(), out.data(), threads, ws);
    mha_forward(w, s, x.data(), ref.data(), threads, other);
    double diff = 0;
    for (std::size_t i = 0; i < out.size(); ++i) diff = std::max(diff, static_cast<double>(std::fabs(out[i] - ref[i])));
    std::printf("max|flash - mha| = %.3g\n", diff);
  }
  if (what == "all" || what == "fused") {
    Workspace other;
    time_it("fused-qkv", repeats, flops, [&] { fused_qkv_forward(w, s, x.data(), out.data(), threads, other); });
  }
  if (what == "all" || what == "gemm") {  // flash's two projections over the whole batch
    std::vector<float> qkv(s.rows() * 3 * s.d_model);
    GemmScratch scratch;
    GemmArgs p;
    p.m = s.rows(), p.n = 3 * s.d_model, p.k = s.d_model, p.a = x.data(), p.lda = s.d_model;
    p.b = w.w_qkv.data(), p.ldb = s.d_model, p.b_layout = BLayout::NxK, p.c = qkv.data(), p.ldc = 3 * s.d_model;
    time_it("gemm-qkv", repeats, 2 * b * T * d * 3 * d, [&] { gemm_parallel(p, threads, scratch); });
    GemmArgs o;
    o.m = s.rows(), o.n = s.d_model, o.k = s.d_model, o.a = qkv.data(), o.lda = 3 * s.d_model;
    o.b = w.w_out.data(), o.ldb = s.d_model, o.b_layout = BLayout::NxK, o.c = out.data(), o.ldc = s.d_model;
    o.bias = w.b_out.data();
    time_it("gemm-out", repeats, 2 * b * T * d * d, [&] { gemm_parallel(o, threads, scratch); });
  }
  if (what == "all" || what == "pack") {  // 6 rows: packing W_qkv is nearly all of it; 8 times, as flash does
    std::vector<float> c6(6 * 3 * s.d_model);
    GemmPack pack;
    GemmArgs p;
    p.m = 6, p.n = 3 * s.d_model, p.k = s.d_model, p.a = x.data(), p.lda = s.d_model;
    p.b = w.w_qkv.data(), p.ldb = s.d_model, p.b_layout = BLayout::NxK, p.c = c6.data(), p.ldc = 3 * s.d_model;
    time_it("pack-B x8", repeats, 8 * 2 * 6 * 3 * d * d, [&] {
      for (int i = 0; i < 8; ++i) gemm(p, pack);
    });
  }
  return 0;
}
