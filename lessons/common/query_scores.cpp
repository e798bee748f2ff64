#include "lessons/common/query_scores.h"

#include "core/ops_math.h"
#include "core/ops_shape.h"

namespace attn {

std::vector<std::string> query_scores_code() {
  return {"attn_scores_2 = torch.empty(inputs.shape[0])",
          "for i, x_i in enumerate(inputs):", "    attn_scores_2[i] = torch.dot(x_i, query)", "print(attn_scores_2)"};
}

Tensor query_scores(const Tensor& inputs, const Tensor& query) {
  const int64_t n = inputs.size(0);
  std::vector<float> scores(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) scores[static_cast<size_t>(i)] = dot(select(inputs, 0, i), query).item();
  return Tensor({n}, scores);
}

}  // namespace attn
