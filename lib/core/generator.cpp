// PyTorch's CPU generator, spec docs/spec/torch-rng.md §2.
#include "core/generator.h"

namespace attn {

namespace {
constexpr uint64_t kTorchDefaultSeed = 67280421310721ULL;  // torch's default_rng_seed_val
}

Generator::Generator() { manual_seed(kTorchDefaultSeed); }

// §2: only seed mod 2^32 reaches the engine (standard init_genrand, same as std::mt19937);
// the cached Box-Muller value is cleared.
void Generator::manual_seed(uint64_t seed) {
  engine_.seed(static_cast<uint32_t>(seed & 0xFFFFFFFFULL));
  normal_cache_.reset();
  draws_ = 0;
}

uint32_t Generator::random() {
  ++draws_;
  return static_cast<uint32_t>(engine_());
}

// §2: the first draw is the high word.
uint64_t Generator::random64() {
  const uint64_t hi = random();
  const uint64_t lo = random();
  return (hi << 32) | lo;
}

// §2 step 1: decimal integer in [-2^63, 2^64-1]; negatives become two's complement.
std::optional<uint64_t> parse_torch_seed(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) return std::nullopt;

  uint64_t magnitude = 0;
  for (char ch : text) {
    if (ch < '0' || ch > '9') return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(ch - '0');
    if (magnitude > (UINT64_MAX - digit) / 10) return std::nullopt;  // would exceed 2^64-1
    magnitude = magnitude * 10 + digit;
  }

  if (!negative) return magnitude;
  constexpr uint64_t kMinMagnitude = 1ULL << 63;  // |-2^63|
  if (magnitude > kMinMagnitude) return std::nullopt;
  return ~magnitude + 1;  // two's complement of -magnitude, i.e. 2^64 - magnitude (0 for -0)
}

}  // namespace attn
