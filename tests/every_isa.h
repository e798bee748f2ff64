#pragma once
// The fast kernels' tests: a body run on every kernel set this CPU has (AVX-512, AVX2+FMA, NEON) and on
// the portable one, the largest difference of two outputs, and the bench forms checked against one output.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "fast/bench_attention.h"
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

// Attention sizes for the fast forms' tests (sizes that are not whole tiles).
struct AttentionCase {
  int64_t batch, tokens, d_model, heads;
};

// `body(s, w, x)` for each case on every kernel set: its shape, weights and input seeded with 5.
template <class F>
void on_every_isa_and_case(const std::vector<AttentionCase>& cases, F&& body) {
  on_every_isa([&] {
    for (const AttentionCase& c : cases) {
      attn::AttentionShape s;
      s.batch = c.batch, s.tokens = c.tokens, s.d_model = c.d_model, s.heads = c.heads;
      CAPTURE(c.tokens);
      CAPTURE(c.d_model);
      CAPTURE(c.heads);
      std::vector<float> x;
      const attn::MhaWeights w = attn::seeded_weights(s, 5, x);
      body(s, w, x);
    }
  });
}

inline double max_diff(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, static_cast<double>(std::fabs(a[i] - b[i])));
  return d;
}

// A bench form: out (batch, tokens, d_model) from x.
using BenchForward = void (*)(const attn::MhaWeights&, const attn::AttentionShape&, const float*, float*, int,
                              attn::Workspace&);

// Every form, on every kernel set, with 1 and 2 threads: its output within 1e-5 of `expected`, and its workspace
// holding memory.
template <std::size_t N>
void check_forms_against(const std::pair<const char*, BenchForward> (&forms)[N], const attn::MhaWeights& w,
                         const attn::AttentionShape& s, const std::vector<float>& x,
                         const std::vector<float>& expected) {
  on_every_isa([&] {
    for (const auto& form : forms)
      for (int threads : {1, 2}) {
        const char* name = form.first;
        const BenchForward forward = form.second;  // not a structured binding: clang 14 cannot capture one
        CAPTURE(name);
        CAPTURE(threads);
        attn::Workspace ws;
        std::vector<float> out(x.size());
        forward(w, s, x.data(), out.data(), threads, ws);
        CHECK(max_diff(out, expected) < 1e-5);
        CHECK(ws.bytes() > 0);
      }
  });
}
