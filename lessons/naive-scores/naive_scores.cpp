// §3.3.1-3.3.2: attention scores as plain dot products, first for the query "journey", then for
// every pair of tokens.
#include "lessons/common/query_scores.h"
#include "lessons/lesson.h"
#include "lessons/lesson_text.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"

namespace attn {

Notebook naive_scores_lesson(const LessonOptions& opt) {
  Notebook nb = lesson_notebook("naive-scores", opt);
  const Tensor& inputs = opt.inputs.embeddings;
  const int64_t n = inputs.size(0);
  const std::string journey = quoted_token(opt, 1);
  const std::string first = quoted_token(opt, 0);
  const std::string N = std::to_string(n), D = std::to_string(inputs.size(1));

  section_heading(nb, "3.3.1");
  std::vector<std::string> first_cell = inputs_code(opt);
  first_cell.push_back("print(inputs)");
  nb.cell(first_cell);
  nb.show("inputs", inputs);
  nb.note("intro.note", {N, D});
  nb.explain("intro.explain", {first, journey, D});

  nb.cell({"query = inputs[1]  # the 2nd input token is the query", "print(query)"});
  Tensor query = select(inputs, 0, 1);
  nb.show("query", query);
  nb.note("query.note", {journey});
  nb.explain("query.explain", {journey});

  nb.cell(query_scores_code());
  Tensor attn_scores_2 = query_scores(inputs, query);
  const std::vector<float> scores = attn_scores_2.values();
  nb.show("attn_scores_2", attn_scores_2);
  int64_t best = 0;
  for (int64_t i = 1; i < n; ++i)
    if (scores[static_cast<size_t>(i)] > scores[static_cast<size_t>(best)]) best = i;
  int64_t runner_up = best == 0 ? 1 : 0;
  for (int64_t i = 0; i < n; ++i)
    if (i != best && scores[static_cast<size_t>(i)] > scores[static_cast<size_t>(runner_up)]) runner_up = i;
  const std::string best_tok = quoted_token(opt, best), runner_tok = quoted_token(opt, runner_up);
  // the query's own score is the largest (the book's case): the runner-up is named; else the largest
  if (best == 1)
    nb.note_case("attn_scores_2.note", "itself_first", {journey, runner_tok});
  else
    nb.note_case("attn_scores_2.note", "other_first", {journey, best_tok});
  nb.explain("attn_scores_2.explain");

  nb.cell({"res = 0.", "for idx, element in enumerate(inputs[0]):", "    res += inputs[0][idx] * query[idx]",
           "print(res)", "print(torch.dot(inputs[0], query))"});
  Tensor x_1 = select(inputs, 0, 0);
  float acc = 0.0f;
  const std::vector<float> xv = x_1.values(), qv = query.values();
  for (size_t k = 0; k < xv.size(); ++k) acc = acc + xv[k] * qv[k];
  Tensor res({}, {acc});
  nb.show("res", res);
  nb.show("torch.dot(inputs[0], query)", dot(x_1, query));
  nb.note("torch_dot_inputs_0_query.note", {first});
  nb.explain("torch_dot_inputs_0_query.explain", {D, first, journey});

  section_heading(nb, "3.3.2");
  nb.cell({"attn_scores = torch.empty(" + std::to_string(n) + ", " + std::to_string(n) + ")",
           "for i, x_i in enumerate(inputs):", "    for j, x_j in enumerate(inputs):",
           "        attn_scores[i, j] = torch.dot(x_i, x_j)", "print(attn_scores)"});
  std::vector<float> all(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      all[static_cast<size_t>(i * n + j)] = dot(select(inputs, 0, i), select(inputs, 0, j)).item();
  Tensor attn_scores_loops({n, n}, all);
  nb.show("attn_scores", attn_scores_loops);
  nb.note("attn_scores.note");
  nb.explain("attn_scores.explain", {journey, N, first});

  nb.cell({"attn_scores = inputs @ inputs.T", "print(attn_scores)"});
  Tensor attn_scores = matmul(inputs, T(inputs));
  nb.show("attn_scores", attn_scores);
  nb.note("attn_scores_matmul.note");
  nb.explain("attn_scores_matmul.explain", {N, D, std::to_string(n * n)});
  return nb;
}

}  // namespace attn
