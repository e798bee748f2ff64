#include "core/shortest_decimal.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/float_bits.h"

namespace attn {
namespace {

// The digits and exponent of printf's "%.*e" text, read without its decimal point (any locale).
ShortestDecimal parse_scientific(const char* s) {
  ShortestDecimal d;
  int count = 0;
  const char* c = s;
  for (; *c && *c != 'e' && *c != 'E'; ++c)
    if (*c >= '0' && *c <= '9') d.digits = d.digits * 10 + static_cast<uint64_t>(*c - '0'), ++count;
  d.exponent = (*c ? std::atoi(c + 1) : 0) - (count - 1);
  return d;
}

template <class T>
T read_back(const ShortestDecimal& d) {
  char text[48];
  std::snprintf(text, sizeof text, "%llue%d", static_cast<unsigned long long>(d.digits), d.exponent);
  if constexpr (sizeof(T) == sizeof(float))
    return std::strtof(text, nullptr);
  else
    return std::strtod(text, nullptr);
}

ShortestDecimal without_trailing_zeros(ShortestDecimal d) {
  while (d.digits != 0 && d.digits % 10 == 0) d.digits /= 10, ++d.exponent;
  return d;
}

// Mantissa bits zero above the smallest normal exponent: the gap below v is half the gap above.
bool lopsided(float v) {
  const uint32_t bits = float_bits(v);
  return (bits & 0x7FFFFFu) == 0 && ((bits >> 23) & 0xFFu) > 1;
}
bool lopsided(double v) {
  const uint64_t bits = bit_cast<uint64_t>(v);
  return (bits & 0xFFFFFFFFFFFFFull) == 0 && ((bits >> 52) & 0x7FFull) > 1;
}

template <class T>
ShortestDecimal by_trial(T v) {
  constexpr int kMaxDigits = sizeof(T) == sizeof(float) ? 9 : 17;
  uint64_t unit = 1;  // 10^p
  for (int p = 1; p <= kMaxDigits; ++p) {
    unit *= 10;
    char text[64];
    std::snprintf(text, sizeof text, "%.*e", p - 1, static_cast<double>(v));
    ShortestDecimal d = parse_scientific(text);
    if (read_back<T>(d) == v) return without_trailing_zeros(d);
    if (lopsided(v) && read_back<T>(d) < v) {  // the p-digit neighbour above, in the wider half
      ShortestDecimal up{d.digits + 1, d.exponent};
      if (up.digits == unit) up = {unit / 10, d.exponent + 1};
      if (read_back<T>(up) == v) return without_trailing_zeros(up);
    }
  }
  char text[64];  // not reached: 9 (17) digits always read back
  std::snprintf(text, sizeof text, "%.*e", kMaxDigits - 1, static_cast<double>(v));
  return without_trailing_zeros(parse_scientific(text));
}

#if defined(__SIZEOF_INT128__)
using u128 = unsigned __int128;

struct Pow10Table {
  u128 p[39];  // 10^0 .. 10^38
  constexpr Pow10Table() : p() {
    p[0] = 1;
    for (int i = 1; i < 39; ++i) p[i] = p[i - 1] * 10;
  }
};
constexpr Pow10Table kPow10;

int bit_length(u128 x) {
  const uint64_t high = static_cast<uint64_t>(x >> 64), low = static_cast<uint64_t>(x);
  return high ? 128 - __builtin_clzll(high) : low ? 64 - __builtin_clzll(low) : 0;
}

// floor(log10(x)) for x >= 1: from the bit length (log10(2) < 1233 / 4096), then one comparison.
int decimal_exponent(u128 x) {
  int j = (bit_length(x) - 1) * 1233 >> 12;
  if (j + 1 < 39 && kPow10.p[j + 1] <= x) ++j;
  return j;
}

// Ryu's search (Adams 2018) on exact integers: the value and the two midpoints to its neighbours,
// all times 4, as whole numbers of 10^e10. Exact when they fit in 128 bits: v >= 2^-18 (about 3.8e-6,
// nearly every value a lesson prints); false for smaller ones, which take the trial path.
bool exact_shortest(float v, ShortestDecimal& out) {
  const uint32_t bits = float_bits(v);
  const uint32_t mantissa = bits & 0x7FFFFFu, biased = (bits >> 23) & 0xFFu;
  const uint32_t m2 = biased == 0 ? mantissa : mantissa | (1u << 23);
  const int e2 = (biased == 0 ? 1 : static_cast<int>(biased)) - 127 - 23 - 2;
  const bool even = (m2 & 1u) == 0;  // a tie at either midpoint reads back as v
  const uint32_t mv = 4 * m2, mp = 4 * m2 + 2, mm = 4 * m2 - 1 - (mantissa != 0 || biased <= 1 ? 1 : 0);
  // 1. value = vr × 10^e10 exactly; vp and vm are the midpoints.
  u128 vr, vp, vm;
  int e10 = 0;
  if (e2 >= 0) {
    vr = static_cast<u128>(mv) << e2, vp = static_cast<u128>(mp) << e2, vm = static_cast<u128>(mm) << e2;
  } else {
    if (-e2 > 43) return false;  // 5^44 × 2^26 would not fit
    u128 five = 1;
    for (int i = 0; i < -e2; ++i) five *= 5;
    vr = mv * five, vp = mp * five, vm = mm * five, e10 = e2;
  }
  bool vm_zeros = even, vr_zeros = true;  // the digits removed so far from vm (vr) were all 0
  if (!even) vp -= 1;                     // the upper midpoint itself does not read back
  // 2. Remove at once the j digits that leave a shorter candidate in (vm, vp] for sure: 10^j <= vp - vm.
  int removed = 0, last = 0;
  const int j = decimal_exponent(vp - vm);
  if (j > 0) {
    const u128 below = kPow10.p[j - 1], all = kPow10.p[j];
    const u128 r = vr / below, m = vm / all;
    vr_zeros = r * below == vr;  // the digits removed before the last one
    last = static_cast<int>(r % 10);
    vm_zeros = vm_zeros && m * all == vm;
    vr = r / 10, vp /= all, vm = m, removed = j;
  }
  // 3. Ryu's digit loop, now in 64 bits.
  uint64_t r = static_cast<uint64_t>(vr), p = static_cast<uint64_t>(vp), m = static_cast<uint64_t>(vm);
  while (p / 10 > m / 10) {
    vm_zeros = vm_zeros && m % 10 == 0;
    vr_zeros = vr_zeros && last == 0;
    last = static_cast<int>(r % 10);
    r /= 10, p /= 10, m /= 10, ++removed;
  }
  if (vm_zeros) {  // vm itself reads back and ends in zeros: shorter still
    while (m % 10 == 0) {
      vr_zeros = vr_zeros && last == 0;
      last = static_cast<int>(r % 10);
      r /= 10, p /= 10, m /= 10, ++removed;
    }
  }
  if (vr_zeros && last == 5 && r % 2 == 0) last = 4;  // exactly half way: to even
  const bool up = (r == m && (!even || !vm_zeros)) || last >= 5;
  out = without_trailing_zeros({r + (up ? 1 : 0), e10 + removed});
  return true;
}
#endif

}  // namespace

ShortestDecimal shortest_decimal_by_trial(float v) { return by_trial(v); }
ShortestDecimal shortest_decimal_by_trial(double v) { return by_trial(v); }

ShortestDecimal shortest_decimal(float v) {
#if defined(__SIZEOF_INT128__)
  ShortestDecimal d;
  if (exact_shortest(v, d)) return d;
#endif
  return by_trial(v);
}

ShortestDecimal shortest_decimal(double v) { return by_trial(v); }

}  // namespace attn
