#include "fast/fma_peak.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "fast/kernels.h"
#include "fast/parallel.h"

namespace attn {

FmaPeak::FmaPeak(int threads) : threads_(std::max(1, threads)), isa_(active_isa()) {}

std::string FmaPeak::loop_text() const {
  return std::string(kernel_set(isa_).fma_loop_text) + " (" + isa_name(isa_) + ")";
}

FmaPeak::Loop FmaPeak::loop() const {
  const KernelSet& k = kernel_set(isa_);
  return {k.fma_chains, k.fma_lanes, isa_};
}

void FmaPeak::measure(int trials, double trial_ms) {
  using clock = std::chrono::steady_clock;
  const KernelSet& k = kernel_set(isa_);
  volatile float sink = 0;
  if (iterations_ == 0) {  // calibrate on one thread: a trial lasts about trial_ms
    long n = 1 << 10;
    for (;;) {
      const auto t0 = clock::now();
      sink = sink + k.fma_loop(n);
      const double ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
      if (ms > trial_ms / 8 || n > (1L << 34)) {
        iterations_ = std::max(1L, static_cast<long>(n * trial_ms / std::max(ms, 1e-3)));
        break;
      }
      n *= 4;
    }
  }
  const long n = iterations_;
  for (int t = 0; t < trials; ++t) {
    std::vector<float> keep(threads_);
    const auto t0 = clock::now();
    const int team = parallel_run(threads_, [&](int i) { keep[i] = k.fma_loop(n); });  // the threads really started
    const double s = std::chrono::duration<double>(clock::now() - t0).count();
    for (float v : keep) sink = sink + v;  // keeps the loops alive
    best_ = std::max(best_, team * n * k.fma_flops_per_iteration / s / 1e9);
    ++trials_;
  }
}

double FmaPeak::gflops() const { return best_; }

}  // namespace attn
