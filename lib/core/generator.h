#pragma once
// PyTorch's CPU generator (docs/spec/torch-rng.md): mt19937 plus one cached Box-Muller value.
#include <cstdint>
#include <optional>
#include <random>
#include <string_view>

namespace attn {

class Generator {
 public:
  Generator();                      // as after torch.manual_seed(67280421310721), torch's default
  void manual_seed(uint64_t seed);  // seed already as torch sees it: two's complement for negatives
  uint32_t random();                // one 32-bit draw
  uint64_t random64();              // two draws, the first is the high word
  std::optional<double>& normal_cache() { return normal_cache_; }
  uint64_t draws() const { return draws_; }  // 32-bit draws since the last manual_seed (for annotations)

 private:
  std::mt19937 engine_;
  std::optional<double> normal_cache_;
  uint64_t draws_ = 0;
};

// Parses any seed torch.manual_seed accepts: an integer in [-2^63, 2^64-1], decimal.
// Negative values become their two's complement. Returns nullopt for anything else.
std::optional<uint64_t> parse_torch_seed(std::string_view text);

}  // namespace attn
