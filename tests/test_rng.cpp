// Bit-exact tests of the PyTorch 1.13 CPU generator replay (docs/spec/torch-rng.md).
// Every expected value is a float32 bit pattern printed by real torch 1.13 (§12, or
// tools/gen_rng_vectors.py); comparisons are on bits, never with a tolerance.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/generator.h"
#include "core/random_ops.h"

using namespace attn;

#include "rng_helpers.h"

// ---- the comparison helper really is bit-exact ---------------------------------------------

TEST_CASE("rng: a wrong RNG bit makes the vector comparison fail") {
  const std::vector<uint32_t> want = {0x3e979bfc, 0x3f043d6d};
  std::vector<float> got = {from_bits(0x3e979bfc), from_bits(0x3f043d6d)};
  CHECK(bit_mismatch(got, want) == "");

  got[1] = from_bits(bits(got[1]) ^ 1u);  // flip the last mantissa bit
  CHECK(bit_mismatch(got, want) != "");
  CHECK(got[1] != from_bits(want[1]));

  CHECK(bit_mismatch({0.0f}, {bits(-0.0f)}) != "");  // -0.0 and +0.0 are told apart
  CHECK(bit_mismatch({0.0f}, {}) != "");
}

TEST_CASE("rng: unfused uniform form gives 3ea1d27e, not the fused W_query[0][0]") {
  const float bound = static_cast<float>(kaiming_bound(3));
  const float lo = -bound;
  const float span = bound - lo;

  Generator gen = seeded(789);
  const float x = static_cast<float>(gen.random() & 0xFFFFFFu) * 0x1p-24f;
  const float product = x * span;
  const float unfused = product + lo;
  CHECK(hex(bits(unfused)) == "3ea1d27e");

  gen.manual_seed(789);
  const LinearParams fused = linear_init(gen, 3, 2, false);
  CHECK(hex(bits(fused.weight[0])) == "3ea1d27f");
  CHECK(bit_mismatch({fused.weight[0]}, {bits(unfused)}) != "");
}

// ---- §12 test vectors ------------------------------------------------------------------------

TEST_CASE("rng: mt19937 first outputs for seed 123") {
  Generator gen = seeded(123);
  const std::vector<uint32_t> want = {2991312382u, 3062119789u, 1228959102u, 1840268610u,
                                      974319580u,  2967327842u, 2367878886u, 3088727057u};
  for (uint32_t w : want) CHECK(gen.random() == w);
  CHECK(gen.draws() == 8);
}

TEST_CASE("rng: mt19937 first outputs for seed 42") {
  Generator gen = seeded(42);
  const std::vector<uint32_t> want = {0x5fe1dc66, 0xcbea3db3, 0xf362035c, 0x2ef5950e,
                                      0xbb63f46a, 0xc799d447, 0x9941aebc, 0x98cb2c14};
  for (uint32_t w : want) CHECK(gen.random() == w);
}

TEST_CASE("rng: random64 puts the first draw in the high word") {
  Generator gen = seeded(42);
  CHECK(gen.random64() == 0x5fe1dc66cbea3db3ULL);
  CHECK(gen.random64() == 0xf362035c2ef5950eULL);
  CHECK(gen.draws() == 4);
}

TEST_CASE("rng: default generator is torch's default seed 67280421310721") {
  Generator def;
  Generator explicit_seed = seeded(67280421310721ULL);
  CHECK(def.draws() == 0);
  CHECK_FALSE(def.normal_cache().has_value());
  for (int i = 0; i < 5; ++i) CHECK(def.random() == explicit_seed.random());
}

TEST_CASE("rng: seed 123 rand(3,2) three calls") {
  Generator gen = seeded(123);
  CHECK_BITS(rand_values(gen, 6), {0x3e979bfc, 0x3f043d6d, 0x3e80dafc, 0x3f304542, 0x3d977ee0, 0x3f5dd462});
  CHECK_BITS(rand_values(gen, 6), {0x3e0bdb98, 0x3dd1e088, 0x3e3c794c, 0x3f39f86a, 0x3ea168f6, 0x3f2fe639});
  CHECK_BITS(rand_values(gen, 6), {0x3d9ae6b0, 0x3e495b84, 0x3ea200c0, 0x3ecdb0e2, 0x3df2d3f0, 0x3f53d02f});
  CHECK(gen.draws() == 18);
}

TEST_CASE("rng: seed 42 randn(3,2) double path with cache") {
  Generator gen = seeded(42);
  CHECK_BITS(randn_values(gen, 6), {0x3eac62ae, 0x3e03e69d, 0x3e7016e7, 0x3e6bdc6c, 0xbf8fb9c2, 0xbe3eccd8});
  CHECK(gen.draws() == 12);
  CHECK_FALSE(gen.normal_cache().has_value());  // 6 values = 3 whole pairs
}

TEST_CASE("rng: seed 42 randn intermediates of the first Box-Muller pair") {
  Generator gen = seeded(42);
  const uint64_t r1 = gen.random64();
  const uint64_t r2 = gen.random64();
  CHECK(r1 == 0x5fe1dc66cbea3db3ULL);
  CHECK(r2 == 0xf362035c2ef5950eULL);
  const double u1 = static_cast<double>(r1 & ((1ULL << 53) - 1)) * 0x1p-53;
  const double u2 = static_cast<double>(r2 & ((1ULL << 53) - 1)) * 0x1p-53;
  CHECK(u1 == 0.05815448596142969);
  CHECK(u2 == 0.06291016742457756);
  CHECK(std::sqrt(-2.0 * std::log(1.0 - u2)) == 0.3604889146517138);

  // randn(1) outputs element 0 and leaves r*sin(theta) in the cache.
  gen.manual_seed(42);
  const std::vector<float> first = randn_values(gen, 1);
  CHECK(hex(bits(first[0])) == "3eac62ae");
  CHECK(first[0] == static_cast<float>(0.33669035438385886));
  REQUIRE(gen.normal_cache().has_value());
  CHECK(*gen.normal_cache() == 0.1288094051365897);
  CHECK(gen.draws() == 4);
}

TEST_CASE("rng: seed 0 randn(4,5) AVX2 kernel") {
  Generator gen = seeded(0);
  CHECK_BITS(randn_values(gen, 20), {0xbf901b85, 0xbf93808a, 0xbe804bd6, 0xbede255d, 0x3f194d8b,  //
                                     0xbfc70d5b, 0xbeaec6ca, 0x3fed2f4e, 0x3eefaa55, 0xbe217f5f,  //
                                     0x3fb8c9db, 0x3e8837a1, 0x3fb1d6c0, 0x3fcb0d00, 0x3f72409c,  //
                                     0xbf57fb33, 0x3f6e8c30, 0x3fa12737, 0x4000519a, 0x3d5c1b3a});
  CHECK(gen.draws() == 36);
  CHECK_FALSE(gen.normal_cache().has_value());
}

TEST_CASE("rng: seed 0 randn(4,5) lane 0 inputs U0 U8 and u1") {
  Generator gen = seeded(0);
  const std::vector<float> u = rand_values(gen, 9);
  CHECK(hex(bits(u[0])) == "3efe1558");
  CHECK(hex(bits(u[8])) == "3ee94812");
  CHECK(hex(bits(1.0f - u[0])) == "3f00f554");
}

TEST_CASE("rng: seed 789 three Linear(3,2,bias=False) weights, fused") {
  Generator gen = seeded(789);
  const LinearParams q = linear_init(gen, 3, 2, false);
  const LinearParams k = linear_init(gen, 3, 2, false);
  const LinearParams v = linear_init(gen, 3, 2, false);
  CHECK(q.bias.empty());
  CHECK_BITS(q.weight, {0x3ea1d27f, 0x3ee9e2d0, 0x3f03079c, 0xbe2c5302, 0xbeacfe38, 0xbdbbf3f0});
  CHECK_BITS(k.weight, {0x3ecfc5c8, 0xbef0daf6, 0x3e727d10, 0x3e5a7b3d, 0xbe85255c, 0xbf02b2f2});
  CHECK_BITS(v.weight, {0x3e8150d7, 0xbe10dfae, 0xbe48e3c3, 0x3f04e439, 0xbdae6c57, 0xbe513b1c});
  CHECK(gen.draws() == 18);
}

TEST_CASE("rng: seed 123 out_proj Linear(2,2) after three Linear(3,2,bias=False)") {
  Generator gen = seeded(123);
  for (int i = 0; i < 3; ++i) linear_init(gen, 3, 2, false);
  const LinearParams out_proj = linear_init(gen, 2, 2, true);
  CHECK_BITS(out_proj.weight, {0xbe2ac28e, 0x3e686b80, 0x3f0001b4, 0x3e06e663});
  CHECK_BITS(out_proj.bias, {0x3e45ffde, 0x3f2ebb01});
  CHECK(gen.draws() == 18 + 4 + 2);
}

TEST_CASE("rng: kaiming and bias bounds") {
  CHECK(kaiming_bound(3) == 0.5773502691896257);
  CHECK(hex(bits(static_cast<float>(kaiming_bound(3)))) == "3f13cd3a");
  const double bias_bound = 1 / std::sqrt(2.0);
  CHECK(bias_bound == 0.7071067811865475);
  CHECK(hex(bits(static_cast<float>(bias_bound))) == "3f3504f3");

  // linear_init uses exactly these bounds: weight then bias, each a plain uniform_.
  for (int fan_in : {1, 2, 3, 7, 768}) {
    Generator a = seeded(2024);
    Generator b = seeded(2024);
    const LinearParams p = linear_init(a, fan_in, 3, true);
    const std::vector<float> w = uniform_values(b, 3 * fan_in, -kaiming_bound(fan_in), kaiming_bound(fan_in));
    const double bb = 1 / std::sqrt(static_cast<double>(fan_in));
    const std::vector<float> bias = uniform_values(b, 3, -bb, bb);
    CHECK(p.weight == w);
    CHECK(p.bias == bias);
  }
}

TEST_CASE("rng: seed 123 Dropout(0.5)(ones(6,6)) default path") {
  Generator gen = seeded(123);
  std::vector<float> mask;
  const std::vector<float> out = dropout_values(gen, std::vector<float>(36, 1.0f), 0.5, BernoulliPath::Default, &mask);
  CHECK_BITS(out, {kTwo, kTwo, 0,    kTwo, kTwo, 0,     //
                   0,    0,    0,    kTwo, 0,    kTwo,  //
                   kTwo, kTwo, kTwo, kTwo, 0,    kTwo,  //
                   0,    kTwo, kTwo, 0,    0,    kTwo,  //
                   0,    kTwo, 0,    kTwo, 0,    kTwo,  //
                   0,    kTwo, kTwo, kTwo, kTwo, 0});
  REQUIRE(mask.size() == 36);
  for (size_t i = 0; i < 36; ++i) CHECK(mask[i] * 2.0f == out[i]);
  CHECK(gen.draws() == 72);
}

TEST_CASE("rng: seed 123 Dropout(0.5)(ones(6,6)) MKL path") {
  Generator gen = seeded(123);
  std::vector<float> mask;
  const std::vector<float> out = dropout_values(gen, std::vector<float>(36, 1.0f), 0.5, BernoulliPath::Mkl, &mask);
  CHECK_BITS(out, {kTwo, kTwo, kTwo, kTwo, kTwo, kTwo,  //
                   0,    kTwo, 0,    0,    0,    0,     //
                   0,    0,    kTwo, 0,    kTwo, 0,     //
                   kTwo, kTwo, 0,    0,    0,    kTwo,  //
                   kTwo, 0,    0,    0,    0,    kTwo,  //
                   0,    kTwo, 0,    0,    0,    0});
  CHECK(gen.draws() == 1);

  // Intermediates: seed draw 2991312382, x0 = seed mod (2^31-1), x_{k+1} = a * x_k mod m.
  const uint64_t m = 2147483647, a = 1132489760;
  uint64_t x = 2991312382u % m;
  const std::vector<uint64_t> want_x = {843828735, 459765758, 453103405, 257879217, 726883821, 711251137};
  for (size_t k = 0; k < want_x.size(); ++k) {
    CHECK(x == want_x[k]);
    CHECK(mask[k] == (static_cast<double>(x) / static_cast<double>(m) < 0.5 ? 1.0f : 0.0f));
    x = a * x % m;
  }
}

// ---- extra vectors from tools/gen_rng_vectors.py (torch 1.13.0a0, Debian, x86-64) ----------

TEST_CASE("rng: torch seed 7 randn(17) 16-wide path with redrawn tail") {
  Generator gen = seeded(7);
  CHECK_BITS(randn_values(gen, 17), {0xbf51f456, 0xbea62d99, 0x3ff6933b, 0xbea8f74c, 0x3e4b352e, 0x3f4835ea, 0x3f85017b,
                                     0xbf397989, 0xbf595213, 0xbe5c827d, 0xbfe869cc, 0xbeb0c38e, 0xc003ef41, 0x3f2c91dd,
                                     0xbfa96365, 0xbfae0ce9, 0xbf5de028});
  CHECK(gen.draws() == 17 + 16);
}

TEST_CASE("rng: torch seed 3 randn(5) scalar path") {
  Generator gen = seeded(3);
  CHECK_BITS(randn_values(gen, 5), {0x3f4da380, 0x3e330786, 0x3db63a26, 0xbf1d1ca0, 0x3d3d29cf});
  CHECK(gen.draws() == 12);
  CHECK(gen.normal_cache().has_value());
}

TEST_CASE("rng: torch seed 11 Linear(5,4) with bias") {
  Generator gen = seeded(11);
  const LinearParams p = linear_init(gen, 5, 4, true);
  CHECK_BITS(p.weight, {0xbea0b85f, 0xbc450deb, 0x3ede6837, 0xbe97dabf, 0x3d99c437, 0x3e3150f3, 0x3d98319d,
                        0xbeaa27dd, 0x3d841d01, 0x3ec28dc7, 0xbe534314, 0x3e8159a7, 0xbe50ed39, 0xbd06b3f8,
                        0x3e74a9d4, 0x3b0e3415, 0xbeb60854, 0x3e6e2135, 0x3e8b018a, 0x3e72fbca});
  CHECK_BITS(p.bias, {0x3ea9da9b, 0x3e4c4b6c, 0x3e9a11a4, 0x3d963ff9});
  CHECK(gen.draws() == 24);
}

TEST_CASE("rng: torch seed 9 Dropout(0.2)(ones(5,7)) default path") {
  constexpr uint32_t k = 0x3fa00000;  // 1.25f = f32(1 / f32(0.8))
  Generator gen = seeded(9);
  CHECK_BITS(dropout_values(gen, std::vector<float>(35, 1.0f), 0.2, BernoulliPath::Default), {k, 0, k, k, k, k, k,  //
                                                                                              k, k, k, k, k, k, k,  //
                                                                                              k, k, k, 0, 0, k, k,  //
                                                                                              k, k, k, k, k, 0, k,  //
                                                                                              k, k, k, 0, k, 0, 0});
  CHECK(gen.draws() == 70);
}

TEST_CASE("rng: torch seed 5 normal_ with mean and std on both paths") {
  Generator gen = seeded(5);
  CHECK_BITS(randn_values(gen, 20, 0.5, 2.0),
             {0x4085e8bc, 0x3fc4d5ca, 0xc03b203d, 0xc039c6cc, 0x3e76736a, 0xbf341aa0, 0x3f4a3d40,
              0x3e4d276a, 0x40b7553b, 0xbebc7084, 0x3f9a32a8, 0x3ebde638, 0x405dd0ba, 0x3fbe7948,
              0x3f7f999a, 0x407f9eba, 0x3ffea9b4, 0x3f103555, 0xbfec2358, 0xc020e36c});
  CHECK_BITS(randn_values(gen, 3, -1.0, 0.25), {0xbf7c5898, 0xbfa60f5b, 0xbf921bbb});
}

TEST_CASE("rng: torch seed 13 uniform_(-2, 3)") {
  Generator gen = seeded(13);
  CHECK_BITS(uniform_values(gen, 6, -2.0, 3.0),
             {0xbfc53cb3, 0x3ecb36e0, 0x4003605c, 0xbff654d8, 0xbff634c1, 0x3f824875});
}

TEST_CASE("rng: torch seed 2024 large tensors by hash") {
  Generator gen = seeded(2024);
  CHECK(fnv1a64(randn_values(gen, 100003)) == 0x3d36dcfa4dd8bc73ULL);
  const LinearParams p = linear_init(gen, 768, 64, true);
  std::vector<float> params = p.weight;
  params.insert(params.end(), p.bias.begin(), p.bias.end());
  CHECK(fnv1a64(params) == 0x8966b87c088885e3ULL);
  std::vector<float> sevens;
  for (int i = 0; i < 3; ++i) {
    const std::vector<float> v = randn_values(gen, 7);  // odd: the cache carries over
    sevens.insert(sevens.end(), v.begin(), v.end());
  }
  CHECK(fnv1a64(sevens) == 0x84ba07444ab0a583ULL);
  const std::vector<float> x = randn_values(gen, 2500);
  CHECK(fnv1a64(dropout_values(gen, x, 0.1, BernoulliPath::Default)) == 0x58348da1abac3c27ULL);
  // std = 1.7 is not a power of two, so the final fma(n, std, mean) of §5.2 matters here.
  CHECK(fnv1a64(randn_values(gen, 1000, 0.3, 1.7)) == 0xa5d3004426dd2a9bULL);
  CHECK(fnv1a64(randn_values(gen, 9, 0.3, 1.7)) == 0x70170b6fcbc892eeULL);
}

// ---- §8 draw counts --------------------------------------------------------------------------

TEST_CASE("rng: draws per operation follow the spec table") {
  Generator gen = seeded(1);
  auto draws_of = [&gen](auto&& op) {
    const uint64_t before = gen.draws();
    op();
    return gen.draws() - before;
  };
  CHECK(draws_of([&] { rand_values(gen, 0); }) == 0);
  CHECK(draws_of([&] { rand_values(gen, 7); }) == 7);
  CHECK(draws_of([&] { uniform_values(gen, 11, -1, 1); }) == 11);
  CHECK(draws_of([&] { linear_init(gen, 3, 2, false); }) == 6);
  CHECK(draws_of([&] { linear_init(gen, 4, 5, true); }) == 25);
  CHECK(draws_of([&] { randn_values(gen, 16); }) == 16);
  CHECK(draws_of([&] { randn_values(gen, 17); }) == 33);
  CHECK(draws_of([&] { randn_values(gen, 31); }) == 47);
  CHECK(draws_of([&] { randn_values(gen, 32); }) == 32);
  CHECK(draws_of([&] { randn_values(gen, 100); }) == 116);
  CHECK(draws_of([&] { dropout_values(gen, std::vector<float>(10, 1.0f), 0.3, BernoulliPath::Default); }) == 20);
  CHECK(draws_of([&] { dropout_values(gen, std::vector<float>(10, 1.0f), 0.3, BernoulliPath::Mkl); }) == 1);
  CHECK(draws_of([&] { dropout_values(gen, std::vector<float>(10, 1.0f), 0.0, BernoulliPath::Default); }) == 0);
  CHECK(draws_of([&] { dropout_values(gen, std::vector<float>(10, 1.0f), 1.0, BernoulliPath::Default); }) == 0);
  CHECK(draws_of([&] { dropout_values(gen, {}, 0.5, BernoulliPath::Default); }) == 0);
  CHECK(draws_of([&] { bernoulli_mask(gen, 9, 0.5, BernoulliPath::Default); }) == 18);

  // randn n < 16: 4 draws per fresh pair, the cached value first (4 * ceil((n - c) / 2)).
  gen.manual_seed(1);
  CHECK(draws_of([&] { randn_values(gen, 3); }) == 8);  // c = 0, leaves a value
  CHECK(gen.normal_cache().has_value());
  CHECK(draws_of([&] { randn_values(gen, 1); }) == 0);  // c = 1, uses it
  CHECK_FALSE(gen.normal_cache().has_value());
  CHECK(draws_of([&] { randn_values(gen, 15); }) == 32);  // c = 0, leaves a value
  CHECK(draws_of([&] { randn_values(gen, 5); }) == 8);    // c = 1, (5 - 1) / 2 pairs
  CHECK_FALSE(gen.normal_cache().has_value());
}

TEST_CASE("rng: manual_seed resets the draw counter") {
  Generator gen = seeded(5);
  rand_values(gen, 3);
  CHECK(gen.draws() == 3);
  gen.manual_seed(5);
  CHECK(gen.draws() == 0);
}

// ---- §5 randn cache and tail -----------------------------------------------------------------

TEST_CASE("rng: randn cache survives rand, Linear, dropout and 16-wide randn") {
  Generator ref = seeded(42);
  const std::vector<float> four = randn_values(ref, 4);

  Generator gen = seeded(42);
  const std::vector<float> three = randn_values(gen, 3);
  CHECK(std::vector<float>(four.begin(), four.begin() + 3) == three);
  REQUIRE(gen.normal_cache().has_value());
  const double cached = *gen.normal_cache();

  rand_values(gen, 5);
  linear_init(gen, 3, 2, true);
  dropout_values(gen, std::vector<float>(8, 1.0f), 0.5, BernoulliPath::Default);
  dropout_values(gen, std::vector<float>(8, 1.0f), 0.5, BernoulliPath::Mkl);
  randn_values(gen, 20);
  REQUIRE(gen.normal_cache().has_value());
  CHECK(*gen.normal_cache() == cached);

  const uint64_t before = gen.draws();
  const std::vector<float> last = randn_values(gen, 1);
  CHECK(gen.draws() == before);
  CHECK(bits(last[0]) == bits(four[3]));
  CHECK_FALSE(gen.normal_cache().has_value());
}

TEST_CASE("rng: manual_seed clears the randn cache") {
  Generator gen = seeded(42);
  randn_values(gen, 1);
  CHECK(gen.normal_cache().has_value());
  gen.manual_seed(42);
  CHECK_FALSE(gen.normal_cache().has_value());
  CHECK(hex(bits(randn_values(gen, 1)[0])) == "3eac62ae");  // a fresh pair, not the cache
}

TEST_CASE("rng: randn n >= 16 with n mod 16 != 0 redraws the last 16") {
  // randn(20): the first group is draws 0..15, then 16 new draws (20..35) replace out[4..20).
  Generator gen = seeded(0);
  const std::vector<float> twenty = randn_values(gen, 20);

  Generator head = seeded(0);
  const std::vector<float> first16 = randn_values(head, 16);

  Generator tail = seeded(0);
  rand_values(tail, 20);
  const std::vector<float> tail16 = randn_values(tail, 16);

  for (size_t i = 0; i < 4; ++i) CHECK(bits(twenty[i]) == bits(first16[i]));
  for (size_t i = 4; i < 20; ++i) CHECK(bits(twenty[i]) == bits(tail16[i - 4]));
}
