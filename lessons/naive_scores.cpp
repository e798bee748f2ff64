// §3.3.1-3.3.2: attention scores as plain dot products, first for the query "journey", then for
// every pair of tokens.
#include "lesson.h"
#include "lesson_text.h"
#include "ops_math.h"
#include "ops_shape.h"

namespace attn {

Notebook naive_scores_lesson(const LessonOptions& opt) {
  Notebook nb("naive-scores", {"3.3.1", "3.3.2"}, opt.config_json(), opt.inputs.tokens);
  const Tensor& inputs = opt.inputs.embeddings;
  const int64_t n = inputs.size(0);
  const std::string journey = quoted_token(opt, 1);

  nb.heading("3.3.1", "A simple self-attention mechanism without trainable weights");
  nb.cell(inputs_code(opt));
  nb.show("inputs", inputs);
  nb.note("Each row is one token's embedding: " + std::to_string(n) + " tokens, each a " +
          std::to_string(inputs.size(1)) + "-d vector. Attention will mix these rows.");

  nb.cell({"query = inputs[1]  # the 2nd input token is the query", "print(query)"});
  Tensor query = select(inputs, 0, 1);
  nb.show("query", query);
  nb.note("We pick " + journey + " (x^2) as the query: the token whose context vector we compute first.");

  nb.cell({"attn_scores_2 = torch.empty(inputs.shape[0])", "for i, x_i in enumerate(inputs):",
           "    attn_scores_2[i] = torch.dot(x_i, query)", "print(attn_scores_2)"});
  std::vector<float> scores(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) scores[static_cast<size_t>(i)] = dot(select(inputs, 0, i), query).item();
  Tensor attn_scores_2({n}, scores);
  nb.show("attn_scores_2", attn_scores_2);
  int64_t best = 0;
  for (int64_t i = 1; i < n; ++i)
    if (scores[static_cast<size_t>(i)] > scores[static_cast<size_t>(best)]) best = i;
  nb.note("omega_2i = x_i . query: how strongly each token points the same way as " + journey + ". The largest, " +
          quoted_token(opt, best) + ", is the one " + journey + " will attend to most.");

  nb.cell({"res = 0.", "for idx, element in enumerate(inputs[0]):", "    res += inputs[0][idx] * query[idx]",
           "print(res)", "print(torch.dot(inputs[0], query))"});
  Tensor x_1 = select(inputs, 0, 0);
  float acc = 0.0f;
  const std::vector<float> xv = x_1.values(), qv = query.values();
  for (size_t k = 0; k < xv.size(); ++k) acc = acc + xv[k] * qv[k];
  Tensor res({}, {acc});
  nb.show("res", res);
  nb.show("torch.dot(inputs[0], query)", dot(x_1, query));
  nb.note("A dot product is just multiply element-wise and add up. Written out for " + quoted_token(opt, 0) +
          " it gives the first score above.");

  nb.heading("3.3.2", "Computing attention weights for all input tokens");
  nb.cell({"attn_scores = torch.empty(" + std::to_string(n) + ", " + std::to_string(n) + ")",
           "for i, x_i in enumerate(inputs):", "    for j, x_j in enumerate(inputs):",
           "        attn_scores[i, j] = torch.dot(x_i, x_j)", "print(attn_scores)"});
  std::vector<float> all(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      all[static_cast<size_t>(i * n + j)] = dot(select(inputs, 0, i), select(inputs, 0, j)).item();
  Tensor attn_scores_loops({n, n}, all);
  nb.show("attn_scores", attn_scores_loops);
  nb.note("Row i holds token i's scores against every token; row 2 is attn_scores_2 again. The matrix is "
          "symmetric because x_i . x_j = x_j . x_i.");

  nb.cell({"attn_scores = inputs @ inputs.T", "print(attn_scores)"});
  Tensor attn_scores = matmul(inputs, T(inputs));
  nb.show("attn_scores", attn_scores);
  nb.note("One matrix product computes every dot product at once: the same numbers as the two loops, and "
          "this is how attention is written in practice.");
  return nb;
}

}  // namespace attn
