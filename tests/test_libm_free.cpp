// The exact path computes no value with the C library's approximated functions where another C library
// (the WebAssembly build's musl) rounds differently: here, that the replacement gives glibc's bits.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

#include "nn/self_attention.h"

#if defined(__GLIBC__)
TEST_CASE("libm-free: sqrt_d_k is glibc's pow(n, 0.5), that is Python's n ** 0.5, for n up to 65536") {
  static volatile double half = 0.5;  // a visible 0.5 would let clang call sqrt instead
  int wrong = 0;
  for (int64_t n = 1; n <= 65536; ++n)
    if (attn::sqrt_d_k(n) != std::pow(static_cast<double>(n), half) && ++wrong <= 5) CHECK(n == 0);
  CHECK(wrong == 0);
  CHECK(attn::sqrt_d_k(2921) != std::sqrt(2921.0));  // one of the 58 where pow is sqrt's neighbour
}
#endif
