#pragma once
// §3.3.1's attention scores of the query inputs[1], shared by naive-scores and softmax: the book's loop of
// torch.dot over the inputs.
#include <string>
#include <vector>

#include "core/tensor.h"

namespace attn {

// The loop's code: `attn_scores_2 = torch.empty(inputs.shape[0])`, the for loop, then print(attn_scores_2).
std::vector<std::string> query_scores_code();
// attn_scores_2: (n,), element i torch.dot(inputs[i], query) as torch computes it.
Tensor query_scores(const Tensor& inputs, const Tensor& query);

}  // namespace attn
