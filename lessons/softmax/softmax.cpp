// §3.3.1-3.3.2: from scores to attention weights (normalise, softmax) to context vectors.
#include <cmath>
#include <cstdio>

#include "lessons/common/query_scores.h"
#include "lessons/lesson.h"
#include "lessons/lesson_text.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "core/tensor_print.h"
#include "nn/attention_steps.h"

namespace attn {

Notebook softmax_lesson(const LessonOptions& opt) {
  Notebook nb = lesson_notebook("softmax", opt);
  const Tensor& inputs = opt.inputs.embeddings;
  const int64_t n = inputs.size(0);
  const std::string journey = quoted_token(opt, 1);
  const std::string N = std::to_string(n), D = std::to_string(inputs.size(1));

  section_heading(nb, "3.3.1");
  std::vector<std::string> setup = inputs_code(opt);
  setup.push_back("query = inputs[1]");
  for (const std::string& line : query_scores_code()) setup.push_back(line);
  nb.cell(setup);
  Tensor query = select(inputs, 0, 1);
  Tensor attn_scores_2 = query_scores(inputs, query);
  nb.show("attn_scores_2", attn_scores_2);
  nb.note("intro.note", {journey});
  nb.explain("intro.explain", {journey});

  nb.cell({"attn_weights_2_tmp = attn_scores_2 / attn_scores_2.sum()",
           "print(\"Attention weights:\", attn_weights_2_tmp)", "print(\"Sum:\", attn_weights_2_tmp.sum())"});
  Tensor attn_weights_2_tmp = div(attn_scores_2, sum(attn_scores_2));
  nb.show("Attention weights:", "attn_weights_2_tmp", attn_weights_2_tmp);
  nb.show("Sum:", "attn_weights_2_tmp.sum()", sum(attn_weights_2_tmp));
  bool all_positive = true;
  for (float v : attn_scores_2.values()) all_positive = all_positive && v > 0.0f;
  nb.note_case("sum_attn_weights_2_tmp_sum.note", all_positive ? "all_positive" : "some_negative");
  nb.explain("sum_attn_weights_2_tmp_sum.explain", {N});

  nb.cell({"def softmax_naive(x):", "    return torch.exp(x) / torch.exp(x).sum(dim=0)", "",
           "attn_weights_2_naive = softmax_naive(attn_scores_2)", "print(\"Attention weights:\", attn_weights_2_naive)",
           "print(\"Sum:\", attn_weights_2_naive.sum())"});
  Tensor attn_weights_2_naive = div(exp(attn_scores_2), sum(exp(attn_scores_2), 0, false));
  nb.show("Attention weights:", "attn_weights_2_naive", attn_weights_2_naive);
  nb.show("Sum:", "attn_weights_2_naive.sum()", sum(attn_weights_2_naive));
  nb.note("sum_attn_weights_2_naive_sum.note");
  const std::string w_tmp = element_text(attn_weights_2_tmp, 1);
  const std::string w_soft = element_text(attn_weights_2_naive, 1);
  nb.explain("sum_attn_weights_2_naive_sum.explain", {journey, w_tmp, w_soft});

  nb.cell({"attn_weights_2 = torch.softmax(attn_scores_2, dim=0)", "print(\"Attention weights:\", attn_weights_2)",
           "print(\"Sum:\", attn_weights_2.sum())"});
  Tensor attn_weights_2 = softmax(attn_scores_2, 0);
  nb.show("Attention weights:", "attn_weights_2", attn_weights_2);
  nb.show("Sum:", "attn_weights_2.sum()", sum(attn_weights_2));
  nb.note("sum_attn_weights_2_sum.note");
  nb.explain("sum_attn_weights_2_sum.explain");

  nb.cell({"query = inputs[1]  # 2nd input token is the query", "context_vec_2 = torch.zeros(query.shape)",
           "for i, x_i in enumerate(inputs):", "    context_vec_2 += attn_weights_2[i]*x_i", "print(context_vec_2)"});
  Tensor context_vec_2 = zeros(query.shape());
  for (int64_t i = 0; i < n; ++i)
    context_vec_2 = add(context_vec_2, mul(select(attn_weights_2, 0, i), select(inputs, 0, i)));
  nb.show("context_vec_2", context_vec_2);
  nb.note("context_vec_2.note", {journey});
  const std::vector<float> w2 = attn_weights_2.values();
  const int64_t most = argmax(w2), least = argmin(w2);
  nb.explain("context_vec_2.explain", {D, quoted_token(opt, most), element_text(attn_weights_2, most),
                                       quoted_token(opt, least), element_text(attn_weights_2, least), journey});

  section_heading(nb, "3.3.2");
  nb.cell(
      {"attn_scores = inputs @ inputs.T", "attn_weights = torch.softmax(attn_scores, dim=-1)", "print(attn_weights)"});
  Tensor attn_scores = matmul(inputs, T(inputs));
  nb.record("attn_scores", attn_scores);
  Tensor attn_weights = variant_softmax(attn_scores, -1, opt.variant);
  nb.show("attn_weights", attn_weights);
  nb.note("attn_weights.note");
  nb.confusion("attn_weights.confusion");
  nb.explain("attn_weights.explain", {N, journey});

  // The book types row 2's printed digits back in; we do the same with the digits printed above.
  std::vector<double> row2;
  std::string literal;
  for (int64_t j = 0; j < n; ++j) {
    const std::string digits = element_text(attn_weights, n + j);  // row 2 as printed above
    literal += (literal.empty() ? "" : ", ") + digits;
    row2.push_back(std::strtod(digits.c_str(), nullptr));
  }
  double row_2_sum = 0.0;
  for (double w : row2) row_2_sum += w;
  nb.cell({"row_2_sum = sum([" + literal + "])", "print(\"Row 2 sum:\", row_2_sum)",
           "print(\"All row sums:\", attn_weights.sum(dim=-1))"});
  nb.print("Row 2 sum: " + py_float(row_2_sum));
  nb.show("All row sums:", "attn_weights.sum(dim=-1)", sum(attn_weights, -1, false));
  nb.note("row_sums.note");
  nb.explain("row_sums.explain");

  nb.cell({"all_context_vecs = attn_weights @ inputs", "print(all_context_vecs)",
           "print(\"Previous 2nd context vector:\", context_vec_2)"});
  Tensor all_context_vecs = matmul(attn_weights, inputs);
  nb.show("all_context_vecs", all_context_vecs);
  nb.show("Previous 2nd context vector:", "context_vec_2", context_vec_2);
  nb.note("all_context_vecs.note");
  nb.explain("all_context_vecs.explain", {N, D, journey});

  nb.heading("3.3.1+", "heading.why_subtract_max");
  nb.cell({"big_scores = attn_scores_2 * 100", "print(softmax_naive(big_scores))"});
  Tensor big_scores = mul(attn_scores_2, 100.0);
  nb.record("big_scores", big_scores);
  Tensor naive_big = div(exp(big_scores), sum(exp(big_scores), 0, false));
  nb.show("softmax_naive(big_scores)", naive_big);
  bool overflow = false;
  for (float v : naive_big.values()) overflow = overflow || !std::isfinite(v);
  nb.note_case("softmax_naive_big_scores.note", overflow ? "overflows" : "no_overflow_yet");
  nb.explain("softmax_naive_big_scores.explain", {journey});

  nb.cell({"shifted = big_scores - big_scores.max()", "print(shifted)", "print(torch.exp(shifted))",
           "print(torch.softmax(big_scores, dim=0))"});
  Tensor shifted = add(big_scores, mul(max_along(big_scores, 0, false), -1.0));
  nb.show("shifted", shifted);
  nb.show("torch.exp(shifted)", exp(shifted));
  Tensor big_weights = softmax(big_scores, 0);
  nb.show("torch.softmax(big_scores, dim=0)", big_weights);
  nb.note("torch_softmax_big_scores_dim_0.note");
  const std::vector<float> bw = big_weights.values();
  const int64_t top = argmax(bw);
  nb.explain("torch_softmax_big_scores_dim_0.explain", {quoted_token(opt, top), element_text(big_weights, top)});
  return nb;
}

}  // namespace attn
