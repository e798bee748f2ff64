#pragma once
// The fast kernels' tests: a body run on every kernel set this CPU has (AVX-512, AVX2+FMA, NEON) and on
// the portable one, the largest difference of two outputs, the GEMM against a plain loop, and the bench forms
// checked against one output.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "fast/bench_attention.h"
#include "fast/cpu_features.h"
#include "fast/fast_gemm.h"
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

// GEMM sizes, and how a GEMM test varies its calls around them.
struct GemmCase {
  int64_t m, n, k;
};
struct GemmSweep {
  std::vector<attn::BLayout> layouts;
  std::vector<bool> biases;  // with a bias or not (C overwritten only: accumulating onto C takes none)
  // each row's padding: lda = k + pad_a, ldb = B's row + pad_b, ldc = n + pad_c
  int64_t pad_a = 0, pad_b = 0, pad_c = 0;
  double tolerance = 0;  // on |C - the plain loop's C in double|
};

// gemm_parallel on every kernel set, with 1 and 2 threads, C overwritten and accumulated onto, against a plain
// triple loop in double; A, B, the bias and C's start drawn from uniform(-1, 1) by mt19937(seed). The padding
// between C's rows is compared too: it must stay as it was.
inline void check_gemm_against_loop(const std::vector<GemmCase>& cases, const GemmSweep& sweep, unsigned seed) {
  using attn::BLayout;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  const bool any_bias = std::find(sweep.biases.begin(), sweep.biases.end(), true) != sweep.biases.end();
  on_every_isa([&] {
    for (const GemmCase& c : cases)
      for (BLayout layout : sweep.layouts)
        for (bool bias : sweep.biases)
          for (bool accumulate : {false, true})
            for (int threads : {1, 2}) {
              CAPTURE(c.m);
              CAPTURE(c.n);
              CAPTURE(c.k);
              CAPTURE(bias);
              CAPTURE(accumulate);
              CAPTURE(threads);
              CAPTURE(layout == BLayout::KxN ? "KxN" : "NxK");
              const bool kxn = layout == BLayout::KxN;
              const int64_t lda = c.k + sweep.pad_a, ldb = (kxn ? c.n : c.k) + sweep.pad_b, ldc = c.n + sweep.pad_c;
              std::vector<float> a(c.m * lda), b((kxn ? c.k : c.n) * ldb), bv(any_bias ? c.n : 0), out(c.m * ldc);
              for (std::vector<float>* v : {&a, &b, &bv, &out})
                for (float& x : *v) x = u(rng);
              std::vector<double> expected(out.begin(), out.end());
              for (int64_t i = 0; i < c.m; ++i)
                for (int64_t j = 0; j < c.n; ++j) {
                  double s = (accumulate ? expected[i * ldc + j] : 0.0) + (bias && !accumulate ? bv[j] : 0.0);
                  for (int64_t p = 0; p < c.k; ++p)
                    s += double(a[i * lda + p]) * (kxn ? b[p * ldb + j] : b[j * ldb + p]);
                  expected[i * ldc + j] = s;
                }
              attn::GemmArgs g;
              g.m = c.m, g.n = c.n, g.k = c.k, g.a = a.data(), g.lda = lda, g.b = b.data(), g.ldb = ldb;
              g.b_layout = layout, g.c = out.data(), g.ldc = ldc, g.accumulate = accumulate;
              g.bias = bias && !accumulate ? bv.data() : nullptr;
              attn::GemmScratch scratch;
              attn::gemm_parallel(g, threads, scratch);
              double worst = 0;
              for (size_t i = 0; i < out.size(); ++i) worst = std::max(worst, std::fabs(out[i] - expected[i]));
              CHECK(worst < sweep.tolerance);
            }
  });
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
