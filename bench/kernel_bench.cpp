// The bench kernels under Google Benchmark: the GEMM shapes the forms use, the four forms at one
// GPT-2-small sequence (batch 1, 1024 tokens, 768 dims, 12 heads), the softmax row and the FMA
// peak loop, on 1 thread and on every hardware thread. Run with `make bench`; not a test.
// `attn-tutor bench` is the learner's view of the same kernels (batch 8, with the annotations).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "features/bench/attention_bench.h"
#include "fast/bench_attention.h"
#include "fast/fast_gemm.h"
#include "fast/flash_attention.h"
#include "fast/fma_peak.h"

namespace {

using namespace attn;

void gflops_counter(benchmark::State& state, double flops_per_iteration) {
  state.counters["GFLOP/s"] = benchmark::Counter(flops_per_iteration * static_cast<double>(state.iterations()) / 1e9,
                                                 benchmark::Counter::kIsRate);
}

// C (m, n) = A (m, k) · B, B as nn.Linear weights (n, k) or row-major (k, n); args: m, n, k, layout, threads.
void BM_Gemm(benchmark::State& state) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const BLayout layout = state.range(3) ? BLayout::NxK : BLayout::KxN;
  const int threads = static_cast<int>(state.range(4));
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> a(m * k), b(k * n), c(m * n);
  for (float& v : a) v = u(rng);
  for (float& v : b) v = u(rng);
  GemmArgs g;
  g.m = m, g.n = n, g.k = k, g.a = a.data(), g.lda = k, g.b = b.data();
  g.ldb = layout == BLayout::NxK ? k : n, g.b_layout = layout, g.c = c.data(), g.ldc = n;
  GemmScratch scratch;
  for (auto _ : state) {
    gemm_parallel(g, threads, scratch);
    benchmark::DoNotOptimize(c.data());
  }
  gflops_counter(state, 2.0 * m * n * k);
}

template <void (*Forward)(const MhaWeights&, const AttentionShape&, const float*, float*, int, Workspace&)>
void BM_Form(benchmark::State& state) {
  AttentionShape s;
  s.batch = 1;
  const int threads = static_cast<int>(state.range(0));
  std::vector<float> x;
  const MhaWeights w = seeded_weights(s, 123, x);
  std::vector<float> out(x.size());
  Workspace ws;
  Forward(w, s, x.data(), out.data(), threads, ws);  // sizes the workspace
  for (auto _ : state) {
    Forward(w, s, x.data(), out.data(), threads, ws);
    benchmark::DoNotOptimize(out.data());
  }
  const double b = s.batch, T = s.tokens, d = s.d_model;
  gflops_counter(state, 8 * b * T * d * d + 4 * b * T * T * d);  // counted in full, as attn-tutor bench does
  state.counters["extra MB"] = ws.bytes() / 1e6;
}

void BM_SoftmaxRow(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::vector<float> in(n), out(n);
  for (int64_t j = 0; j < n; ++j) in[j] = 0.01f * static_cast<float>(j % 97);
  for (auto _ : state) {
    softmax_row(in.data(), out.data(), n, 0.125f);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_FmaPeak(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  double gflops = 0;
  for (auto _ : state) {
    FmaPeak peak(threads);
    peak.measure(3, 20.0);
    gflops = peak.gflops();
  }
  state.counters["peak GFLOP/s"] = gflops;
}

void thread_args(benchmark::internal::Benchmark* b) {
  b->Arg(1);
  if (hardware_threads() > 1) b->Arg(hardware_threads());
}

void gemm_args(benchmark::internal::Benchmark* b) {
  const int64_t shapes[][4] = {
      {8192, 768, 768, 1},   // mha's W_query(x) at batch 8
      {8192, 2304, 768, 1},  // fused qkv at batch 8
      {1024, 2304, 768, 1},  // flash's qkv, one batch
      {8192, 64, 768, 1},    // one wrapper head's projection (A read in place)
      {1024, 1024, 64, 1},   // one head's queries @ keys.T
      {1024, 64, 1024, 0},   // one head's attn_weights @ values
  };
  for (const auto& s : shapes)
    for (int64_t t : {int64_t(1), int64_t(hardware_threads())}) {
      b->Args({s[0], s[1], s[2], s[3], t});
      if (hardware_threads() == 1) break;
    }
}

}  // namespace

BENCHMARK(BM_FmaPeak)->Apply(thread_args)->Iterations(1)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Gemm)
    ->ArgNames({"m", "n", "k", "NxK", "threads"})
    ->Apply(gemm_args)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SoftmaxRow)->Arg(1024)->Arg(1000);
BENCHMARK_TEMPLATE(BM_Form, wrapper_forward)
    ->Name("BM_Form/wrapper")
    ->ArgName("threads")
    ->Apply(thread_args)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_Form, mha_forward)
    ->Name("BM_Form/mha")
    ->ArgName("threads")
    ->Apply(thread_args)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_Form, fused_qkv_forward)
    ->Name("BM_Form/fused-qkv")
    ->ArgName("threads")
    ->Apply(thread_args)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_Form, flash_forward)
    ->Name("BM_Form/flash")
    ->ArgName("threads")
    ->Apply(thread_args)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
