// §3.3.1-3.3.2: from scores to attention weights (normalise, softmax) to context vectors.
#include <cstdio>

#include "lesson.h"
#include "lesson_text.h"
#include "ops_math.h"
#include "ops_shape.h"

namespace attn {

Notebook softmax_lesson(const LessonOptions& opt) {
  Notebook nb("softmax", {"3.3.1", "3.3.2"}, opt.config_json(), opt.inputs.tokens);
  const Tensor& inputs = opt.inputs.embeddings;
  const int64_t n = inputs.size(0);
  const std::string journey = quoted_token(opt, 1);

  nb.heading("3.3.1", "From attention scores to attention weights");
  std::vector<std::string> setup = inputs_code(opt);
  setup.insert(setup.end(), {"query = inputs[1]", "attn_scores_2 = torch.empty(inputs.shape[0])",
                             "for i, x_i in enumerate(inputs):", "    attn_scores_2[i] = torch.dot(x_i, query)",
                             "print(attn_scores_2)"});
  nb.cell(setup);
  Tensor query = select(inputs, 0, 1);
  std::vector<float> s(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) s[static_cast<size_t>(i)] = dot(select(inputs, 0, i), query).item();
  Tensor attn_scores_2({n}, s);
  nb.show("attn_scores_2", attn_scores_2);
  nb.note("The scores of the query " + journey + " from naive-scores. They are not yet comparable weights: "
          "they do not sum to 1.");

  nb.cell({"attn_weights_2_tmp = attn_scores_2 / attn_scores_2.sum()",
           "print(\"Attention weights:\", attn_weights_2_tmp)", "print(\"Sum:\", attn_weights_2_tmp.sum())"});
  Tensor attn_weights_2_tmp = div(attn_scores_2, sum(attn_scores_2));
  nb.show("Attention weights:", "attn_weights_2_tmp", attn_weights_2_tmp);
  nb.show("Sum:", "attn_weights_2_tmp.sum()", sum(attn_weights_2_tmp));
  nb.note("Dividing by the total makes the weights sum to 1 (up to float32 rounding, hence 1.0000 rather "
          "than 1.). It works here only because every score is positive.");

  nb.cell({"def softmax_naive(x):", "    return torch.exp(x) / torch.exp(x).sum(dim=0)", "",
           "attn_weights_2_naive = softmax_naive(attn_scores_2)",
           "print(\"Attention weights:\", attn_weights_2_naive)", "print(\"Sum:\", attn_weights_2_naive.sum())"});
  Tensor attn_weights_2_naive = div(exp(attn_scores_2), sum(exp(attn_scores_2), 0, false));
  nb.show("Attention weights:", "attn_weights_2_naive", attn_weights_2_naive);
  nb.show("Sum:", "attn_weights_2_naive.sum()", sum(attn_weights_2_naive));
  nb.note("softmax exponentiates first, so every weight is positive whatever the sign of the score, and "
          "larger scores get disproportionately more weight.");

  nb.cell({"attn_weights_2 = torch.softmax(attn_scores_2, dim=0)", "print(\"Attention weights:\", attn_weights_2)",
           "print(\"Sum:\", attn_weights_2.sum())"});
  Tensor attn_weights_2 = softmax(attn_scores_2, 0);
  nb.show("Attention weights:", "attn_weights_2", attn_weights_2);
  nb.show("Sum:", "attn_weights_2.sum()", sum(attn_weights_2));
  nb.note("PyTorch's softmax gives the same weights; it also subtracts the maximum first (see the last "
          "cells), which the naive version does not.");

  nb.cell({"query = inputs[1]  # 2nd input token is the query", "context_vec_2 = torch.zeros(query.shape)",
           "for i, x_i in enumerate(inputs):", "    context_vec_2 += attn_weights_2[i]*x_i", "print(context_vec_2)"});
  Tensor context_vec_2 = zeros(query.shape());
  for (int64_t i = 0; i < n; ++i)
    context_vec_2 = add(context_vec_2, mul(select(attn_weights_2, 0, i), select(inputs, 0, i)));
  nb.show("context_vec_2", context_vec_2);
  nb.note("The context vector z^2 is the weighted sum of all input rows: " + journey +
          " enriched with a bit of every token, most of the tokens it scored highest with.");

  nb.heading("3.3.2", "Computing attention weights for all input tokens");
  nb.cell({"attn_scores = inputs @ inputs.T", "attn_weights = torch.softmax(attn_scores, dim=-1)",
           "print(attn_weights)"});
  Tensor attn_scores = matmul(inputs, T(inputs));
  nb.record("attn_scores", attn_scores);
  Tensor attn_weights = softmax(attn_scores, -1);
  nb.show("attn_weights", attn_weights);
  nb.note("dim=-1 normalises each row: row i is how token i spreads its attention over all tokens.");

  // The book types row 2's printed digits back in; we do the same with the digits printed above.
  std::vector<double> row2;
  std::string literal;
  for (float w : select(attn_weights, 0, 1).values()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", static_cast<double>(w));
    literal += (literal.empty() ? "" : ", ") + std::string(buf);
    row2.push_back(std::strtod(buf, nullptr));
  }
  double row_2_sum = 0.0;
  for (double w : row2) row_2_sum += w;
  nb.cell({"row_2_sum = sum([" + literal + "])", "print(\"Row 2 sum:\", row_2_sum)",
           "print(\"All row sums:\", attn_weights.sum(dim=-1))"});
  nb.print("Row 2 sum: " + fmt_double(row_2_sum));
  nb.show("All row sums:", "attn_weights.sum(dim=-1)", sum(attn_weights, -1, false));
  nb.note("Every row sums to 1: each token's attention is a probability distribution over the tokens.");

  nb.cell({"all_context_vecs = attn_weights @ inputs", "print(all_context_vecs)",
           "print(\"Previous 2nd context vector:\", context_vec_2)"});
  Tensor all_context_vecs = matmul(attn_weights, inputs);
  nb.show("all_context_vecs", all_context_vecs);
  nb.show("Previous 2nd context vector:", "context_vec_2", context_vec_2);
  nb.note("One matrix product gives every context vector; row 2 is the context_vec_2 computed by the loop.");

  nb.heading("3.3.1+", "Why softmax subtracts the maximum (not in the book)");
  nb.cell({"big_scores = attn_scores_2 * 100", "print(softmax_naive(big_scores))"});
  Tensor big_scores = mul(attn_scores_2, 100.0);
  nb.record("big_scores", big_scores);
  Tensor naive_big = div(exp(big_scores), sum(exp(big_scores), 0, false));
  nb.show("softmax_naive(big_scores)", naive_big);
  nb.note("float32 overflows past exp(88.7) = 3.4e38: exp of a large score is inf, and inf / inf is nan. "
          "Large scores are common in real models, where embeddings have hundreds of dimensions.");

  nb.cell({"shifted = big_scores - big_scores.max()", "print(shifted)", "print(torch.exp(shifted))",
           "print(torch.softmax(big_scores, dim=0))"});
  Tensor shifted = add(big_scores, mul(max_along(big_scores, 0, false), -1.0));
  nb.show("shifted", shifted);
  nb.show("torch.exp(shifted)", exp(shifted));
  nb.show("torch.softmax(big_scores, dim=0)", softmax(big_scores, 0));
  nb.note("Subtracting the maximum changes nothing mathematically (it cancels in the ratio), but now the "
          "largest exponent is exp(0) = 1 and nothing overflows: that is what torch.softmax does.");
  return nb;
}

}  // namespace attn
