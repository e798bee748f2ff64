// §3.3.1-3.3.2: from scores to attention weights (normalise, softmax) to context vectors.
#include <cmath>
#include <cstdio>

#include "lessons/lesson.h"
#include "lessons/lesson_text.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"

namespace attn {

namespace {

std::string f4(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

int64_t argmax(const std::vector<float>& v) {
  int64_t best = 0;
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i] > v[static_cast<size_t>(best)]) best = static_cast<int64_t>(i);
  return best;
}

int64_t argmin(const std::vector<float>& v) {
  int64_t worst = 0;
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i] < v[static_cast<size_t>(worst)]) worst = static_cast<int64_t>(i);
  return worst;
}

}  // namespace

Notebook softmax_lesson(const LessonOptions& opt) {
  Notebook nb = lesson_notebook("softmax", {"3.3.1", "3.3.2"}, opt);
  const Tensor& inputs = opt.inputs.embeddings;
  const int64_t n = inputs.size(0);
  const std::string journey = quoted_token(opt, 1);
  const std::string N = std::to_string(n), D = std::to_string(inputs.size(1));

  nb.heading("3.3.1", "From attention scores to attention weights", "从注意力分数到注意力权重");
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
          "they do not sum to 1.",
          "这是 naive-scores 中查询 " + journey + " 的注意力分数。它们还不是可以相互比较的权重：总和不为 1。");
  nb.explain("This cell recomputes where naive-scores ended, so that this lesson stands on its own: one dot product "
                 "of " + journey + " with each token. To turn scores into weights we normalise them so that they sum "
                 "to 1 and read as shares of attention. That makes them easy to interpret, and keeps the training of a "
                 "real model numerically stable.",
             "这个单元格重新算出 naive-scores 最后的结果，让本课可以独立运行：" + journey +
                 " 与每个词元各做一次点积。为了把注意力分数变成注意力权重，需要对它们进行归一化，使其总和为 1，"
                 "可以理解为注意力的分配比例。这样既便于解释结果，也有助于真实模型在训练时保持数值稳定。");

  nb.cell({"attn_weights_2_tmp = attn_scores_2 / attn_scores_2.sum()",
           "print(\"Attention weights:\", attn_weights_2_tmp)", "print(\"Sum:\", attn_weights_2_tmp.sum())"});
  Tensor attn_weights_2_tmp = div(attn_scores_2, sum(attn_scores_2));
  nb.show("Attention weights:", "attn_weights_2_tmp", attn_weights_2_tmp);
  nb.show("Sum:", "attn_weights_2_tmp.sum()", sum(attn_weights_2_tmp));
  bool all_positive = true;
  for (float v : s) all_positive = all_positive && v > 0.0f;
  if (all_positive)
    nb.note("Dividing by the total makes the weights sum to 1 (up to float32 rounding, hence 1.0000 rather "
            "than 1.). It works here only because every score is positive.",
            "除以总和后，权重之和为 1（受 float32 舍入影响，所以打印为 1.0000 而不是 1.）。"
            "这种做法在这里可行，只是因为每个分数都是正数。");
  else
    nb.note("Dividing by the total makes the weights sum to 1 (up to float32 rounding). But some scores here are "
            "negative, and so are their 'weights': this normalisation breaks down, which is why softmax is used.",
            "除以总和后，权重之和为 1（受 float32 舍入影响）。但这里有些分数是负数，它们的“权重”也成了负数："
            "这种归一化失效了，这正是要改用 softmax 的原因。");
  nb.explain("Each score is divided by the sum of all " + N + " scores, so the results are shares of the total. "
                 "That is fine for positive scores, but a negative score gives a negative 'weight', and a total near "
                 "0 blows the weights up. It also makes a score of 2 exactly twice as important as a score of 1, with "
                 "no way to sharpen the contrast. softmax, next, fixes all three.",
             "每个分数都除以全部 " + N + " 个分数之和，得到的是各自所占的份额。分数都为正时这没有问题；"
                 "但负的分数会得到负的“权重”，而总和接近 0 时权重会变得极大。它还让分数 2 恰好是分数 1 的两倍重要，"
                 "无法拉大差距。接下来的 softmax 同时解决了这三个问题。");

  nb.cell({"def softmax_naive(x):", "    return torch.exp(x) / torch.exp(x).sum(dim=0)", "",
           "attn_weights_2_naive = softmax_naive(attn_scores_2)",
           "print(\"Attention weights:\", attn_weights_2_naive)", "print(\"Sum:\", attn_weights_2_naive.sum())"});
  Tensor attn_weights_2_naive = div(exp(attn_scores_2), sum(exp(attn_scores_2), 0, false));
  nb.show("Attention weights:", "attn_weights_2_naive", attn_weights_2_naive);
  nb.show("Sum:", "attn_weights_2_naive.sum()", sum(attn_weights_2_naive));
  nb.note("softmax exponentiates first, so every weight is positive whatever the sign of the score, and "
          "larger scores get disproportionately more weight.",
          "softmax 先取指数，所以无论分数是正是负，每个权重都是正数；而且分数越大，所得权重越是不成比例地大。");
  const std::string w_tmp = f4(select(attn_weights_2_tmp, 0, 1).item());
  const std::string w_soft = f4(select(attn_weights_2_naive, 0, 1).item());
  nb.explain("softmax_naive computes exp(x_i) / sum_j exp(x_j): the exponential makes every entry positive, the "
                 "division makes them sum to 1. Compared with the previous cell, the weight of " + journey +
                 " went from " + w_tmp + " to " + w_soft + ". Because exp grows faster than any straight line, a "
                 "score higher by 1 earns e (about 2.718) times the weight. sum(dim=0) sums over the only dimension of "
                 "this 1-d tensor.",
             "softmax_naive 计算 exp(x_i) / Σ_j exp(x_j)：取指数使每个元素为正，除以总和使它们之和为 1。"
                 "与上一个单元格相比，" + journey + " 的权重从 " + w_tmp + " 变成了 " + w_soft +
                 "。由于指数函数比任何线性函数增长得都快，分数每高 1，权重就变为原来的 e 倍（约 2.718）。"
                 "sum(dim=0) 是对这个一维张量唯一的维度求和。");

  nb.cell({"attn_weights_2 = torch.softmax(attn_scores_2, dim=0)", "print(\"Attention weights:\", attn_weights_2)",
           "print(\"Sum:\", attn_weights_2.sum())"});
  Tensor attn_weights_2 = softmax(attn_scores_2, 0);
  nb.show("Attention weights:", "attn_weights_2", attn_weights_2);
  nb.show("Sum:", "attn_weights_2.sum()", sum(attn_weights_2));
  nb.note("PyTorch's softmax gives the same weights; it also subtracts the maximum first (see the last "
          "cells), which the naive version does not.",
          "PyTorch 的 softmax 给出相同的注意力权重；不同的是它会先减去最大值（见最后两个单元格），而朴素版本不会。");
  nb.explain("For everyday scores the two agree to the printed digits. torch.softmax is the one to use: it stays "
             "stable for very large or very negative scores, and its gradient is implemented directly. dim=0 names "
             "the dimension to normalise over; this 1-d tensor has only that one, so dim=0 and dim=-1 mean the same "
             "here.",
             "对于常规大小的分数，两者在打印出的位数上完全一致。实际应当使用 torch.softmax：分数很大或很负时它仍然数值稳定，"
             "其梯度也有专门的实现。dim=0 指定沿哪个维度归一化；这个一维张量只有这一个维度，所以这里 dim=0 与 dim=-1 含义相同。");

  nb.cell({"query = inputs[1]  # 2nd input token is the query", "context_vec_2 = torch.zeros(query.shape)",
           "for i, x_i in enumerate(inputs):", "    context_vec_2 += attn_weights_2[i]*x_i", "print(context_vec_2)"});
  Tensor context_vec_2 = zeros(query.shape());
  for (int64_t i = 0; i < n; ++i)
    context_vec_2 = add(context_vec_2, mul(select(attn_weights_2, 0, i), select(inputs, 0, i)));
  nb.show("context_vec_2", context_vec_2);
  nb.note("The context vector z^2 is the weighted sum of all input rows: " + journey +
              " enriched with a bit of every token, most of the tokens it scored highest with.",
          "上下文向量 z^2 是所有输入行的加权和：" + journey + " 融入了每个词元的一部分信息，得分最高的词元贡献最多。");
  const std::vector<float> w2 = attn_weights_2.values();
  const int64_t most = argmax(w2), least = argmin(w2);
  nb.explain("The loop scales each embedding x_i by its attention weight alpha_2i and adds them up, starting from "
                 "zeros. The result has the embeddings' " + D + " dimensions, because it is a mix of them: " +
                 quoted_token(opt, most) + " contributes most (weight " + f4(w2[static_cast<size_t>(most)]) + "), " +
                 quoted_token(opt, least) + " least (" + f4(w2[static_cast<size_t>(least)]) + "). In a model, this "
                 "context vector takes the place of the embedding of " + journey +
                 ": the same token, now informed by the rest of the sentence.",
             "循环把每个嵌入向量 x_i 乘以它的注意力权重 α_2i，再从零向量开始逐个累加。结果与嵌入向量一样是 " + D +
                 " 维的，因为它就是嵌入向量的混合：" + quoted_token(opt, most) + " 贡献最大（权重 " +
                 f4(w2[static_cast<size_t>(most)]) + "），" + quoted_token(opt, least) + " 最小（" +
                 f4(w2[static_cast<size_t>(least)]) + "）。在模型中，这个上下文向量会取代 " + journey +
                 " 的嵌入向量：代表的仍是同一个词元，但已融入了句子其余部分的信息。");

  nb.heading("3.3.2", "Computing attention weights for all input tokens", "计算所有输入词元的注意力权重");
  nb.cell({"attn_scores = inputs @ inputs.T", "attn_weights = torch.softmax(attn_scores, dim=-1)",
           "print(attn_weights)"});
  Tensor attn_scores = matmul(inputs, T(inputs));
  nb.record("attn_scores", attn_scores);
  Tensor attn_weights = softmax(attn_scores, -1);
  nb.show("attn_weights", attn_weights);
  nb.note("dim=-1 normalises each row: row i is how token i spreads its attention over all tokens.",
          "dim=-1 沿最后一个维度归一化，即对每一行归一化：第 i 行表示词元 i 如何把注意力分配给所有词元。");
  nb.confusion("dim=-1 vs dim=1. On this 2-d (tokens, tokens) matrix they name the same dimension, and the book "
               "uses both. Once §3.5.3 adds a batch dimension, the scores are (b, num_tokens, num_tokens): dim=-1 "
               "still normalises each query's row over the keys, but dim=1 now normalises over the queries, down a "
               "column. The numbers look plausible and are wrong. Write dim=-1.",
               "dim=-1 与 dim=1。在这个二维的 (词元, 词元) 矩阵上，两者指的是同一个维度，书中两种写法都出现过。"
               "3.5.3 节加入批次维度后，注意力分数的形状变为 (b, num_tokens, num_tokens)：dim=-1 仍然对每个查询的那一行"
               "（沿键的方向）归一化，而 dim=1 却变成沿查询的方向、也就是按列归一化。得到的数值看似合理，其实是错的。应写 dim=-1。");
  nb.explain("inputs @ inputs.T gives the " + N + " x " + N + " score matrix of naive-scores, and softmax turns "
                 "each row into weights. Row 2 is attn_weights_2 from above: the attention of " + journey +
                 ". Reading down a column instead shows how much attention one token receives from all the others; "
                 "columns need not sum to 1.",
             "inputs @ inputs.T 得到 naive-scores 中 " + N + " × " + N +
                 " 的注意力分数矩阵，softmax 再把每一行转换为注意力权重。第 2 行就是上面的 attn_weights_2，即 " + journey +
                 " 的注意力。换成沿一列往下看，则是某个词元从所有词元那里得到了多少注意力；列的和不必为 1。");

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
  nb.note("Every row sums to 1: each token's attention is a probability distribution over the tokens.",
          "每一行之和都为 1：每个词元的注意力都是所有词元上的一个概率分布。");
  nb.explain("The first line adds up row 2 as printed, rounded to 4 decimals, so this Python sum may miss 1.0 in "
             "the last digits: rounding in the printout, not an error in softmax. attn_weights.sum(dim=-1) sums the "
             "float32 values themselves, one sum per row. Both are the quickest check that softmax ran over the "
             "right dimension: normalised over the other one, the rows would not sum to 1.",
             "第一行代码把打印出的第 2 行（已舍入到小数点后 4 位）相加，所以这个 Python 求和可能在最后几位与 1.0 不同："
             "这是打印时的舍入，而不是 softmax 出了错。attn_weights.sum(dim=-1) 则对 float32 数值本身求和，每行一个和。"
             "这两项检查是确认 softmax 作用在正确维度上的最快方法：如果沿另一个维度归一化，各行之和就不会是 1。");

  nb.cell({"all_context_vecs = attn_weights @ inputs", "print(all_context_vecs)",
           "print(\"Previous 2nd context vector:\", context_vec_2)"});
  Tensor all_context_vecs = matmul(attn_weights, inputs);
  nb.show("all_context_vecs", all_context_vecs);
  nb.show("Previous 2nd context vector:", "context_vec_2", context_vec_2);
  nb.note("One matrix product gives every context vector; row 2 is the context_vec_2 computed by the loop.",
          "一次矩阵乘法得到所有上下文向量；第 2 行就是前面用循环算出的 context_vec_2。");
  nb.explain("attn_weights is (" + N + ", " + N + ") and inputs is (" + N + ", " + D + "), so the product is (" + N +
                 ", " + D + "): row i is sum_j alpha_ij x_j, the weighted sum the loop computed for " + journey +
                 ", now for every token at once. That completes the simplified self-attention of §3.3: scores by dot "
                 "products, weights by softmax, context vectors by a weighted sum. §3.4 (trainable) keeps these three "
                 "steps and adds trainable weight matrices.",
             "attn_weights 的形状是 (" + N + ", " + N + ")，inputs 是 (" + N + ", " + D + ")，所以乘积是 (" + N + ", " + D +
                 ")：第 i 行是 Σ_j α_ij x_j，也就是前面循环为 " + journey + " 计算的加权和，现在一次为所有词元算出。"
                 "至此，3.3 节的简化自注意力就完整了：用点积计算注意力分数，用 softmax 得到注意力权重，再加权求和得到上下文向量。"
                 "3.4 节（trainable）保留这三步，并加入可训练的权重矩阵。");

  nb.heading("3.3.1+", "Why softmax subtracts the maximum (not in the book)",
             "softmax 为什么要先减去最大值（书中没有）");
  nb.cell({"big_scores = attn_scores_2 * 100", "print(softmax_naive(big_scores))"});
  Tensor big_scores = mul(attn_scores_2, 100.0);
  nb.record("big_scores", big_scores);
  Tensor naive_big = div(exp(big_scores), sum(exp(big_scores), 0, false));
  nb.show("softmax_naive(big_scores)", naive_big);
  bool overflow = false;
  for (float v : naive_big.values()) overflow = overflow || !std::isfinite(v);
  if (overflow)
    nb.note("float32 overflows past exp(88.7) = 3.4e38: exp of a large score is inf, and inf / inf is nan. "
            "Large scores are common in real models, where embeddings have hundreds of dimensions.",
            "float32 能表示的最大值约为 3.4e38，即 exp(88.7)：更大的分数取指数后变成 inf，而 inf / inf 是 nan。"
            "在真实模型中嵌入有成百上千维，这么大的分数很常见。");
  else
    nb.note("No score here exceeds 88.7, so nothing overflows yet; a larger one would: float32 stops at exp(88.7) = "
            "3.4e38, exp of a larger score is inf, and inf / inf is nan. Real models, with hundreds of dimensions, "
            "easily get there.",
            "这里没有超过 88.7 的分数，所以还没有上溢；再大一些就会：float32 的上限是 exp(88.7) = 3.4e38，"
            "更大的分数取指数后变成 inf，而 inf / inf 是 nan。真实模型的嵌入有成百上千维，很容易出现这么大的分数。");
  nb.explain("Multiplying the scores of " + journey + " by 100 mimics the larger scores of real models, whose dot "
                 "products add up hundreds of products. softmax_naive takes exp of each score directly, and any score "
                 "above about 88.7 overflows float32 to inf. The sum in the denominator is then inf too: inf / inf is "
                 "undefined (nan) and a finite number / inf is 0. A single nan then spreads to everything computed "
                 "from it.",
             "把 " + journey + " 的注意力分数乘以 100，是为了模拟真实模型中更大的分数：那里的点积要把成百上千个乘积加起来。"
                 "softmax_naive 直接对每个分数取指数，任何超过约 88.7 的分数都会在 float32 中上溢为 inf。"
                 "于是分母中的和也是 inf：inf / inf 没有定义（nan），有限的数除以 inf 则得 0。"
                 "只要出现一个 nan，它就会传染给由它算出的所有结果。");

  nb.cell({"shifted = big_scores - big_scores.max()", "print(shifted)", "print(torch.exp(shifted))",
           "print(torch.softmax(big_scores, dim=0))"});
  Tensor shifted = add(big_scores, mul(max_along(big_scores, 0, false), -1.0));
  nb.show("shifted", shifted);
  nb.show("torch.exp(shifted)", exp(shifted));
  Tensor big_weights = softmax(big_scores, 0);
  nb.show("torch.softmax(big_scores, dim=0)", big_weights);
  nb.note("Subtracting the maximum changes nothing mathematically (it cancels in the ratio), but now the "
          "largest exponent is exp(0) = 1 and nothing overflows: that is what torch.softmax does.",
          "减去最大值在数学上不改变结果（它在比值中相互抵消），但此时最大的指数是 exp(0) = 1，不会再上溢："
          "torch.softmax 正是这样做的。");
  const std::vector<float> bw = big_weights.values();
  const int64_t top = argmax(bw);
  nb.explain("exp(x_i - m) / sum_j exp(x_j - m) = exp(x_i) / sum_j exp(x_j) for any constant m, since every term "
                 "gains the same factor exp(-m). With m the largest score, every shifted score is <= 0, every exp lies "
                 "in (0, 1], and the largest term of the denominator is exactly 1. Very negative shifted scores "
                 "underflow to 0, which is harmless: their true weight is negligible anyway. The result is a proper "
                 "distribution, in which the top-scoring " + quoted_token(opt, top) + " takes " +
                 f4(bw[static_cast<size_t>(top)]) + " of the weight.",
             "对任意常数 m，都有 exp(x_i − m) / Σ_j exp(x_j − m) = exp(x_i) / Σ_j exp(x_j)，因为每一项都多了同一个因子 "
                 "exp(−m)。取 m 为最大分数后，平移后的分数都 ≤ 0，每个指数都落在 (0, 1] 内，分母中最大的一项恰好是 1。"
                 "非常负的分数会下溢为 0，这无伤大雅：它们真正的权重本来就小到可以忽略。结果是一个正常的概率分布，"
                 "其中分数最高的 " + quoted_token(opt, top) + " 得到 " + f4(bw[static_cast<size_t>(top)]) + " 的权重。");
  return nb;
}

}  // namespace attn
