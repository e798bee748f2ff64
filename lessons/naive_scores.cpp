// §3.3.1-3.3.2: attention scores as plain dot products, first for the query "journey", then for
// every pair of tokens.
#include "lessons/lesson.h"
#include "lessons/lesson_text.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"

namespace attn {

Notebook naive_scores_lesson(const LessonOptions& opt) {
  Notebook nb = lesson_notebook("naive-scores", {"3.3.1", "3.3.2"}, opt);
  const Tensor& inputs = opt.inputs.embeddings;
  const int64_t n = inputs.size(0);
  const std::string journey = quoted_token(opt, 1);
  const std::string first = quoted_token(opt, 0);
  const std::string N = std::to_string(n), D = std::to_string(inputs.size(1));

  nb.heading("3.3.1", "A simple self-attention mechanism without trainable weights",
             "无可训练权重的简单自注意力机制");
  nb.cell(inputs_code(opt));
  nb.show("inputs", inputs);
  nb.note("Each row is one token's embedding: " + N + " tokens, each a " + D +
              "-d vector. Attention will mix these rows.",
          "每一行是一个词元的嵌入向量：共 " + N + " 个词元，每个都是 " + D + " 维向量。注意力机制将把这些行加权混合。");
  nb.explain("Row 1 is " + first + ", row 2 is " + journey + ", and so on: from here on the embedding stands for its "
                 "token in every computation. Real models learn embeddings with hundreds or thousands of dimensions; " +
                 D + " are enough to follow every number by hand. The goal of §3.3 is one context vector per token: a "
                 "new vector that mixes in information from every token of the sentence, each weighted by how relevant "
                 "it is.",
             "第 1 行是 " + first + "，第 2 行是 " + journey + "，依此类推：此后的每一步计算都用嵌入向量代表对应的词元。"
                 "真实的大语言模型学到的嵌入有成百上千维，这里的 " + D + " 维已足以让我们手算每一个数字。"
                 "3.3 节的目标是为每个词元计算一个上下文向量：它融合了句子中所有词元的信息，每个词元按其相关程度加权。");

  nb.cell({"query = inputs[1]  # the 2nd input token is the query", "print(query)"});
  Tensor query = select(inputs, 0, 1);
  nb.show("query", query);
  nb.note("We pick " + journey + " (x^2) as the query: the token whose context vector we compute first.",
          "我们选 " + journey + "（x^2）作为查询：先为这个词元计算上下文向量。");
  nb.explain("In self-attention every token takes a turn as the query; the book starts with one, " + journey +
                 ", so that every step stays small enough to print. inputs[1] is the second row because Python counts "
                 "from 0, while the book's x^2 counts from 1. In this simplified mechanism the query is the embedding "
                 "itself; from §3.4 (trainable) on, it is a trainable projection of it.",
             "在自注意力中，每个词元都会轮流充当查询；书中先只看一个词元 " + journey +
                 "，让每一步都小到可以完整打印。inputs[1] 是第二行，因为 Python 从 0 开始计数，而书中的记号 x^2 从 1 开始。"
                 "在这个简化的注意力机制中，查询就是嵌入向量本身；从 3.4 节（trainable）开始，查询向量由嵌入向量经可训练的投影得到。");

  nb.cell({"attn_scores_2 = torch.empty(inputs.shape[0])", "for i, x_i in enumerate(inputs):",
           "    attn_scores_2[i] = torch.dot(x_i, query)", "print(attn_scores_2)"});
  std::vector<float> scores(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) scores[static_cast<size_t>(i)] = dot(select(inputs, 0, i), query).item();
  Tensor attn_scores_2({n}, scores);
  nb.show("attn_scores_2", attn_scores_2);
  int64_t best = 0;
  for (int64_t i = 1; i < n; ++i)
    if (scores[static_cast<size_t>(i)] > scores[static_cast<size_t>(best)]) best = i;
  int64_t runner_up = best == 0 ? 1 : 0;
  for (int64_t i = 0; i < n; ++i)
    if (i != best && scores[static_cast<size_t>(i)] > scores[static_cast<size_t>(runner_up)]) runner_up = i;
  const std::string best_tok = quoted_token(opt, best), runner_tok = quoted_token(opt, runner_up);
  if (best == 1)
    nb.note("omega_2i = x_i . query: how similar each token is to " + journey + ". The largest is " + journey +
                " with itself, so it will attend most to itself, then to " + runner_tok + ".",
            "注意力分数 ω_2i = x_i · query：衡量每个词元与 " + journey + " 的相似程度。最大的是 " + journey +
                " 与它自身的分数，所以它最关注自己，其次是 " + runner_tok + "。");
  else
    nb.note("omega_2i = x_i . query: how similar each token is to " + journey + ". The largest, " + best_tok +
                ", is the one " + journey + " will attend to most.",
            "注意力分数 ω_2i = x_i · query：衡量每个词元与 " + journey + " 的相似程度。分数最大的 " + best_tok + " 就是 " +
                journey + " 最关注的词元。");
  nb.explain("The loop takes each row x_i in turn and computes its dot product with the query: one unnormalised "
             "attention score per token. A dot product is large when two vectors point in similar directions and are "
             "long, which makes it a simple similarity measure. These scores are not weights yet: they do not sum to "
             "1, and other embeddings could make some of them negative. torch.empty only allocates the tensor; the "
             "loop overwrites every entry.",
             "循环依次取出每一行 x_i，计算它与查询的点积，为每个词元得到一个未归一化的注意力分数。"
             "两个向量方向越接近、长度越大，点积就越大，因此点积可以作为一种简单的相似度度量。"
             "这些分数还不是注意力权重：它们的和不为 1，换一组嵌入还可能出现负数。"
             "torch.empty 只分配内存而不初始化，其中每个元素都会被循环覆盖。");

  nb.cell({"res = 0.", "for idx, element in enumerate(inputs[0]):", "    res += inputs[0][idx] * query[idx]",
           "print(res)", "print(torch.dot(inputs[0], query))"});
  Tensor x_1 = select(inputs, 0, 0);
  float acc = 0.0f;
  const std::vector<float> xv = x_1.values(), qv = query.values();
  for (size_t k = 0; k < xv.size(); ++k) acc = acc + xv[k] * qv[k];
  Tensor res({}, {acc});
  nb.show("res", res);
  nb.show("torch.dot(inputs[0], query)", dot(x_1, query));
  nb.note("A dot product is just multiply element-wise and add up. Written out for " + first +
              " it gives the first score above.",
          "点积就是逐元素相乘再求和。对 " + first + " 手写展开，得到的正是上面的第一个注意力分数。");
  nb.explain("The loop multiplies the " + D + " coordinates of " + first + " with those of the query " + journey +
                 " pair by pair and adds up the products, so res equals attn_scores_2[0]. torch.dot does the same in "
                 "one call, and so does @ between two 1-d tensors. That is all a dot product is: nothing in it is "
                 "trained yet.",
             "循环把 " + first + " 的 " + D + " 个坐标与查询 " + journey +
                 " 的对应坐标两两相乘，再把乘积相加，所以 res 等于 attn_scores_2[0]。torch.dot 用一次调用完成同样的计算，"
                 "两个一维张量之间的 @ 运算也是如此。点积就是这么简单：其中还没有任何需要训练的参数。");

  nb.heading("3.3.2", "Computing attention weights for all input tokens", "计算所有输入词元的注意力权重");
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
          "symmetric because x_i . x_j = x_j . x_i.",
          "第 i 行是词元 i 与每个词元的注意力分数；第 2 行又是 attn_scores_2。由于 x_i · x_j = x_j · x_i，这个矩阵是对称的。");
  nb.explain("Now every token takes its turn as the query, not only " + journey + ": the outer loop picks the query "
                 "x_i, the inner loop the token x_j it is compared with. " + N + " tokens give " + N + " x " + N +
                 " scores, so the cost of attention grows with the square of the sentence length. The matrix is "
                 "symmetric only because a token's query and key are the same vector here; once §3.4 projects them "
                 "with different matrices, the score of " + journey + " against " + first + " no longer equals that of " +
                 first + " against " + journey + ".",
             "现在每个词元都轮流充当查询，而不只是 " + journey + "：外层循环选出查询 x_i，内层循环选出与之比较的词元 x_j。" +
                 N + " 个词元得到 " + N + " × " + N + " 个注意力分数，所以注意力的计算量随句子长度的平方增长。"
                 "矩阵之所以对称，只是因为这里一个词元的查询和键是同一个向量；到 3.4 节用不同的权重矩阵分别投影后，" +
                 journey + " 对 " + first + " 的分数就不再等于 " + first + " 对 " + journey + " 的分数。");

  nb.cell({"attn_scores = inputs @ inputs.T", "print(attn_scores)"});
  Tensor attn_scores = matmul(inputs, T(inputs));
  nb.show("attn_scores", attn_scores);
  nb.note("One matrix product computes every dot product at once: the same numbers as the two loops, and "
          "this is how attention is written in practice.",
          "一次矩阵乘法就算出了所有点积：数值与两层循环相同，实践中注意力正是这样写的。");
  nb.explain("inputs has shape (" + N + ", " + D + ") and inputs.T has shape (" + D + ", " + N +
                 "), so the product is (" + N + ", " + N + "): entry (i, j) is row i of inputs dotted with column j of "
                 "inputs.T, which is row j of inputs. The loops ran " + std::to_string(n * n) +
                 " separate dot products in Python; the matrix product hands all of them to one optimised kernel. "
                 "Every later version of attention in this chapter computes its scores as such a product: "
                 "queries @ keys.T.",
             "inputs 的形状是 (" + N + ", " + D + ")，inputs.T 的形状是 (" + D + ", " + N + ")，所以乘积是 (" + N + ", " + N +
                 ")：第 (i, j) 个元素是 inputs 的第 i 行与 inputs.T 的第 j 列（即 inputs 的第 j 行）的点积。"
                 "两层循环在 Python 中逐个计算了 " + std::to_string(n * n) +
                 " 个点积；矩阵乘法则把它们一次交给优化过的底层实现。本章后面所有版本的注意力都用这样的乘积计算注意力分数："
                 "queries @ keys.T。");
  return nb;
}

}  // namespace attn
