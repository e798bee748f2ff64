// Seed 004: d2l's MultiHeadAttention. masked_softmax hides padded keys (valid_lens), transpose_qkv
// folds the heads into the batch (the post's integer walk-through, beside the book's layout), and the
// post's run: MultiHeadAttention(100, 100, 100, 100, 5, 0.5) on ones with valid_lens [3, 2].
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>

#include "nn/d2l_attention.h"
#include "lessons/lesson.h"
#include "lessons/lesson_text.h"
#include "core/ops_shape.h"
#include "core/print.h"
#include "core/random_ops.h"
#include "core/tensor_print.h"
#include "core/usage_error.h"

namespace attn {

namespace {

constexpr uint64_t kSeed = 123;          // the post draws from an unseeded generator; --seed replaces it
constexpr int64_t kNumHiddens = 100;     // the post's num_hiddens, num_heads and dropout
constexpr int64_t kNumHeads = 5;
constexpr double kDropout = 0.5;
constexpr int64_t kBatchSize = 2, kNumQueries = 4, kNumKvpairs = 6;  // the post's run

std::string bool_text(bool b) { return b ? "True" : "False"; }

// Python's list text of an int64 tensor: tensor.tolist().
std::string tolist_text(const Tensor& t) {
  const std::vector<float> v = t.values();
  std::string out;
  size_t k = 0;
  std::vector<int64_t> index(t.shape().size(), 0);
  const std::function<void(size_t)> walk = [&](size_t d) {
    if (d == t.shape().size()) {
      out += std::to_string(static_cast<int64_t>(v[k++]));
      return;
    }
    out += "[";
    for (int64_t i = 0; i < t.shape()[d]; ++i) {
      if (i) out += ", ";
      walk(d + 1);
    }
    out += "]";
  };
  walk(0);
  return out;
}

bool equal(const Tensor& a, const Tensor& b) { return a.shape() == b.shape() && a.values() == b.values(); }

// torch.tensor([...]) code text of int64 valid_lens.
std::string lens_code(const Tensor& lens) {
  std::string text = tolist_text(lens);
  return "torch.tensor(" + text + ")";
}

// --valid-lens: "3,2" / "[3, 2]" (one per sequence) or "[[1,2,3,4],[1,2,2,2]]" (one per query).
Tensor parse_valid_lens(const std::string& text, int64_t num_queries, int64_t num_keys) {
  const std::string quoted = "--valid-lens '" + text + "'";
  std::string s;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  const std::string malformed = quoted + ": not a list of whole numbers; give one valid length per sequence, e.g. "
                                "--valid-lens 3,2, or one per query, e.g. --valid-lens '[[1,2,3,4],[1,2,2,2]]'";
  auto numbers = [&](const std::string& list) {
    std::vector<int64_t> out;
    size_t i = 0;
    while (true) {
      size_t j = i;
      if (j < list.size() && (list[j] == '-' || list[j] == '+')) ++j;
      const size_t digits = j;
      while (j < list.size() && std::isdigit(static_cast<unsigned char>(list[j]))) ++j;
      if (j == digits || j - digits > 9) throw UsageError(malformed);
      out.push_back(std::strtoll(list.substr(i, j - i).c_str(), nullptr, 10));
      if (j == list.size()) return out;
      if (list[j] != ',') throw UsageError(malformed);
      i = j + 1;
    }
  };
  auto strip = [&](const std::string& x, const char* open, const char* close) {
    const size_t n = std::char_traits<char>::length(open);
    if (x.size() < 2 * n || x.compare(0, n, open) != 0 || x.compare(x.size() - n, n, close) != 0)
      throw UsageError(malformed);
    return x.substr(n, x.size() - 2 * n);
  };
  std::vector<int64_t> values;
  Shape shape;
  if (s.rfind("[[", 0) == 0) {  // 2-D: one length per query
    const std::string inner = strip(s, "[[", "]]");
    size_t start = 0;
    int64_t rows = 0, cols = -1;
    while (true) {
      const size_t end = inner.find("],[", start);
      const std::vector<int64_t> row = numbers(inner.substr(start, end == std::string::npos ? end : end - start));
      if (cols >= 0 && static_cast<int64_t>(row.size()) != cols)
        throw UsageError(quoted + ": rows of different lengths; each row holds one valid length per query (" +
                         std::to_string(num_queries) + " here), e.g. --valid-lens '[[1,2,3,4],[1,2,2,2]]'");
      cols = static_cast<int64_t>(row.size());
      values.insert(values.end(), row.begin(), row.end());
      ++rows;
      if (end == std::string::npos) break;
      start = end + 3;
    }
    if (rows != kBatchSize || cols != num_queries)
      throw UsageError(quoted + ": " + std::to_string(rows) + " row(s) of " + std::to_string(cols) +
                       " lengths, but per-query valid_lens is (batch_size, num_queries) = (" +
                       std::to_string(kBatchSize) + ", " + std::to_string(num_queries) +
                       "): one row per sequence, one length per query");
    shape = {rows, cols};
  } else {  // 1-D: one length per sequence
    values = numbers(s.rfind('[', 0) == 0 ? strip(s, "[", "]") : s);
    if (static_cast<int64_t>(values.size()) != kBatchSize)
      throw UsageError(quoted + ": " + std::to_string(values.size()) + " length(s) for a batch of " +
                       std::to_string(kBatchSize) + " sequences; give exactly " + std::to_string(kBatchSize) +
                       ", one per sequence, e.g. --valid-lens 3,2");
    shape = {kBatchSize};
  }
  for (int64_t v : values)
    if (v < 0 || v > num_keys)
      throw UsageError(quoted + ": " + std::to_string(v) + " is out of range; a valid length counts key-value pairs, "
                       "so it must be from 0 to " + std::to_string(num_keys) + " here");
  return d2l::int64_tensor(shape, values);
}

std::string divisors_text(int64_t n) {
  std::string out;
  for (int64_t d = 1; d <= std::min<int64_t>(n, 64); ++d)
    if (n % d == 0) out += (out.empty() ? "" : ", ") + std::to_string(d);
  return out;
}

const std::vector<std::string> kMaskedSoftmaxCode = {
    "import math",
    "import torch",
    "from torch import nn",
    "",
    "def sequence_mask(X, valid_len, value=0):",
    "    maxlen = X.size(1)",
    "    mask = torch.arange((maxlen), dtype=torch.float32,",
    "                        device=X.device)[None, :] < valid_len[:, None]",
    "    X[~mask] = value",
    "    return X",
    "",
    "def masked_softmax(X, valid_lens):",
    "    # X: 3-D tensor, valid_lens: 1-D or 2-D tensor",
    "    if valid_lens is None:",
    "        return nn.functional.softmax(X, dim=-1)",
    "    else:",
    "        shape = X.shape",
    "        if valid_lens.dim() == 1:",
    "            valid_lens = torch.repeat_interleave(valid_lens, shape[1])",
    "        else:",
    "            valid_lens = valid_lens.reshape(-1)",
    "        # masked elements on the last axis become -1e6, so their softmax output is 0",
    "        X = sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)",
    "        return nn.functional.softmax(X.reshape(shape), dim=-1)",
};

const std::vector<std::string> kTransposeCode = {
    "def transpose_qkv(X, num_heads):",
    "    # X: (batch_size, num_tokens, num_hiddens)",
    "    X = X.reshape(X.shape[0], X.shape[1], num_heads, -1)",
    "    # (batch_size, num_tokens, num_heads, num_hiddens / num_heads)",
    "    X = X.permute(0, 2, 1, 3)",
    "    # (batch_size, num_heads, num_tokens, num_hiddens / num_heads)",
    "    return X.reshape(-1, X.shape[2], X.shape[3])",
    "    # (batch_size * num_heads, num_tokens, num_hiddens / num_heads)",
    "",
    "def transpose_output(X, num_heads):",
    "    \"\"\"Reverse the operation of transpose_qkv.\"\"\"",
    "    X = X.reshape(-1, num_heads, X.shape[1], X.shape[2])",
    "    X = X.permute(0, 2, 1, 3)",
    "    return X.reshape(X.shape[0], X.shape[1], -1)",
};

const std::vector<std::string> kClassCode = {
    "class DotProductAttention(nn.Module):",
    "    def __init__(self, dropout, **kwargs):",
    "        super(DotProductAttention, self).__init__(**kwargs)",
    "        self.dropout = nn.Dropout(dropout)",
    "",
    "    # queries: (batch_size, no. of queries, d), keys: (batch_size, no. of key-value pairs, d)",
    "    # values: (batch_size, no. of key-value pairs, value dimension)",
    "    # valid_lens: (batch_size,) or (batch_size, no. of queries)",
    "    def forward(self, queries, keys, values, valid_lens=None):",
    "        d = queries.shape[-1]",
    "        scores = torch.bmm(queries, keys.transpose(1,2)) / math.sqrt(d)",
    "        self.attention_weights = masked_softmax(scores, valid_lens)",
    "        return torch.bmm(self.dropout(self.attention_weights), values)",
    "",
    "class MultiHeadAttention(nn.Module):",
    "    def __init__(self, key_size, query_size, value_size, num_hiddens,",
    "                 num_heads, dropout, bias=False, **kwargs):",
    "        super(MultiHeadAttention, self).__init__(**kwargs)",
    "        self.num_heads = num_heads",
    "        self.attention = DotProductAttention(dropout)",
    "        self.W_q = nn.Linear(query_size, num_hiddens, bias=bias)",
    "        self.W_k = nn.Linear(key_size, num_hiddens, bias=bias)",
    "        self.W_v = nn.Linear(value_size, num_hiddens, bias=bias)",
    "        self.W_o = nn.Linear(num_hiddens, num_hiddens, bias=bias)",
    "",
    "    def forward(self, queries, keys, values, valid_lens):",
    "        # queries, keys, values: (batch_size, no. of queries or key-value pairs, num_hiddens)",
    "        # after transpose_qkv: (batch_size * num_heads, no. of queries or key-value pairs,",
    "        #                       num_hiddens / num_heads)",
    "        queries = transpose_qkv(self.W_q(queries), self.num_heads)",
    "        keys = transpose_qkv(self.W_k(keys), self.num_heads)",
    "        values = transpose_qkv(self.W_v(values), self.num_heads)",
    "",
    "        if valid_lens is not None:",
    "            # on axis 0, copy the first item (scalar or vector) num_heads times,",
    "            # then the second item, and so on",
    "            valid_lens = torch.repeat_interleave(",
    "                valid_lens, repeats=self.num_heads, dim=0)",
    "",
    "        # output: (batch_size * num_heads, no. of queries, num_hiddens / num_heads)",
    "        output = self.attention(queries, keys, values, valid_lens)",
    "",
    "        # output_concat: (batch_size, no. of queries, num_hiddens)",
    "        output_concat = transpose_output(output, self.num_heads)",
    "        return self.W_o(output_concat)",
};

void masked_softmax_cells(Notebook& nb, const LessonOptions& opt) {
  nb.heading("004", "d2l's masked_softmax: valid_lens hide the padding", "d2l 的 masked_softmax：用 valid_lens 遮住填充");
  std::vector<std::string> code = kMaskedSoftmaxCode;
  code.insert(code.end(), {"", "torch.manual_seed(" + fmt_seed(opt, kSeed) + ")",
                           "X = torch.rand(2, 2, 4)  # scores: (batch 2, 2 queries, 4 keys)",
                           "valid_lens = torch.tensor([2, 3])", "print(X)",
                           "print(masked_softmax(X.clone(), valid_lens))"});
  nb.cell(code);
  Generator gen;
  gen.manual_seed(opt.seed_or(kSeed));
  const Tensor X({2, 2, 4}, rand_values(gen, 16));
  const Tensor valid_lens = d2l::int64_tensor({2}, {2, 3});
  nb.record("valid_lens", valid_lens);
  nb.show("X", X);
  d2l::MaskedSoftmaxTrace t;
  const Tensor weights = d2l::masked_softmax(X, valid_lens, &t);
  nb.show("masked_softmax(X, valid_lens)", weights);
  nb.note("valid_lens = [2, 3]: every query of sequence 0 may look at its first 2 keys only, every query of "
          "sequence 1 at its first 3. The rest get weight 0, and each row still sums to 1. (X.clone() keeps X "
          "intact: masked_softmax writes -1e6 into its argument through a view.) Step by step:",
          "valid_lens = [2, 3]：序列 0 的每个查询只能看它的前 2 个键，序列 1 的每个查询只能看前 3 个键。"
          "其余的键得到的注意力权重为 0，每行之和仍为 1。（X.clone() 让 X 保持不变：masked_softmax "
          "会通过视图把 -1e6 写进它的参数。）下面逐步拆开：");
  nb.explain("In d2l, sequences of different lengths are padded to a common length, and valid_lens says how many "
             "keys at the start of each sequence are real. masked_softmax replaces the scores of the other keys "
             "with a very negative number before the softmax, so those keys get weight 0. The X here stands for "
             "attention scores: random numbers of shape (batch 2, 2 queries, 4 keys).",
             "在 d2l 中，长度不同的序列会被填充到相同的长度，valid_lens 表示每个序列开头有多少个键是真实的。"
             "masked_softmax 在 softmax 之前把其余键的注意力分数替换为一个很大的负数，使这些键的注意力权重为 0。"
             "这里的 X 代表注意力分数：形状为 (批次 2, 2 个查询, 4 个键) 的随机数。");
  nb.confusion("This is not the causal mask of the book's 3.5. valid_lens hides the padding at the END of each "
               "sequence and, given one length per sequence, the same keys for every query of it: a query may still "
               "see keys after its own position. The causal mask hides, for each query, the keys after it, a "
               "different set for every row. d2l gets that one from 2-D valid_lens, one length per query (the last "
               "cell of this section).",
               "这不是本书 3.5 节的因果掩码。valid_lens 遮住的是每个序列末尾的填充；每个序列只给一个长度时，"
               "它对该序列的所有查询遮住同样的键：查询仍然可以看到它自己位置之后的键。因果掩码则为每个查询遮住"
               "它之后的键，每一行遮住的位置都不同。d2l 用二维的 valid_lens（每个查询一个长度）来实现因果掩码"
               "（见本节最后一个单元格）。");

  nb.cell({"# inside masked_softmax(X, valid_lens)", "shape = X.shape",
           "valid_lens = torch.repeat_interleave(valid_lens, shape[1])", "print(valid_lens)"});
  nb.show("valid_lens", t.valid_lens);
  nb.note("One length per row of the flattened scores: each sequence's length repeated for its shape[1] = 2 "
          "queries.",
          "展平后的注意力分数每一行对应一个长度：每个序列的长度为它的 shape[1] = 2 个查询各重复一次。");
  nb.explain("masked_softmax flattens the scores to one row per (sequence, query) pair, so it needs one length per "
             "row. torch.repeat_interleave(valid_lens, 2) repeats each element in place: [2, 3] becomes [2, 2, 3, 3], "
             "in the row order of the reshape, where all queries of sequence 0 come first.",
             "masked_softmax 把注意力分数展平成每个（序列, 查询）对一行，因此每一行都需要一个长度。"
             "torch.repeat_interleave(valid_lens, 2) 把每个元素原地重复：[2, 3] 变成 [2, 2, 3, 3]，"
             "与 reshape 之后的行顺序一致（序列 0 的所有查询排在前面）。");

  nb.cell({"# inside sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)",
           "X = X.reshape(-1, shape[-1])", "maxlen = X.size(1)",
           "mask = torch.arange((maxlen), dtype=torch.float32)[None, :] < valid_lens[:, None]", "print(X)",
           "print(mask)"});
  nb.show("X", t.rows);
  nb.show("mask", t.mask);
  const std::string rows_shape = shape_text(t.rows.shape());
  nb.note("reshape gives one row per query, " + rows_shape + ". arange(maxlen) = [0, 1, 2, 3] compared with each "
              "row's length (broadcast (1, 4) < (4, 1)): True marks the keys a query may see.",
          "reshape 之后每个查询占一行，形状为 " + rows_shape + "。arange(maxlen) = [0, 1, 2, 3] 与每行的长度比较"
              "（广播 (1, 4) < (4, 1)）：True 标出查询可以看到的键。");
  nb.explain("[None, :] turns arange into a (1, maxlen) row and valid_lens[:, None] turns the lengths into a (rows, 1) "
             "column; comparing them broadcasts to (rows, maxlen). Key j is visible to row r exactly when j < "
             "valid_lens[r], so the True entries of every row form a prefix as long as its valid length.",
             "[None, :] 把 arange 变成 (1, maxlen) 的行向量，valid_lens[:, None] 把长度变成 (rows, 1) 的列向量；"
             "两者比较时广播为 (rows, maxlen)。当且仅当 j < valid_lens[r] 时，第 r 行可以看到键 j，"
             "所以每一行的 True 都是开头一段，长度等于它的有效长度。");

  nb.cell({"X[~mask] = -1e6", "print(X)"});
  nb.show("X", t.masked);
  nb.note("The hidden scores become -1e6, not -inf: PyTorch prints the row in scientific notation because "
          "the values now span 7 orders of magnitude.",
          "被隐藏的注意力分数变成 -1e6 而不是 -inf：由于数值现在跨越 7 个数量级，PyTorch 改用科学计数法打印。");
  nb.explain("~mask inverts the bool mask, and X[~mask] = value is an assignment through a boolean index: every "
             "hidden position is overwritten in place. Because this X is X.reshape(-1, shape[-1]) of a contiguous "
             "tensor, the reshape is a view, so the write also reaches the tensor the caller passed in.",
             "~mask 对布尔掩码取反，X[~mask] = value 是通过布尔索引赋值：每个被隐藏的位置都被原地改写。"
             "由于这里的 X 是一个连续张量的 X.reshape(-1, shape[-1])，reshape 返回的是视图，"
             "所以写入也会作用到调用者传入的张量上。");
  nb.confusion("d2l masks with -1e6, the book with -inf. After the softmax both give exactly 0 here, because "
               "exp(-1e6 - max) underflows to 0 in float32. They differ when a whole row is masked (valid length 0): "
               "-1e6 everywhere gives a uniform row, 1/n each, while -inf everywhere gives nan. So -1e6 is a large "
               "finite number standing in for -inf, not a different kind of mask.",
               "d2l 用 -1e6 做掩码，本书用 -inf。在这里两者经过 softmax 后都恰好得到 0，因为在 float32 中 "
               "exp(-1e6 - max) 下溢为 0。当整行都被掩码时（有效长度为 0）两者不同：全是 -1e6 的一行会得到均匀分布，"
               "每个位置 1/n；全是 -inf 的一行则得到 nan。所以 -1e6 只是代替 -inf 的一个很大的有限数，"
               "并不是另一种掩码。");

  nb.cell({"print(nn.functional.softmax(X.reshape(shape), dim=-1))"});
  nb.show("nn.functional.softmax(X.reshape(shape), dim=-1)", t.weights);
  nb.note("exp(-1e6 - max) underflows to exactly 0 in float32, so the masked keys get weight 0.0000: the same "
          "tensor as masked_softmax(X, valid_lens) above. A length of 0 masks every key of a row; then all its "
          "scores are -1e6 and softmax spreads the weight evenly instead of giving zeros.",
          "在 float32 中 exp(-1e6 - max) 下溢为恰好 0，所以被掩码的键得到的权重是 0.0000：与上面 "
          "masked_softmax(X, valid_lens) 的结果是同一个张量。长度为 0 时一行中的所有键都被掩码；这时它的注意力分数"
          "全是 -1e6，softmax 会把权重平均分配，而不是给出全 0。");
  nb.explain("X.reshape(shape) restores (batch, queries, keys), and softmax runs over dim=-1, the keys, as in the "
             "book. softmax subtracts the row's maximum first, so a hidden score ends up about a million below the "
             "largest visible one, and its exponential is 0. The result is, bit for bit, the masked_softmax output "
             "of the first cell.",
             "X.reshape(shape) 恢复 (批次, 查询, 键) 的形状，softmax 和本书一样在 dim=-1（键的维度）上计算。"
             "softmax 会先减去该行的最大值，于是被隐藏的注意力分数比最大的可见分数小约一百万，它的指数就是 0。"
             "结果与第一个单元格中 masked_softmax 的输出逐位相同。");

  nb.cell({"X = torch.rand(2, 2, 4)", "valid_lens = torch.tensor([[1, 3], [2, 4]])  # one length per query",
           "print(valid_lens.reshape(-1))", "print(masked_softmax(X, valid_lens))"});
  const Tensor X2({2, 2, 4}, rand_values(gen, 16));
  const Tensor lens2 = d2l::int64_tensor({2, 2}, {1, 3, 2, 4});
  nb.record("X", X2);
  nb.record("valid_lens", lens2);
  d2l::MaskedSoftmaxTrace t2;
  const Tensor weights2 = d2l::masked_softmax(X2, lens2, &t2);
  nb.show("valid_lens.reshape(-1)", t2.valid_lens);
  nb.show("masked_softmax(X, valid_lens)", weights2);
  nb.note("2-D valid_lens give each query its own length (a decoder hides the future this way): "
          "reshape(-1) already has one length per row, so nothing is repeated.",
          "二维的 valid_lens 给每个查询各自的长度（解码器正是这样隐藏未来的词元的）：reshape(-1) "
          "本来就是每行一个长度，所以无须重复。");
  nb.explain("valid_lens [[1, 3], [2, 4]] has the shape (batch, queries): in sequence 0 the first query sees 1 key "
             "and the second 3; in sequence 1 they see 2 and 4. Lengths 1, 2, 3, ... for queries 1, 2, 3, ... are "
             "exactly a causal mask, and d2l's transformer decoder builds its training mask that way. The new X "
             "comes from the same generator, continuing after the first one.",
             "valid_lens [[1, 3], [2, 4]] 的形状是 (批次, 查询)：在序列 0 中第一个查询看到 1 个键，第二个看到 3 个；"
             "在序列 1 中分别看到 2 个和 4 个。如果第 1、2、3……个查询的长度依次是 1、2、3……，这恰好就是因果掩码，"
             "d2l 的 Transformer 解码器在训练时就是这样构造掩码的。新的 X 来自同一个生成器，接着第一个 X 继续抽取。");
}

void transpose_cells(Notebook& nb) {
  nb.heading("004", "transpose_qkv step by step on the post's integers", "用博文中的整数逐步演示 transpose_qkv");
  std::vector<std::string> code = kTransposeCode;
  code.insert(code.end(), {"", "num_heads = 2",
                           "X = torch.tensor([[[10, 11, 12, 13],   # sentence 1, word A",
                           "                   [14, 15, 16, 17]],  # sentence 1, word B",
                           "                  [[20, 21, 22, 23],   # sentence 2, word C",
                           "                   [24, 25, 26, 27]]]) # sentence 2, word D",
                           "print(X)"});
  nb.cell(code);
  const Tensor X = d2l::int64_tensor({2, 2, 4}, {10, 11, 12, 13, 14, 15, 16, 17, 20, 21, 22, 23, 24, 25, 26, 27});
  const int64_t num_heads = 2;
  nb.show("X", X);
  nb.note("The post's example: batch 2, 2 words per sentence, num_hiddens 4, num_heads 2, so head_dim = 2: head 1 "
          "takes features 0-1 of every word, head 2 features 2-3. (The comments in the post's transpose_qkv use 3 "
          "words; its data has 2.) This example is fixed; --num-heads changes the run below.",
          "博文中的例子：批次大小 2，每句 2 个词，num_hiddens 为 4，num_heads 为 2，所以 head_dim = 2："
          "头 1 取每个词的第 0-1 个特征，头 2 取第 2-3 个特征。（博文 transpose_qkv 的注释里用的是 3 个词，"
          "它的数据只有 2 个。）这个例子是固定的；--num-heads 改变的是下面的运行。");
  nb.explain("Integers make the moves easy to follow: the tens digit is the sentence (1 or 2), and the units count "
             "through the features of its words in order. After each step below you can read off where every number "
             "went. transpose_qkv and transpose_output are d2l's functions; the cells run them one line at a time.",
             "用整数可以很容易地跟踪数据的移动：十位数表示句子（1 或 2），个位数按顺序数过该句中各个词的特征。"
             "下面每一步之后，都可以看出每个数去了哪里。transpose_qkv 和 transpose_output 是 d2l 的函数，"
             "下面的单元格逐行运行它们。");

  d2l::SplitTrace s;
  const Tensor X_final = d2l::transpose_qkv(X, num_heads, &s);
  nb.cell({"X_reshaped = X.reshape(X.shape[0], X.shape[1], num_heads, -1)", "print(X_reshaped)"});
  nb.show("X_reshaped", s.reshaped);
  const std::string reshaped_shape = shape_text(s.reshaped.shape());
  nb.note("Step 1, reshape: (batch, seq, heads, head_dim) = " + reshaped_shape +
              ". Each word's 4 features are now [head 1's 2], [head 2's 2]; no number moved in memory.",
          "第 1 步，reshape：(batch, seq, heads, head_dim) = " + reshaped_shape +
              "。每个词的 4 个特征现在是 [头 1 的 2 个], [头 2 的 2 个]；内存中没有任何数移动。");
  nb.explain("With -1, PyTorch computes the last size itself: num_hiddens / num_heads = 2. X is contiguous, so this "
             "reshape is a view, the same memory read with one more dimension, just like the book's view(b, "
             "num_tokens, num_heads, head_dim).",
             "写 -1 时 PyTorch 会自己算出最后一维的大小：num_hiddens / num_heads = 2。X 是连续的，所以这次 reshape "
             "返回视图，即用多一个维度的方式读取同一块内存，和本书的 view(b, num_tokens, num_heads, head_dim) 一样。");

  nb.cell({"X_permuted = X_reshaped.permute(0, 2, 1, 3)", "print(X_permuted)"});
  nb.show("X_permuted", s.permuted);
  const std::string permuted_shape = shape_text(s.permuted.shape()),
                    strides = shape_text(s.reshaped.strides()) + " -> " + shape_text(s.permuted.strides());
  nb.note("Step 2, permute: heads before words, (batch, heads, seq, head_dim) = " + permuted_shape +
              ". Everything one head sees is together: sentence 1's head 1 is [[10, 11], [14, 15]] (12 and 13 went to "
              "head 2). permute only changes the strides, " + strides + ".",
          "第 2 步，permute：头在词之前，(batch, heads, seq, head_dim) = " + permuted_shape +
              "。同一个头看到的内容都聚到了一起：句子 1 的头 1 是 [[10, 11], [14, 15]]（12 和 13 去了头 2）。"
              "permute 只改变步长：" + strides + "。");
  nb.explain("permute(0, 2, 1, 3) lists the old dimensions in their new order: the batch stays, heads (old 2) and "
             "seq (old 1) trade places, head_dim stays. Swapping two dimensions this way is the same as the book's "
             "transpose(1, 2). The result is a view that is no longer contiguous.",
             "permute(0, 2, 1, 3) 按新的顺序列出原来的维度：批次不动，heads（原第 2 维）和 seq（原第 1 维）互换，"
             "head_dim 不动。这样交换两个维度，与本书的 transpose(1, 2) 相同。结果是一个不再连续的视图。");

  nb.cell({"X_final = X_permuted.reshape(-1, X_permuted.shape[2], X_permuted.shape[3])", "print(X_final)",
           "print(X_final.tolist())", "print(torch.equal(X_final, transpose_qkv(X, num_heads)))"});
  nb.show("X_final", s.out);
  nb.print(tolist_text(s.out));
  nb.print(bool_text(equal(s.out, X_final)));
  const std::string final_shape = shape_text(s.out.shape());
  nb.note("Step 3, reshape: batch and heads merged, (batch * heads, seq, head_dim) = " + final_shape +
              ", exactly the post's X_final: task 1 = sentence 1 seen by head 1, task 2 = sentence 1 by head 2, then "
              "sentence 2. The permuted strides cannot be viewed this way, so this reshape copies. bmm now treats "
              "the 4 (sentence, head) pairs as 4 independent samples.",
          "第 3 步，reshape：合并批次和头，(batch * heads, seq, head_dim) = " + final_shape +
              "，正是博文中的 X_final：任务 1 = 用头 1 看句子 1，任务 2 = 用头 2 看句子 1，然后是句子 2。"
              "permute 之后的步长无法这样用视图合并，所以这次 reshape 会复制数据。bmm 现在把这 4 个（句子, 头）"
              "组合当作 4 个独立的样本。");
  nb.explain("reshape(-1, seq, head_dim) merges the batch and heads dimensions into one. After the permute the "
             "numbers are not in memory order, so reshape copies them (the book writes contiguous().view for the "
             "same step). torch.bmm only accepts 3-D tensors, which is why d2l folds the heads into the batch "
             "instead of keeping a 4-D tensor as the book does with @.",
             "reshape(-1, seq, head_dim) 把批次维度和头维度合并成一个。permute 之后这些数不再按内存顺序排列，"
             "所以 reshape 会复制它们（本书在同样的一步写 contiguous().view）。torch.bmm 只接受三维张量，"
             "所以 d2l 把头折叠进批次维度，而不像本书那样保留四维张量并用 @ 计算。");
  nb.confusion("After transpose_qkv, dimension 0 is no longer the batch: it has batch_size * num_heads = " +
                   std::to_string(s.out.size(0)) + " entries, in the order (sentence 1, head 1), (sentence 1, head 2), "
                   "(sentence 2, head 1), (sentence 2, head 2). X_final[1] is sentence 1's second head, not sentence "
                   "2. Anything given per sequence, like valid_lens, must be expanded to this order before it can be "
                   "used (repeat_interleave, in the run below), and transpose_output must undo the folding before W_o.",
               "transpose_qkv 之后，第 0 维不再是批次：它有 batch_size * num_heads = " + std::to_string(s.out.size(0)) +
                   " 项，顺序是（句子 1, 头 1）、（句子 1, 头 2）、（句子 2, 头 1）、（句子 2, 头 2）。X_final[1] "
                   "是句子 1 的第 2 个头，而不是句子 2。凡是按序列给出的量（比如 valid_lens）都必须先展开成这个顺序"
                   "才能使用（见下面运行中的 repeat_interleave），而在 W_o 之前还要用 transpose_output 撤销这次折叠。");

  nb.cell({"# the book's MultiHeadAttention (3.6.2) splits the same X with view + transpose:",
           "b, num_tokens, d_out = X.shape", "head_dim = d_out // num_heads",
           "X_book = X.view(b, num_tokens, num_heads, head_dim).transpose(1, 2)",
           "# X_final (left) and X_book (right)",
           "print(torch.equal(X_book, X_permuted), torch.equal(X_book.reshape(-1, num_tokens, head_dim), X_final))",
           "print(X_final.stride(), X_book.stride())"});
  const Tensor X_book = d2l::book_split(X, num_heads);
  nb.record("X_book", X_book);
  nb.print(side_by_side(repr(s.out), repr(X_book)));
  nb.print(bool_text(equal(X_book, s.permuted)) + " " +
           bool_text(equal(d2l::reshape(X_book, {-1, X.size(1), X.size(2) / num_heads}), s.out)));
  nb.print(shape_text(s.out.strides()) + " " + shape_text(X_book.strides()));
  const std::string book_shape = shape_text(X_book.shape()), folded = std::to_string(s.out.size(0));
  nb.note("The same split up to layout: the book keeps (b, num_heads, num_tokens, head_dim) = " + book_shape +
              " and lets @ loop over both leading dimensions; d2l folds them into one batch dimension of b * "
              "num_heads = " + folded + " for torch.bmm. The book's view + transpose(1, 2) is d2l's reshape + "
              "permute(0, 2, 1, 3), and X_final is X_book.reshape(-1, num_tokens, head_dim): the same numbers in the "
              "same order.",
          "除了布局之外是同一种拆分：本书保留 (b, num_heads, num_tokens, head_dim) = " + book_shape +
              "，让 @ 对前两个维度循环；d2l 则把它们折叠成一个大小为 b * num_heads = " + folded +
              " 的批次维度，以便使用 torch.bmm。本书的 view + transpose(1, 2) 就是 d2l 的 reshape + "
              "permute(0, 2, 1, 3)，而 X_final 就是 X_book.reshape(-1, num_tokens, head_dim)：数相同，顺序也相同。");
  nb.explain("The two torch.equal checks compare the layouts: the book's split equals d2l's after step 2, and "
             "merging its first two dimensions gives X_final. The strides show the one remaining difference: "
             "X_final is a compact copy, while X_book is still a strided view of X's memory.",
             "两个 torch.equal 检查比较的是布局：本书的拆分结果等于 d2l 第 2 步之后的结果，再合并它的前两个维度就得到 "
             "X_final。步长显示了仅剩的区别：X_final 是一份紧凑的副本，而 X_book 仍是 X 内存上带步长的视图。");

  d2l::SplitTrace o;
  const Tensor X_back = d2l::transpose_output(s.out, num_heads, &o);
  nb.cell({"# transpose_output(X_final, num_heads), step by step",
           "Z = X_final.reshape(-1, num_heads, X_final.shape[1], X_final.shape[2])", "print(Z)",
           "Z = Z.permute(0, 2, 1, 3)", "print(Z)", "Z = Z.reshape(Z.shape[0], Z.shape[1], -1)", "print(Z)",
           "print(torch.equal(Z, X))"});
  nb.show("Z", o.reshaped);
  nb.show("Z", o.permuted);
  nb.show("Z", o.out);
  nb.print(bool_text(equal(X_back, X)));
  const std::string s1 = shape_text(o.reshaped.shape()), s2 = shape_text(o.permuted.shape()),
                    s3 = shape_text(o.out.shape());
  nb.note("The inverse, step by step: " + s1 + " = X_permuted, then " + s2 + " = X_reshaped, then " + s3 +
              " = X. Each head's features are back in their columns, in the original order, so W_o sees the heads "
              "concatenated word by word.",
          "逐步求逆：" + s1 + " = X_permuted，然后 " + s2 + " = X_reshaped，最后 " + s3 +
              " = X。每个头的特征都回到了原来的列，顺序也与原来相同，因此 W_o 看到的是逐词拼接起来的各个头。");
  nb.explain("transpose_output undoes transpose_qkv's three steps in reverse order: unfold the batch into (batch, "
             "heads), swap heads and words back, merge heads and features into num_hiddens. torch.equal(Z, X) "
             "confirms the round trip. In the book the same job is done by transpose(1, 2) followed by "
             "contiguous().view(b, num_tokens, d_out).",
             "transpose_output 按相反的顺序撤销 transpose_qkv 的三步：把批次维度展开成 (batch, heads)，"
             "把头和词的维度换回来，再把头和特征合并成 num_hiddens。torch.equal(Z, X) 确认数据完整地转了一圈回来。"
             "在本书中，同样的工作由 transpose(1, 2) 加上 contiguous().view(b, num_tokens, d_out) 完成。");
}

}  // namespace

Notebook d2l_mha_lesson(const LessonOptions& opt) {
  Notebook nb = lesson_notebook("d2l-mha", {"004"}, opt);
  const int64_t num_hiddens = opt.num_hiddens.value_or(kNumHiddens);
  const int64_t num_heads = opt.heads_or(kNumHeads);
  if (num_hiddens % num_heads != 0)
    throw UsageError("--num-hiddens " + std::to_string(num_hiddens) + " is not divisible by --num-heads " +
                     std::to_string(num_heads) + ": transpose_qkv splits num_hiddens into num_heads equal parts; use "
                     "--num-heads " + divisors_text(num_hiddens) + ", or a --num-hiddens that is a multiple of " +
                     std::to_string(num_heads));
  const double p = opt.dropout.value_or(kDropout);
  const bool training = opt.dropout && *opt.dropout > 0.0;  // --dropout P > 0: train mode, dropout active
  const bool own_inputs = opt.custom_inputs;                 // --inputs/--tokens: self-attention on them
  const int64_t num_queries = own_inputs ? opt.num_tokens() : kNumQueries;
  const int64_t num_kvpairs = own_inputs ? opt.num_tokens() : kNumKvpairs;
  Tensor valid_lens = d2l::int64_tensor({kBatchSize}, {std::min<int64_t>(3, num_kvpairs), std::min<int64_t>(2, num_kvpairs)});
  if (opt.valid_lens) valid_lens = parse_valid_lens(*opt.valid_lens, num_queries, num_kvpairs);

  masked_softmax_cells(nb, opt);
  transpose_cells(nb);

  nb.heading("004", "The post's run: MultiHeadAttention with valid_lens", "博文中的运行：带 valid_lens 的 MultiHeadAttention");
  const std::string seed = fmt_seed(opt, kSeed), h = std::to_string(num_heads);
  std::vector<std::string> code = kClassCode;
  code.push_back("");
  if (own_inputs) {
    const std::vector<std::string> in = inputs_code(opt);
    code.insert(code.end(), in.begin(), in.end());
    code.push_back("X = torch.stack((inputs, inputs), dim=0)  # (batch_size, num_tokens, d_in)");
  }
  code.push_back("torch.manual_seed(" + seed + ")  # not in the post (its generator is unseeded); --seed");
  code.push_back("num_hiddens, num_heads = " + std::to_string(num_hiddens) + ", " + h);
  const std::string bias = opt.qkv_bias ? ", bias=True" : "";
  if (own_inputs) {
    code.push_back("d_in = X.shape[-1]");
    code.push_back("attention = MultiHeadAttention(d_in, d_in, d_in, num_hiddens, num_heads, " + d2l::py_float_repr(p) +
                   bias + ")");
  } else {
    code.push_back("attention = MultiHeadAttention(num_hiddens, num_hiddens, num_hiddens,");
    code.push_back("                               num_hiddens, num_heads, " + d2l::py_float_repr(p) + bias + ")");
  }
  code.push_back(training ? "attention.train()  # --dropout > 0: dropout active (the post calls eval())"
                          : "attention.eval()");
  nb.cell(code);
  Generator gen;
  gen.manual_seed(opt.seed_or(kSeed));
  const int64_t in_size = own_inputs ? opt.d_in() : num_hiddens;
  d2l::MultiHeadAttention attention =
      d2l::MultiHeadAttention::init(gen, in_size, in_size, in_size, num_hiddens, num_heads, p, opt.qkv_bias);
  attention.training = training;
  nb.print(attention.repr());
  if (own_inputs) nb.record("X", stack({opt.inputs.embeddings, opt.inputs.embeddings}, 0));
  const std::string linear = "nn.Linear(" + std::to_string(in_size) + ", " + std::to_string(num_hiddens) +
                             (opt.qkv_bias ? "" : ", bias=False") + ")";
  const std::string pr = d2l::py_float_repr(p), mode = training ? "train()" : "eval()";
  nb.note("d2l builds DotProductAttention (no parameters) and then W_q, W_k, W_v, W_o, each an " + linear +
              " drawn in that order from the generator. " +
              (training ? "train() keeps dropout on: self.dropout zeroes each attention weight with probability " + pr +
                              " and scales the rest by 1/(1 - p)."
                        : std::string("eval() switches dropout off, so the 0.5 has no effect here; --dropout P > 0 "
                                      "runs the module in train mode instead.")) +
              " A notebook echoes a cell's last expression: " + mode + " returns the module, printed as nn.Module "
              "prints it.",
          "d2l 先构造 DotProductAttention（没有参数），再构造 W_q、W_k、W_v、W_o，它们都是 " + linear +
              "，按这个顺序从生成器中抽取权重。" +
              (training ? "train() 让 dropout 保持开启：self.dropout 以 " + pr +
                              " 的概率把每个注意力权重置 0，并把其余的乘以 1/(1 - p)。"
                        : std::string("eval() 关闭了 dropout，所以这里的 0.5 不起作用；--dropout P > 0 "
                                      "会让模块改为在训练模式下运行。")) +
              "笔记本会回显单元格最后一个表达式的值：" + mode + " 返回模块本身，按 nn.Module 的格式打印出来。");
  const std::string per_head = std::to_string(num_hiddens / num_heads);
  nb.explain("query_size, key_size and value_size are the input widths of the three projections; num_hiddens is "
             "their output width for all heads together (the book's d_out), so each head gets num_hiddens / "
             "num_heads = " + per_head + " features (the book's head_dim). W_o maps the concatenated heads back to num_hiddens. " +
             (own_inputs ? std::string("With your embeddings all three input widths are d_in = ") +
                               std::to_string(in_size) + "."
                         : std::string("The post sets all four sizes to 100, the usual transformer choice.")),
             "query_size、key_size 和 value_size 是三个投影的输入宽度；num_hiddens 是它们所有头合起来的输出宽度"
             "（相当于本书的 d_out），所以每个头得到 num_hiddens / num_heads = " + per_head +
             " 个特征（相当于本书的 head_dim）。"
             "W_o 把拼接后的各个头映射回 num_hiddens。" +
             (own_inputs ? "使用你的嵌入时，三个输入宽度都是 d_in = " + std::to_string(in_size) + "。"
                         : std::string("博文把四个尺寸都设为 100，这是 Transformer 的常见设定。")));

  std::string call;
  Tensor X, Y;
  if (own_inputs) {
    nb.cell({"valid_lens = " + lens_code(valid_lens), "attention(X, X, X, valid_lens).shape"});
    X = stack({opt.inputs.embeddings, opt.inputs.embeddings}, 0);
    Y = X;
    call = "attention(X, X, X, valid_lens)";
  } else {
    nb.cell({"batch_size, num_queries = 2, 4", "num_kvpairs, valid_lens = 6, " + lens_code(valid_lens),
             "X = torch.ones((batch_size, num_queries, num_hiddens))",
             "Y = torch.ones((batch_size, num_kvpairs, num_hiddens))", "attention(X, Y, Y, valid_lens).shape"});
    X = ones({kBatchSize, kNumQueries, num_hiddens});
    Y = ones({kBatchSize, kNumKvpairs, num_hiddens});
    call = "attention(X, Y, Y, valid_lens)";
  }
  if (!own_inputs) {
    nb.record("X", X);
    nb.record("Y", Y);
  }
  nb.record("valid_lens", valid_lens);
  d2l::MultiHeadAttentionTrace t;
  const Tensor out = attention.forward(X, Y, Y, valid_lens, gen, opt.bernoulli, &t);
  nb.print(repr_size(out.shape()));
  nb.record(call, out);
  const bool capped = !opt.valid_lens && num_kvpairs < 3;
  const std::string kv = std::to_string(num_kvpairs);
  nb.note(std::string("(batch_size, num_queries, num_hiddens), as the post says. ") +
              (capped ? "valid_lens is the post's [3, 2] capped at the " + kv + " keys. " : "") +
              (own_inputs ? "With --inputs/--tokens the queries, keys and values are your embeddings, stacked twice "
                            "into a batch of 2 (self-attention; query_size = key_size = value_size = d_in). "
                          : "The queries are all ones and so are the keys: every score in a row is equal and the "
                            "weights are simply 1/valid_len (--inputs or --tokens gives real embeddings). ") +
              "The cells below open up " + call + ".",
          std::string("(batch_size, num_queries, num_hiddens)，与博文所说的一致。") +
              (capped ? "valid_lens 是博文的 [3, 2]，但不超过 " + kv + " 个键。" : "") +
              (own_inputs ? "使用 --inputs/--tokens 时，查询、键和值都是你的嵌入，复制两份堆叠成大小为 2 的批次"
                            "（自注意力；query_size = key_size = value_size = d_in）。"
                          : "查询全是 1，键也全是 1：一行中的每个注意力分数都相等，注意力权重就是 1/valid_len"
                            "（--inputs 或 --tokens 可以换成真实的嵌入）。") +
              "下面的单元格拆开 " + call + "。");
  nb.explain(own_inputs
                 ? "Queries, keys and values all come from the same X, so every token of a sequence is a query and a "
                   "key at once, as in the book. valid_lens still hides the keys beyond each sequence's valid length, "
                   "as if the rest were padding. The output has one row per query and num_hiddens columns."
                 : "Keys and values come from Y, " + kv + " key-value pairs per sequence, and queries from X, " +
                       std::to_string(num_queries) + " per sequence, so the output has one row per query. valid_lens "
                       "says how many key-value pairs at the start of each sequence are real; the rest count as "
                       "padding. Only the shape is printed, as in the post.",
             own_inputs
                 ? std::string("查询、键和值都来自同一个 X，所以和本书一样，序列中的每个词元既是查询也是键。"
                               "valid_lens 仍会遮住每个序列有效长度之后的键，就像其余部分是填充一样。"
                               "输出每个查询一行，共 num_hiddens 列。")
                 : "键和值来自 Y，每个序列 " + kv + " 个“键－值”对；查询来自 X，每个序列 " +
                       std::to_string(num_queries) + " 个，所以输出每个查询一行。valid_lens 表示每个序列开头有多少个"
                       "“键－值”对是真实的，其余的都算作填充。和博文一样，这里只打印形状。");

  const int64_t head_dim = num_hiddens / num_heads;
  nb.cell({"# inside " + call, "print(self.W_q.weight)",
           "queries = transpose_qkv(self.W_q(queries), self.num_heads)",
           "keys = transpose_qkv(self.W_k(keys), self.num_heads)",
           "values = transpose_qkv(self.W_v(values), self.num_heads)", "print(queries.shape, keys.shape, values.shape)",
           "print(queries[0])"});
  nb.show("self.W_q.weight", attention.W_q.weight);
  nb.record("queries", t.queries);
  nb.record("keys", t.keys);
  nb.record("values", t.values);
  nb.print(repr_size(t.queries.shape()) + " " + repr_size(t.keys.shape()) + " " + repr_size(t.values.shape()));
  nb.show("queries[0]", select(t.queries, 0, 0));
  const std::string nh = std::to_string(num_hiddens), hd = std::to_string(head_dim),
                    last_col = std::to_string(head_dim - 1);
  nb.note("The post's (Batch, Seq, " + nh + ") --> (Batch * " + h + ", Seq, " + hd + "): one big Linear for all heads, "
              "then transpose_qkv cuts num_hiddens into " + h + " heads of " + hd + " features and stacks them on the "
              "batch axis. queries[0] is sequence 0 seen by head 0: columns 0-" + last_col +
              " of self.W_q(queries)[0].",
          "博文中的 (Batch, Seq, " + nh + ") --> (Batch * " + h + ", Seq, " + hd + ")：所有头共用一个大的 Linear，"
              "然后 transpose_qkv 把 num_hiddens 切成 " + h + " 个头，每个头 " + hd + " 个特征，并把它们堆叠到批次维度上。"
              "queries[0] 是头 0 看到的序列 0：self.W_q(queries)[0] 的第 0-" + last_col + " 列。");
  nb.explain("self.W_q(queries) computes all heads' query vectors with one matrix multiplication, as the book's "
             "W_query does; only afterwards are they cut into heads. Keys and values are split the same way, each "
             "with its own sequence length. The first dimension is now batch_size * num_heads = " +
             std::to_string(t.queries.size(0)) + ": sequence 0's heads first, then sequence 1's.",
             "self.W_q(queries) 用一次矩阵乘法算出所有头的查询向量，和本书的 W_query 一样；之后才把它们切分成各个头。"
             "键和值也以同样的方式拆分，各自保留自己的序列长度。现在第一个维度是 batch_size * num_heads = " +
             std::to_string(t.queries.size(0)) + "：先是序列 0 的各个头，然后是序列 1 的。");

  nb.cell({"valid_lens = torch.repeat_interleave(valid_lens, repeats=self.num_heads, dim=0)", "print(valid_lens)"});
  nb.show("valid_lens", *t.valid_lens);
  const bool per_query = valid_lens.dim() == 2;
  nb.note("Every head of a sequence must hide the same padding, so each sequence's " +
              std::string(per_query ? "row of per-query lengths is" : "valid length is") +
              " repeated num_heads = " + h + " times, in the order transpose_qkv stacked the heads: sequence 0's heads "
              "first.",
          "同一个序列的每个头都必须遮住相同的填充，所以每个序列的" + std::string(per_query ? "那一行逐查询长度" : "有效长度") +
              "重复 num_heads = " + h + " 次，顺序与 transpose_qkv 堆叠各个头的顺序一致：先是序列 0 的各个头。");
  nb.explain("In the folded batch, entry r of queries, keys and values belongs to sequence r // num_heads. "
             "repeat_interleave on dim=0 builds exactly that mapping for the lengths. Inside DotProductAttention, "
             "masked_softmax then expands them once more, to one length per query row.",
             "在折叠后的批次中，queries、keys、values 的第 r 项属于序列 r // num_heads。在 dim=0 上做 "
             "repeat_interleave，正好为长度建立了这种对应关系。之后在 DotProductAttention 内部，masked_softmax "
             "会再展开一次，变成每个查询行一个长度。");
  nb.confusion(std::string("repeat_interleave, not repeat: each sequence's ") +
                   (per_query ? "row" : "length") + " must appear num_heads times IN A ROW, matching transpose_qkv's "
                   "order (sequence 0, all heads), (sequence 1, all heads). valid_lens.repeat(...) would repeat the "
                   "whole tensor instead, alternating the sequences" +
                   (per_query ? "" : " ([a, b] would become [a, b, a, b, ...])") +
                   ", and hand some of sequence 0's heads the lengths of sequence 1: no error, only wrong weights.",
               std::string("是 repeat_interleave，不是 repeat：每个序列的") + (per_query ? "那一行" : "长度") +
                   "必须连续出现 num_heads 次，才能与 transpose_qkv 的顺序（序列 0 的所有头）、（序列 1 的所有头）对应。"
                   "valid_lens.repeat(...) 则会重复整个张量，让各个序列交替出现" +
                   (per_query ? "" : "（[a, b] 会变成 [a, b, a, b, ...]）") +
                   "，把序列 1 的长度交给序列 0 的某些头：不会报错，只是注意力权重错了。");

  nb.cell({"# inside self.attention(queries, keys, values, valid_lens)", "d = queries.shape[-1]",
           "scores = torch.bmm(queries, keys.transpose(1,2)) / math.sqrt(d)", "print(scores.shape)",
           "self.attention_weights = masked_softmax(scores, valid_lens)", "print(self.attention_weights)"});
  nb.record("scores", t.attention.scores);
  nb.print(repr_size(t.attention.scores.shape()));
  nb.record("mask", t.attention.softmax.mask);
  nb.show("self.attention_weights", t.attention.attention_weights);
  nb.note("One (num_queries, num_kvpairs) weight matrix per (sequence, head), scaled by sqrt(d) = sqrt(" + hd +
              "). masked_softmax gives every row its length (" +
              (per_query ? "reshape(-1) of the per-query lengths" : "each length repeated for the queries") +
              "), so in every row only the first valid_len keys get weight: the padded key-value pairs of a sequence "
              "are invisible to all of its heads. (masked_softmax writes -1e6 into scores itself: X.reshape is a "
              "view.)",
          "每个（序列, 头）组合一个 (num_queries, num_kvpairs) 的注意力权重矩阵，缩放因子是 sqrt(d) = sqrt(" + hd +
              ")。masked_softmax 给每一行它的长度（" +
              (per_query ? "逐查询长度经 reshape(-1) 展平" : "每个长度为各个查询重复") +
              "），所以每一行只有前 valid_len 个键得到权重：一个序列中被填充的“键－值”对对它的所有头都不可见。"
              "（masked_softmax 会把 -1e6 直接写进 scores：X.reshape 是视图。）");
  nb.explain(std::string("torch.bmm is batched matrix multiplication for 3-D tensors: for each of the batch_size * "
                         "num_heads entries, one (num_queries, d) @ (d, num_kvpairs) product. d = queries.shape[-1] "
                         "is the size of one head, so the scale is sqrt(head_dim), as in the book. ") +
                 (own_inputs ? "Your embeddings give each query its own pattern of scores over the visible keys."
                             : "With all-ones inputs every score in a row is equal, so each visible key gets exactly "
                               "1 / valid_len."),
             std::string("torch.bmm 是针对三维张量的批处理矩阵乘法：对 batch_size * num_heads 中的每一项各做一次 "
                         "(num_queries, d) @ (d, num_kvpairs) 的乘法。d = queries.shape[-1] 是一个头的大小，"
                         "所以缩放因子是 sqrt(head_dim)，和本书一样。") +
                 (own_inputs ? "你的嵌入让每个查询在可见的键上有各自不同的注意力分数。"
                             : "输入全为 1 时，一行中的每个注意力分数都相等，所以每个可见的键恰好得到 1 / valid_len。"));

  std::vector<std::string> bmm_code = {"output = torch.bmm(self.dropout(self.attention_weights), values)"};
  bmm_code.push_back("print(output.shape)");
  if (training) bmm_code.insert(bmm_code.begin(), "# printed first: self.dropout(self.attention_weights), as bmm receives it");
  nb.cell(bmm_code);
  if (training) nb.show("self.dropout(self.attention_weights)", t.attention.dropped);
  nb.record("output", t.attention.output);
  nb.print(repr_size(t.attention.output.shape()));
  nb.note(training ? "In train mode the weights pass through nn.Dropout first (a fresh mask from the generator, "
                     "after the four weight matrices). Each head's context vectors: (batch_size * num_heads, "
                     "num_queries, head_dim)."
                   : "In eval mode self.dropout returns the weights unchanged. Each head's context vectors: "
                     "(batch_size * num_heads, num_queries, head_dim).",
          training ? "在训练模式下，注意力权重先经过 nn.Dropout（在四个权重矩阵之后从生成器中抽取新的掩码）。"
                     "各个头的上下文向量：(batch_size * num_heads, num_queries, head_dim)。"
                   : "在评估模式下，self.dropout 原样返回注意力权重。各个头的上下文向量："
                     "(batch_size * num_heads, num_queries, head_dim)。");
  nb.explain("torch.bmm multiplies each (num_queries, num_kvpairs) weight matrix with its (num_kvpairs, head_dim) "
             "values: every query's context vector, per sequence and head. Like the book (3.5.2), d2l applies "
             "dropout to the attention weights, and only in training mode.",
             "torch.bmm 把每个 (num_queries, num_kvpairs) 注意力权重矩阵与对应的 (num_kvpairs, head_dim) 值矩阵相乘，"
             "得到每个序列、每个头中每个查询的上下文向量。和本书（3.5.2 节）一样，d2l 把 dropout 用在注意力权重上，"
             "而且只在训练模式下生效。");

  nb.cell({"# back in MultiHeadAttention.forward", "output_concat = transpose_output(output, self.num_heads)",
           "print(output_concat.shape)", "print(self.W_o(output_concat).shape)"});
  nb.record("output_concat", t.output_concat);
  nb.print(repr_size(t.output_concat.shape()));
  nb.print(repr_size(t.result.shape()));
  const std::string concat_shape = shape_text(t.output_concat.shape()), result_shape = shape_text(t.result.shape());
  nb.note("transpose_output undoes the split: the " + h + " heads' " + hd + " features sit side by side again, " +
              concat_shape + ", and W_o mixes them into the final " + result_shape + " = " + call + ".shape.",
          "transpose_output 撤销了拆分：" + h + " 个头各自的 " + hd + " 个特征重新并排放在一起，形状为 " +
              concat_shape + "，W_o 再把它们混合成最终的 " + result_shape + " = " + call + ".shape。");
  nb.explain("transpose_output is the inverse walked through above: unfold the heads from the batch, swap them "
             "back behind the queries, merge them into num_hiddens. W_o, an nn.Linear(num_hiddens, num_hiddens), "
             "then mixes the heads' features like the book's out_proj; d2l's has no bias unless bias=True.",
             "transpose_output 就是上面逐步演示过的逆操作：把各个头从批次维度中展开，换回查询维度之后，再合并成 "
             "num_hiddens。W_o 是 nn.Linear(num_hiddens, num_hiddens)，它像本书的 out_proj 一样混合各个头的特征；"
             "除非 bias=True，否则 d2l 的 W_o 没有偏置。");
  return nb;
}

}  // namespace attn
