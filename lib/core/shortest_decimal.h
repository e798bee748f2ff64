#pragma once
// The shortest decimal that reads back as the same binary float: the digits std::to_chars and
// Python's repr write (fewest significant digits; among those, the one nearest the value). Written
// here rather than taken from <charconv> because not every C++ library has floating-point to_chars
// (the WebAssembly build's libc++ has none), and the page must print the native bytes.
#include <cstdint>

namespace attn {

// value = digits × 10^exponent, digits without trailing zeros.
struct ShortestDecimal {
  uint64_t digits = 0;
  int exponent = 0;
};

// For finite v > 0.
ShortestDecimal shortest_decimal(float v);
ShortestDecimal shortest_decimal(double v);

// The general method behind both, exposed for the tests: for p = 1, 2, ... the correctly rounded
// p-digit decimal (printf's %.*e), kept when it reads back (strtof/strtod) as v; at a power of two,
// whose rounding interval is twice as wide above as below, also the p-digit decimal just above v.
ShortestDecimal shortest_decimal_by_trial(float v);
ShortestDecimal shortest_decimal_by_trial(double v);

}  // namespace attn
