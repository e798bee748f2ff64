// §3.5.1: causal attention. Mask the weights above the diagonal and renormalise, then the same
// result in one step by filling the scores with -inf before softmax.
#include <cmath>
#include <limits>

#include "lessons/causal_setup.h"
#include "lessons/lesson.h"
#include "lessons/lesson_text.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "core/print.h"
#include "core/tensor_print.h"

namespace attn {

namespace {

float max_abs_diff(const Tensor& a, const Tensor& b) {
  const std::vector<float> va = a.values(), vb = b.values();
  float m = 0.0f;
  for (size_t i = 0; i < va.size(); ++i) m = std::max(m, std::fabs(va[i] - vb[i]));
  return m;
}

}  // namespace

Notebook causal_mask_lesson(const LessonOptions& opt) {
  Notebook nb = lesson_notebook("causal-mask", {"3.5.1"}, opt);
  const std::string first = quoted_token(opt, 0), second = quoted_token(opt, 1);

  nb.heading("3.5.1", "Applying a causal attention mask", "因果注意力的掩码实现");
  CausalWeights w = causal_weights(opt, &nb, true);

  nb.cell({"context_length = attn_scores.shape[0]",
           "mask_simple = torch.tril(torch.ones(context_length, context_length))", "print(context_length)",
           "print(mask_simple)"});
  const int64_t context_length = w.attn_scores.size(0);
  nb.record("context_length", Tensor({}, {static_cast<float>(context_length)}, DType::Int64));
  nb.print(std::to_string(context_length));
  Tensor mask_simple = tril(ones({context_length, context_length}));
  nb.show("mask_simple", mask_simple);
  nb.note("tril keeps the lower triangle: a 1 marks a weight that is KEPT. Row i has ones up to column i, so " +
              second + " (row 2) may look at " + first + " and itself only.",
          "tril 保留下三角：1 表示该位置的注意力权重被“保留”。第 i 行的 1 一直延续到第 i 列，因此 " + second +
              "（第 2 行）只能看到 " + first + " 和它自身。");
  nb.explain("context_length is the number of tokens, read from the shape of the scores. torch.tril (lower "
             "triangle) zeroes everything above the main diagonal of its input, so tril of a matrix of ones is a 0/1 "
             "mask of what each query may see. This is step (2) of figure 3-20: a mask to multiply the attention "
             "weights with.",
             "context_length 就是词元的数量，取自注意力分数的形状。torch.tril（lower triangle，下三角）把输入矩阵主对角线以上的"
             "元素全部置 0，所以对全 1 矩阵取 tril 就得到一个 0/1 掩码，标出每个查询可以看到哪些位置。这是图 3-20 的第 (2) "
             "步：一个用来与注意力权重相乘的掩码。");

  nb.cell({"masked_simple = attn_weights*mask_simple", "print(masked_simple)"});
  Tensor masked_simple = mul(w.attn_weights_unmasked, mask_simple);
  nb.show("masked_simple", masked_simple);
  nb.note("Multiplying by the mask zeroes the future: every weight above the diagonal becomes 0, the others are "
          "unchanged.",
          "与掩码相乘后，未来的位置被清零：对角线以上的注意力权重都变为 0，其余保持不变。");
  nb.explain("This is the straightforward way to hide the future: compute ordinary attention weights, then multiply "
             "them element-wise by the 0/1 mask. The * operator multiplies position by position (it is not a matrix "
             "product), so every kept weight stays exactly what it was; grad_fn=<MulBackward0> records that the "
             "result came from a multiplication.",
             "这是隐藏未来词元最直接的做法：先计算普通的注意力权重，再与 0/1 掩码逐元素相乘。运算符 * 是逐位置相乘（不是矩阵"
             "乘法），所以保留下来的注意力权重数值完全不变；grad_fn=<MulBackward0> 记录了结果来自一次乘法。");
  nb.confusion("masking after softmax needs renormalising. The rows no longer sum to 1: row 1 keeps only " + first +
                   "'s own share of the weight, and every later row has lost what it gave to the tokens after it. "
                   "Used as they are, these weights would scale each context vector down by its row sum, the first "
                   "tokens most. Divide each row by its sum (next cell), or mask the scores with -inf BEFORE softmax, "
                   "which needs no correction.",
               "在 softmax 之后再掩码，必须重新归一化。现在每一行之和已不再是 1：第 1 行只剩下 " + first +
                   " 对自身的那一份注意力权重，后面各行也丢掉了原本分给其后词元的部分。如果直接使用这些注意力权重，"
                   "每个上下文向量都会按该行之和被缩小，越靠前的词元缩小得越多。要么把每一行除以它的和（下一个单元），"
                   "要么在 softmax“之前”就用 -inf 掩码注意力分数，这样就无须任何修正。");

  nb.cell({"row_sums = masked_simple.sum(dim=-1, keepdim=True)", "masked_simple_norm = masked_simple / row_sums",
           "print(row_sums)", "print(masked_simple_norm)"});
  Tensor row_sums = sum(masked_simple, -1, true);
  nb.show("row_sums", row_sums);
  Tensor masked_simple_norm = div(masked_simple, row_sums);
  nb.show("masked_simple_norm", masked_simple_norm);
  nb.note("Dividing each row by its sum renormalises it: every row sums to 1 again, now over the visible "
          "tokens only. keepdim=True keeps row_sums a column, so it broadcasts across each row.",
          "把每一行除以该行之和，就完成了重新归一化：每一行之和再次为 1，但现在只分布在可见的词元上。keepdim=True 让 "
          "row_sums 保持为一列，从而能沿每一行广播。");
  const std::string n = std::to_string(context_length);
  nb.explain("Step (3) of figure 3-20. row_sums has shape (" + n + ", 1): the sum over dim=-1 adds up each row, and "
             "keepdim=True keeps the summed dimension with size 1. The division then broadcasts that column across "
             "the " + n + " columns of masked_simple. Without keepdim the shape (" + n + ",) would broadcast along the other "
             "axis and divide column j by the sum of row j: no error, just wrong numbers.",
             "这是图 3-20 的第 (3) 步。row_sums 的形状是 (" + n + ", 1)：沿 dim=-1 求和得到每一行的和，keepdim=True 把被求和"
             "的维度保留为大小 1。做除法时，这一列会沿 masked_simple 的 " + n + " 列广播。如果不加 keepdim，形状 (" + n +
             ",) 会沿另一个方向广播，变成第 j 列除以第 j 行的和——不会报错，只是结果是错的。");

  nb.cell({"mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)",
           "masked = attn_scores.masked_fill(mask.bool(), -torch.inf)", "print(mask)", "print(masked)"});
  nb.show("mask", w.mask);
  nb.show("masked", w.masked);
  nb.note("triu(diagonal=1) is the opposite picture: a 1 marks a score to FILL with -inf (strictly above the "
          "diagonal).",
          "triu(diagonal=1) 恰好相反：1 表示该位置的注意力分数要被“填充”为 -inf（严格位于对角线以上）。");
  nb.explain("This is the more efficient route of figure 3-21: instead of repairing the weights after softmax, mask "
             "the scores before it. mask.bool() turns the 0./1. floats into False/True, and masked_fill writes -inf "
             "wherever the mask is True, leaving the other scores untouched. The scores are not scaled yet; the "
             "division by sqrt(d_k) in the next cell leaves -inf as it is.",
             "这是图 3-21 中更高效的做法：不在 softmax 之后修补注意力权重，而是在 softmax 之前掩码注意力分数。mask.bool() 把 "
             "0./1. 浮点数变成 False/True，masked_fill 在掩码为 True 的位置写入 -inf，其余注意力分数保持不变。此时注意力分数"
             "还没有缩放；下一个单元中除以 sqrt(d_k) 之后，-inf 仍然是 -inf。");
  nb.confusion("tril keeps, triu(diagonal=1) fills. mask_simple (tril) has a 1 where a weight is KEPT; mask (triu, "
               "diagonal=1) has a 1 where a score is FILLED with -inf. Without diagonal=1, triu marks the diagonal too "
               "and hides each token from itself (row 1 becomes all -inf, and softmax turns it into nan). And "
               "masked_fill with the tril mask would fill the past and keep the future.",
               "tril 标出要保留的位置，triu(diagonal=1) 标出要填充的位置。mask_simple（tril）中的 1 表示该注意力权重被保留；"
               "mask（triu，diagonal=1）中的 1 表示该注意力分数被填充为 -inf。如果省略 diagonal=1，triu 会连对角线一起标出，"
               "每个词元连自身也看不到（第 1 行全是 -inf，softmax 会把它变成 nan）。而如果把 tril 掩码传给 masked_fill，"
               "被填充的就成了过去的词元，未来的词元反倒保留了下来。");

  nb.cell({"attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=1)", "print(attn_weights)"});
  nb.show("attn_weights", w.attn_weights);
  nb.note("exp(-inf) = 0, so softmax gives the masked positions zero weight and normalises over the rest: "
          "the same matrix as masked_simple_norm, in one step.",
          "exp(-inf) = 0，所以 softmax 给被掩码的位置分配的注意力权重为 0，并只在其余位置上归一化：一步就得到与 "
          "masked_simple_norm 相同的矩阵。");
  nb.explain("softmax computes exp(x_j) / sum_k exp(x_k) along each row (dim=1, the keys of a 2-D matrix). The -inf "
             "entries add exp(-inf) = 0 to the numerator and the denominator alike, so each row is normalised over "
             "the visible tokens only and needs no renormalising. Row 1 has a single finite score, so its weight on "
             "itself is 1.0000.",
             "softmax 沿每一行（对二维矩阵来说 dim=1 就是键的方向）计算 exp(x_j) / Σ_k exp(x_k)。-inf 元素在分子和分母中"
             "贡献的都是 exp(-inf) = 0，所以每一行只在可见的词元上归一化，无须再重新归一化。第 1 行只有一个有限的注意力分数，"
             "因此它对自身的注意力权重为 1.0000。");

  nb.heading("3.5.1", "Information leakage? Masking after softmax vs -inf before it",
             "信息泄露？softmax 之后掩码与 softmax 之前填充 -inf 的对比");
  nb.cell({"# masked_simple_norm (left) and attn_weights (right)",
           "print((masked_simple_norm - attn_weights).abs().max())",
           "print(torch.allclose(masked_simple_norm, attn_weights))"});
  nb.print(side_by_side(repr(masked_simple_norm), repr(w.attn_weights)));
  const float diff = max_abs_diff(masked_simple_norm, w.attn_weights);
  Tensor diff_t({}, {diff});
  nb.show("(masked_simple_norm - attn_weights).abs().max()", diff_t);
  bool close = true;
  {
    const std::vector<float> a = masked_simple_norm.values(), b = w.attn_weights.values();
    for (size_t i = 0; i < a.size(); ++i)
      if (!(std::fabs(a[i] - b[i]) <= 1e-8 + 1e-5 * std::fabs(b[i]))) close = false;
  }
  nb.print(close ? "True" : "False");
  nb.note("Side by side they agree to float32 rounding. The future tokens did enter the first softmax's "
          "denominator, but renormalising divides that common denominator out again: no information leaks.",
          "并排比较，两者在 float32 的舍入误差范围内一致。未来的词元确实进入过第一次 softmax 的分母，但重新归一化会把这个"
          "公共分母再约掉：没有信息泄露。");
  nb.explain("Why they agree: after softmax, the kept weight j of row i is exp(s_ij) / Z_i, with s_ij the scaled "
             "score and Z_i a sum over ALL tokens, future ones included. Renormalising divides by the sum of the kept "
             "weights, (sum over kept k of exp(s_ik)) / Z_i, so Z_i cancels and what remains is the softmax over the "
             "kept positions alone, which is exactly what -inf gives. The printed difference is the float32 rounding "
             "of the two routes; torch.allclose compares them with rtol 1e-5 and atol 1e-8.",
             "两者为何一致：softmax 之后，第 i 行保留下来的第 j 个注意力权重是 exp(s_ij) / Z_i，其中 s_ij 是缩放后的注意力分数，"
             "Z_i 对“全部”词元求和，也包括未来的词元。重新归一化时除以保留下来的注意力权重之和 Σ_k exp(s_ik) / Z_i（k 只取"
             "保留的位置），于是 Z_i 被约掉，剩下的正是只在保留位置上计算的 softmax——与 -inf 方法的结果完全相同。打印出的差值"
             "只是两条计算路径各自的 float32 舍入误差；torch.allclose 按 rtol 1e-5、atol 1e-8 的容差比较两者。");

  nb.cell({"print(mask_simple.bool())", "print(mask.bool())",
           "print(torch.equal(mask_simple + mask, torch.ones(context_length, context_length)))"});
  nb.show("mask_simple.bool()", to_bool(mask_simple));
  nb.show("mask.bool()", to_bool(w.mask));
  Tensor both = add(mask_simple, w.mask);
  const std::vector<float> bv = both.values();
  bool complementary = true;
  for (float v : bv) complementary = complementary && v == 1.0f;
  nb.print(complementary ? "True" : "False");
  nb.note("tril marks what is kept, triu(diagonal=1) what is filled: together they cover every position exactly "
          "once, so mask_simple + mask is all ones.",
          "tril 标出保留的位置，triu(diagonal=1) 标出填充的位置：两者恰好不重不漏地覆盖每个位置，因此 mask_simple + mask "
          "全为 1。");
  nb.explain("The two masks are logical complements: mask_simple.bool() is True on and below the diagonal, "
             "mask.bool() strictly above it. That is why the book can switch from multiplying by the one to filling "
             "with the other without changing the result. The later classes (CausalAttention, MultiHeadAttention) "
             "register the triu version as a buffer, because masked_fill wants True where it should write.",
             "两个掩码在逻辑上互补：mask_simple.bool() 在对角线及其下方为 True，mask.bool() 只在对角线上方为 True。正因如此，"
             "本书才能从“乘以前者”换成“用后者填充”，而结果不变。后面的类（CausalAttention、MultiHeadAttention）把 triu 版本"
             "注册为缓冲区，因为 masked_fill 要求在需要写入的位置为 True。");

  nb.cell({"values = sa_v2.W_value(inputs)", "context_vec = attn_weights @ values", "print(context_vec)"});
  nb.record("values", w.values);
  Tensor context_vec = matmul(w.attn_weights, w.values);
  nb.show("context_vec", context_vec);
  nb.note("The causal context vectors: row 1 is " + first + "'s own value vector, since it can attend to "
          "nothing else; every later row mixes only the tokens up to it.",
          "因果上下文向量：第 1 行就是 " + first + " 自己的值向量，因为它无法关注其他任何词元；之后的每一行只混合它自身及"
          "之前的词元。");
  nb.explain("The last step is the same as in 3.4: context_vec = attn_weights @ values, each row a weighted sum of "
             "value vectors. Because the weights above the diagonal are exactly 0, row i mixes the value vectors of "
             "tokens 1..i only; changing the embedding of a later token cannot change it. A GPT-like model needs "
             "this property to be trained on predicting the next token.",
             "最后一步与 3.4 节相同：context_vec = attn_weights @ values，每一行都是值向量的加权和。由于对角线以上的注意力权重"
             "恰好为 0，第 i 行只由第 1 到第 i 个词元的值向量混合而成；改变后面词元的嵌入也不会影响它。类 GPT 模型正需要这一"
             "性质，才能训练它预测下一个词元。");
  return nb;
}

}  // namespace attn
