// Seeds, dropout edge cases and the MKL stream of the PyTorch 1.13 CPU generator replay
// (docs/spec/torch-rng.md), bit for bit.
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

// ---- §2 seeds --------------------------------------------------------------------------------

TEST_CASE("rng: negative seeds are two's complement and reduced mod 2^32") {
  const uint64_t minus_one = *parse_torch_seed("-1");
  CHECK(minus_one == UINT64_MAX);
  Generator a = seeded(minus_one);
  Generator b = seeded(UINT64_MAX);
  Generator c = seeded(0xFFFFFFFFULL);
  for (int i = 0; i < 10; ++i) {
    const uint32_t va = a.random();
    CHECK(va == b.random());
    CHECK(va == c.random());
  }
  Generator zero = seeded(0);
  Generator two32 = seeded(1ULL << 32);
  for (int i = 0; i < 10; ++i) CHECK(zero.random() == two32.random());
}

TEST_CASE("rng: parse_torch_seed accepts the torch range") {
  CHECK(parse_torch_seed("0") == 0u);
  CHECK(parse_torch_seed("123") == 123u);
  CHECK(parse_torch_seed("+42") == 42u);
  CHECK(parse_torch_seed("-0") == 0u);
  CHECK(parse_torch_seed("007") == 7u);
  CHECK(parse_torch_seed("67280421310721") == 67280421310721ULL);
  CHECK(parse_torch_seed("18446744073709551615") == UINT64_MAX);    // 2^64 - 1
  CHECK(parse_torch_seed("-9223372036854775808") == (1ULL << 63));  // -2^63
  CHECK(parse_torch_seed("-9223372036854775807") == (1ULL << 63) + 1);
  CHECK(parse_torch_seed("-2") == UINT64_MAX - 1);
}

TEST_CASE("rng: parse_torch_seed rejects everything else") {
  for (const char* bad : {"18446744073709551616",  // 2^64
                          "99999999999999999999",
                          "-9223372036854775809",  // -2^63 - 1
                          "-18446744073709551615", "12a", "", " 1", "1 ", "-", "+", "--1", "0x10", "1.0", "1e3"})
    CHECK_MESSAGE(!parse_torch_seed(bad).has_value(), "[" << bad << "]");
}

// ---- §7 dropout edge cases -------------------------------------------------------------------

TEST_CASE("rng: dropout p=0 is the identity and draws nothing") {
  Generator gen = seeded(3);
  const std::vector<float> in = {1.5f, -2.0f, -0.0f, std::numeric_limits<float>::quiet_NaN()};
  std::vector<float> mask = {9.0f};
  const std::vector<float> out = dropout_values(gen, in, 0.0, BernoulliPath::Default, &mask);
  REQUIRE(out.size() == in.size());
  for (size_t i = 0; i < in.size(); ++i) CHECK(bits(out[i]) == bits(in[i]));
  CHECK(mask.empty());
  CHECK(gen.draws() == 0);
}

TEST_CASE("rng: dropout p=1 gives input times zero and draws nothing") {
  Generator gen = seeded(3);
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> in = {1.5f, -2.0f, 0.0f, -0.0f, std::numeric_limits<float>::quiet_NaN(), inf};
  const std::vector<float> out = dropout_values(gen, in, 1.0, BernoulliPath::Default);
  REQUIRE(out.size() == in.size());
  CHECK(bits(out[0]) == bits(0.0f));
  CHECK(bits(out[1]) == bits(-0.0f));
  CHECK(bits(out[2]) == bits(0.0f));
  CHECK(bits(out[3]) == bits(-0.0f));
  CHECK(std::isnan(out[4]));
  CHECK(std::isnan(out[5]));
  CHECK(gen.draws() == 0);
}

TEST_CASE("rng: dropped negative inputs become -0.0 and kept ones are scaled by f32(1/f32(q))") {
  Generator gen = seeded(123);
  std::vector<float> mask;
  const std::vector<float> out = dropout_values(gen, std::vector<float>(36, -3.0f), 0.5, BernoulliPath::Default, &mask);
  for (size_t i = 0; i < out.size(); ++i) {
    CHECK(bits(out[i]) == bits(mask[i] == 1.0f ? -6.0f : -0.0f));
  }

  // p = 0.15: the scale is f32(1 / f32(0.85)), which differs from f32(1 / 0.85) in double.
  gen.manual_seed(4);
  const std::vector<float> scaled =
      dropout_values(gen, std::vector<float>(50, 1.0f), 0.15, BernoulliPath::Default, &mask);
  const float s = 1.0f / static_cast<float>(0.85);
  CHECK(s != static_cast<float>(1.0 / 0.85));
  for (size_t i = 0; i < scaled.size(); ++i) CHECK(bits(scaled[i]) == bits(mask[i] * s));
}

TEST_CASE("rng: MKL dropout advances the mt19937 stream by exactly one draw") {
  Generator gen = seeded(123);
  dropout_values(gen, std::vector<float>(1000, 1.0f), 0.5, BernoulliPath::Mkl);
  CHECK(gen.draws() == 1);
  CHECK(gen.random() == 3062119789u);  // the second seed-123 output
}
