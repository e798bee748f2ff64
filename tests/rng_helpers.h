#pragma once
// Helpers of the RNG tests: float bit patterns, bit-exact comparison, a seeded generator.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/float_bits.h"
#include "core/generator.h"

inline uint32_t bits(float f) { return attn::float_bits(f); }
inline float from_bits(uint32_t b) { return attn::float_from_bits(b); }

inline std::string hex(uint32_t b) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(b));
  return buf;
}

// Empty when got matches want bit for bit, else a description of the first difference.
inline std::string bit_mismatch(const std::vector<float>& got, const std::vector<uint32_t>& want) {
  if (got.size() != want.size()) {
    return "size " + std::to_string(got.size()) + " != " + std::to_string(want.size());
  }
  for (size_t i = 0; i < got.size(); ++i) {
    if (bits(got[i]) != want[i]) {
      return "element " + std::to_string(i) + ": got " + hex(bits(got[i])) + ", want " + hex(want[i]);
    }
  }
  return "";
}

#define CHECK_BITS(got, ...) CHECK(bit_mismatch((got), std::vector<uint32_t> __VA_ARGS__) == "")

inline attn::Generator seeded(uint64_t seed) {
  attn::Generator gen;
  gen.manual_seed(seed);
  return gen;
}

// The §6 kaiming bound, written out independently of the implementation.
inline double kaiming_bound(int fan_in) {
  const double a = std::sqrt(5.0);
  const double gain = std::sqrt(2.0 / (1 + a * a));
  const double std_ = gain / std::sqrt(static_cast<double>(fan_in));
  return std::sqrt(3.0) * std_;
}

// FNV-1a 64 over the little-endian bytes of the bit patterns (as tools/gen_rng_vectors.py).
inline uint64_t fnv1a64(const std::vector<float>& values) {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (float v : values) {
    const uint32_t b = bits(v);
    for (int shift = 0; shift < 32; shift += 8) {
      h = (h ^ ((b >> shift) & 0xFFu)) * 0x100000001B3ULL;
    }
  }
  return h;
}

constexpr uint32_t kTwo = 0x40000000;  // 2.0f, a kept element of Dropout(0.5)(ones)
