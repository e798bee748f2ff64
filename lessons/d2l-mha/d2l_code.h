#pragma once
// d2l-mha's helpers: d2l.ai §11.5's settings, valid_lens parsing, Python texts and the code listings.
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace attn::d2l_lesson {

constexpr uint64_t kSeed = 123;  // d2l.ai §11.5 draws from an unseeded generator; --seed replaces it
constexpr int64_t kBatchSize = 2, kNumQueries = 4, kNumKvpairs = 6;  // d2l.ai §11.5's run

std::string bool_text(bool b);
// Python's list text of an int64 tensor: tensor.tolist().
std::string tolist_text(const Tensor& t);
bool equal(const Tensor& a, const Tensor& b);
// torch.tensor([...]) code text of int64 valid_lens.
std::string lens_code(const Tensor& lens);
// --valid-lens: "3,2" / "[3, 2]" (one per sequence) or "[[1,2,3,4],[1,2,2,2]]" (one per query).
Tensor parse_valid_lens(const std::string& text, int64_t num_queries, int64_t num_keys);
std::string divisors_text(int64_t n);
extern const std::vector<std::string> kMaskedSoftmaxCode;
extern const std::vector<std::string> kTransposeCode;
extern const std::vector<std::string> kClassCode;

}  // namespace attn::d2l_lesson
