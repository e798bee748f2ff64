#pragma once
// The fast kernels' tests: a body run on every kernel set this CPU has (AVX-512, AVX2+FMA, NEON) and on
// the portable one, and the largest difference of two outputs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "fast/cpu_features.h"
#include "fast/kernels.h"

template <class F>
void on_every_isa(F&& body) {
  using namespace attn;
  const Isa native = active_isa();
  for (Isa isa : supported_isas()) {
    force_isa(isa);
    CAPTURE(isa_name(active_isa()));
    body();
  }
  force_isa(native);
}

inline double max_diff(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, static_cast<double>(std::fabs(a[i] - b[i])));
  return d;
}
