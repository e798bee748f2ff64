#pragma once
// A float's bits and back, as memcpy copies them (std::bit_cast before C++20).
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace attn {

template <class To, class From>
To bit_cast(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "bit_cast: the two types have different sizes");
  static_assert(std::is_trivially_copyable<To>::value && std::is_trivially_copyable<From>::value,
                "bit_cast: both types must be trivially copyable");
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

inline uint32_t float_bits(float f) { return bit_cast<uint32_t>(f); }
inline float float_from_bits(uint32_t bits) { return bit_cast<float>(bits); }

}  // namespace attn
