// The shortest digits written without <charconv> (core/shortest_decimal) against std::to_chars, where
// the C++ library has it: the WebAssembly build prints these digits, so they must be to_chars's own.
#include "core/float_bits.h"
#include "core/py_repr.h"
#include "core/shortest_decimal.h"

#include <doctest/doctest.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

float float_from(uint32_t bits) { return attn::float_from_bits(bits); }
double double_from(uint64_t bits) { return attn::bit_cast<double>(bits); }

// "1.5e+07" -> digits 15, exponent 6: the to_chars digits in ShortestDecimal's terms.
attn::ShortestDecimal from_scientific(const std::string& s) {
  attn::ShortestDecimal d;
  int count = 0;
  size_t i = 0;
  for (; i < s.size() && s[i] != 'e'; ++i)
    if (s[i] >= '0' && s[i] <= '9') d.digits = d.digits * 10 + static_cast<uint64_t>(s[i] - '0'), ++count;
  d.exponent = std::stoi(s.substr(i + 1)) - (count - 1);
  while (d.digits % 10 == 0) d.digits /= 10, ++d.exponent;
  return d;
}

bool same(const attn::ShortestDecimal& a, const attn::ShortestDecimal& b) {
  return a.digits == b.digits && a.exponent == b.exponent;
}

// Every float exponent's power of two (the lopsided intervals) and its neighbours, the smallest and
// largest subnormals and normals, then random bit patterns over the whole range.
std::vector<uint32_t> float_cases() {
  std::vector<uint32_t> bits;
  for (uint32_t e = 0; e < 255; ++e)
    for (uint32_t m : {0u, 1u, 2u, 0x7FFFFEu, 0x7FFFFFu, 0x400000u}) bits.push_back(e << 23 | m);
  std::mt19937 rng(20261126);
  for (int i = 0; i < 300000; ++i) {
    const uint32_t b = rng() & 0x7FFFFFFFu;
    if ((b >> 23) != 0xFF) bits.push_back(b);
  }
  return bits;
}

}  // namespace

#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
TEST_CASE("shortest decimal: float32_text and the float digits are std::to_chars's") {
  int wrong = 0;
  for (uint32_t b : float_cases()) {
    const float v = float_from(b);
    if (v == 0) continue;
    char buf[64];
    const std::string general(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
    const std::string sci(buf, std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific).ptr);
    const attn::ShortestDecimal want = from_scientific(sci);
    const bool ok = attn::float32_text(v) == general && attn::float32_text(-v) == "-" + general &&
                    same(attn::shortest_decimal(v), want) && same(attn::shortest_decimal_by_trial(v), want);
    if (!ok && ++wrong <= 5) {
      INFO("bits " << b << ": to_chars " << general << ", float32_text " << attn::float32_text(v));
      CHECK(ok);
    }
  }
  CHECK(wrong == 0);
}

TEST_CASE("shortest decimal: py_float's double digits are std::to_chars's") {
  std::vector<uint64_t> bits;
  for (uint64_t e = 1; e < 2047; ++e)
    for (uint64_t m : {0ull, 1ull, 0xFFFFFFFFFFFFFull}) bits.push_back(e << 52 | m);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 60000; ++i) {
    const uint64_t b = rng() & 0x7FFFFFFFFFFFFFFFull;
    if ((b >> 52) != 0x7FF && b != 0) bits.push_back(b);
  }
  int wrong = 0;
  for (uint64_t b : bits) {
    const double v = double_from(b);
    char buf[64];
    const std::string sci(buf, std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific).ptr);
    const bool ok = same(attn::shortest_decimal(v), from_scientific(sci));
    if (!ok && ++wrong <= 5) {
      INFO("bits " << b << ": to_chars " << sci);
      CHECK(ok);
    }
  }
  CHECK(wrong == 0);
}
#endif

TEST_CASE("shortest decimal: known values, with or without to_chars") {
  CHECK(attn::float32_text(0.4419f) == "0.4419");
  CHECK(attn::float32_text(1.0f) == "1");
  CHECK(attn::float32_text(-0.0f) == "-0");
  CHECK(attn::float32_text(1e-7f) == "1e-07");
  CHECK(attn::float32_text(67108872.0f) == "67108872");
  CHECK(attn::float32_text(1e10f) == "1e+10");
  CHECK(attn::float32_text(float_from(1)) == "1e-45");
  CHECK(attn::float32_text(float_from(0x7F7FFFFFu)) == "3.4028235e+38");
  CHECK(attn::float32_text(std::nextafter(1.0f, 0.0f)) == "0.99999994");
  CHECK(attn::float32_text(std::nextafter(1.0f, 2.0f)) == "1.0000001");
  CHECK(attn::py_float(5e-324) == "5e-324");
  CHECK(attn::py_float(1.7976931348623157e308) == "1.7976931348623157e+308");
  CHECK(attn::py_float(0.1 + 0.2) == "0.30000000000000004");
}
