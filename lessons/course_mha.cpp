// Seed 002: a course's multi-head attention (a blog post on a Bilibili course). One `Attention`
// module per head, concatenated and projected, replayed cell by cell; then each head is checked
// against the book's CausalAttention (§3.5.3) with the same weights.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "nn/causal_attention.h"
#include "nn/course_attention.h"
#include "lessons/lesson.h"
#include "lessons/lesson_text.h"
#include "core/ops_shape.h"
#include "core/print.h"
#include "nn/self_attention.h"
#include "core/usage_error.h"

namespace attn {

namespace {

// The lesson's hyper-parameters after the preset and the options.
struct CourseConfig {
  bool post = false;            // --preset post: the post's settings on torch.randn input
  int64_t d_model = 0, num_heads = 0, context_length = 0, batch = 2, T = 0;
  double dropout = 0.1;
  uint64_t seed = 123;
  int64_t head_size() const { return d_model / num_heads; }
};

// --preset small: the largest of 3, 2, 1 heads that divides d_model (d_in = 3 gives 3 heads of size 1).
int64_t small_default_heads(int64_t d_model) { return d_model % 3 == 0 ? 3 : d_model % 2 == 0 ? 2 : 1; }

std::string str(int64_t v) { return std::to_string(v); }

CourseConfig resolve(const LessonOptions& opt) {
  CourseConfig c;
  c.post = opt.preset == "post";
  if (opt.qkv_bias)
    throw UsageError("--qkv-bias: the post's Wq, Wk and Wv are nn.Linear(..., bias=False) with no switch for a bias "
                     "(only projection_layer has one); drop --qkv-bias");
  if (c.post && opt.custom_inputs && opt.inputs_source != "tokens")
    throw UsageError("--inputs " + opt.inputs_source + ": --preset post draws its own input, x = torch.randn(2, T, "
                     "d_model); drop --inputs (--tokens \"...\" sets T) or use --preset small");
  if (c.post) {
    c.d_model = opt.d_model.value_or(512);
  } else {
    c.d_model = opt.d_in();
    if (opt.d_model && *opt.d_model != c.d_model)
      throw UsageError("--d-model " + str(*opt.d_model) + ": with --preset small x is the token embeddings, " +
                       str(c.d_model) + " numbers each, and the post feeds x straight into nn.Linear(d_model, ...), "
                       "so d_model is " + str(c.d_model) + "; drop --d-model, give --inputs with " +
                       str(*opt.d_model) + " numbers per token, or use --preset post --d-model " + str(*opt.d_model));
  }
  c.num_heads = opt.heads_or(c.post ? 8 : small_default_heads(c.d_model));
  if (c.d_model % c.num_heads != 0)
    throw UsageError("d_model (" + str(c.d_model) + ") must be divisible by num_heads (" + str(c.num_heads) +
                     "): each head gets d_model // num_heads features and torch.cat of the heads must give d_model "
                     "back for projection_layer (the post has no assert; PyTorch fails there with 'mat1 and mat2 "
                     "shapes cannot be multiplied'); choose --num-heads dividing " + str(c.d_model) +
                     (c.post ? " or another --d-model" : ""));
  c.T = opt.num_tokens();
  c.context_length = opt.context_length ? *opt.context_length : c.post ? 128 : c.T;
  c.dropout = opt.dropout.value_or(0.1);
  c.seed = opt.seed_or(123);
  return c;
}

// "d_model = 3  # comment", with the post's value when it differs.
std::string hyper_line(const std::string& name, const std::string& value, const std::string& post_value,
                       const std::string& comment) {
  std::string line = name + " = " + value + "  # " + comment;
  if (value != post_value) line += " (the post: " + post_value + ")";
  return line;
}

std::vector<std::string> hyperparameter_code(const CourseConfig& c) {
  std::vector<std::string> code = {"# Hyperparameters"};
  code.push_back(hyper_line("context_length", str(c.context_length), "128",
                            c.post ? "Length of the token chunk each batch" : "the number of tokens, as in the book"));
  code.push_back(hyper_line("d_model", str(c.d_model), "512",
                            c.post ? "The size of our model token embeddings" : "the size of the embeddings"));
  if (c.post) code.push_back("num_blocks = 12  # Number of transformer blocks (not used in this lesson)");
  code.push_back(hyper_line("num_heads", str(c.num_heads), "8", "Number of heads in Multi-head attention"));
  code.push_back(hyper_line("dropout", fmt_double(c.dropout), "0.1", "Dropout rate"));
  return code;
}

std::vector<std::string> attention_class_code() {
  return {"import math",
          "import torch",
          "import torch.nn as nn",
          "import torch.nn.functional as F",
          "",
          "class Attention(nn.Module):",
          "    def __init__(self):",
          "        super().__init__()",
          "        # Wq, Wk, Wv: [d_model, d_model // num_heads]",
          "        self.Wq = nn.Linear(d_model, d_model // num_heads, bias=False)",
          "        self.Wk = nn.Linear(d_model, d_model // num_heads, bias=False)",
          "        self.Wv = nn.Linear(d_model, d_model // num_heads, bias=False)",
          "        # a buffer: saved with the module, not trained",
          "        self.register_buffer('mask', torch.tril(torch.ones(context_length, context_length)))",
          "        self.dropout = nn.Dropout(dropout)",
          "",
          "    def forward(self, x):",
          "        B, T, C = x.shape  # [batch, tokens, d_model]",
          "        q = self.Wq(x)",
          "        k = self.Wk(x)",
          "        v = self.Wv(x)",
          "        weights = (q @ k.transpose(-2, -1)) / math.sqrt(d_model // num_heads)  # MatMul and Scale",
          "        weights = weights.masked_fill(self.mask[:T, :T] == 0, float('-inf'))  # Mask",
          "        weights = F.softmax(weights, dim=-1)",
          "        weights = self.dropout(weights)",
          "        output = weights @ v",
          "        return output"};
}

std::vector<std::string> multihead_class_code() {
  return {"class MultiHeadAttention(nn.Module):",
          "    def __init__(self):",
          "        super().__init__()",
          "        self.heads = nn.ModuleList([Attention() for _ in range(num_heads)])",
          "        self.projection_layer = nn.Linear(d_model, d_model)  # Wo",
          "        self.dropout = nn.Dropout(dropout)",
          "",
          "    def forward(self, x):",
          "        head_outputs = [head(x) for head in self.heads]",
          "        head_outputs = torch.cat(head_outputs, dim=-1)  # Concatenate",
          "        out = self.projection_layer(head_outputs)",
          "        out = self.dropout(out)",
          "        return out"};
}

// Entries of a 0/1 keep mask that dropout set to 0, among those where `before` was not already 0.
int64_t dropped_count(const Tensor& keep, const Tensor& before) {
  if (keep.numel() == 0) return 0;
  const std::vector<float> k = keep.values(), b = before.values();
  int64_t n = 0;
  for (size_t i = 0; i < k.size(); ++i) n += k[i] == 0.0f && b[i] != 0.0f;
  return n;
}

int64_t nonzero_count(const Tensor& t) {
  int64_t n = 0;
  for (float v : t.values()) n += v != 0.0f;
  return n;
}

std::string fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// An annotation in both languages.
struct Bi {
  std::string en, zh;
};

// What a dropout with rate p did, for the notes. `what` names the entries: weights or outputs.
Bi dropout_effect(double p, const Tensor& keep, const Tensor& before, const Bi& what) {
  if (p == 0.0)
    return {"With dropout = 0.0 nn.Dropout returns its input unchanged and draws nothing.",
            "dropout = 0.0 时，nn.Dropout 原样返回输入，也不抽取随机数。"};
  if (p == 1.0)
    return {"With dropout = 1.0 every entry becomes 0 (PyTorch multiplies by zero and draws nothing).",
            "dropout = 1.0 时，所有元素都变成 0（PyTorch 直接乘以 0，不抽取随机数）。"};
  const int64_t candidates = nonzero_count(before);
  const std::string pt = fmt_double(p), dropped = str(dropped_count(keep, before)), n = str(candidates),
                    expected = fixed(p * static_cast<double>(candidates), 1), scale = fixed(1.0 / (1.0 - p), 4);
  return {"In training mode nn.Dropout(" + pt + ") zeroed " + dropped + " of the " + n + " nonzero " + what.en +
              " (about " + expected + " expected) and multiplied the rest by 1/(1-p) = " + scale + ".",
          "在训练模式下，nn.Dropout(" + pt + ") 把 " + n + " 个非零" + what.zh + "中的 " + dropped +
              " 个置为 0（期望约为 " + expected + " 个），并把其余的乘以 1/(1-p) = " + scale + "。"};
}

std::string bool_text(bool b) { return b ? "True" : "False"; }

// print(f"head {i}:", o) for a few heads, shapes for many.
void head_output_cells(Notebook& nb, const CourseConfig& c, const CourseMultiHeadTrace& t) {
  const bool each = !c.post;
  std::vector<std::string> code = {"# back in mha(x)", "head_outputs = [head(x) for head in self.heads]"};
  if (each) code.insert(code.end(), {"for i, o in enumerate(head_outputs):", "    print(f\"head {i}:\", o)"});
  else code.push_back("print(len(head_outputs), head_outputs[0].shape)");
  nb.cell(code);
  for (size_t i = 0; i < t.heads.size(); ++i) {
    const std::string name = "head_outputs[" + str(static_cast<int64_t>(i)) + "]";
    if (each) nb.show("head " + str(static_cast<int64_t>(i)) + ":", name, t.heads[i].output);
    else nb.record(name, t.heads[i].output);
  }
  if (!each) nb.print(str(c.num_heads) + " " + repr_size(t.heads[0].output.shape()));
  const std::string shape = shape_text(t.heads[0].output.shape()), heads = str(c.num_heads);
  nb.note("Every head runs the same steps on the same x with its own Wq, Wk, Wv, one after another (a Python "
              "loop: " + heads + " small matmuls per projection where the book's MultiHeadAttention of 3.6.2 "
              "does one big one). Each returns (B, T, head_size) = " + shape + "; its dropout drew its own mask.",
          "每个头都用自己的 Wq、Wk、Wv 对同一个 x 执行相同的步骤，一个接一个地执行（Python 循环：每种投影做 " + heads +
              " 次小的矩阵乘法，而本书 3.6.2 节的 MultiHeadAttention 只做一次大的）。每个头返回 (B, T, head_size) = " +
              shape + "；它的 dropout 抽取了自己的掩码。");
  nb.explain("[head(x) for head in self.heads] calls the Attention modules in list order, so heads[0] draws its "
             "dropout mask first, then heads[1], and so on: the order of the calls fixes which head gets which "
             "random numbers. Apart from that the heads are independent; none of them sees another's output. "
             "This is exactly the structure of the book's MultiHeadAttentionWrapper (3.6.1).",
             "[head(x) for head in self.heads] 按列表顺序调用各个 Attention 模块，所以 heads[0] 先抽取它的 dropout "
             "掩码，然后是 heads[1]，依此类推：调用顺序决定了每个头得到哪些随机数。除此之外各个头相互独立，"
             "谁也看不到其他头的输出。这正是本书 MultiHeadAttentionWrapper（3.6.1 节）的结构。");
}

void comparison_cells(Notebook& nb, const CourseConfig& c, const CourseMultiHeadAttention& mha, const Tensor& x,
                      Generator& gen, BernoulliPath path) {
  nb.heading("002", "Each head is the book's CausalAttention", "每个头就是本书的 CausalAttention");
  nb.cell({"# CausalAttention: the book's listing 3.3 (attn-tutor dropout, 3.5.3)",
           "for i, head in enumerate(mha.heads):",
           "    ca = CausalAttention(d_model, d_model // num_heads, context_length, dropout)",
           "    with torch.no_grad():  # give the book's head this head's weights",
           "        ca.W_query.weight.copy_(head.Wq.weight)",
           "        ca.W_key.weight.copy_(head.Wk.weight)",
           "        ca.W_value.weight.copy_(head.Wv.weight)",
           "    state = torch.get_rng_state()",
           "    out_course = head(x)",
           "    torch.set_rng_state(state)  # the same dropout mask for both",
           "    out_book = ca(x)",
           "    print(i, torch.equal(out_course, out_book), (out_course - out_book).abs().max().item())"});
  bool all_equal = true;
  for (size_t i = 0; i < mha.heads.size(); ++i) {
    const CourseAttention& head = mha.heads[i];
    CausalAttention ca = CausalAttention::init(gen, c.d_model, c.head_size(), c.context_length, c.dropout, false);
    ca.W_query.weight = head.Wq.weight;
    ca.W_key.weight = head.Wk.weight;
    ca.W_value.weight = head.Wv.weight;
    Generator state = gen;
    Tensor out_course = head.forward(x, gen, path);
    Tensor out_book = ca.forward(x, state, path);
    const std::vector<float> a = out_course.values(), b = out_book.values();
    bool equal = a.size() == b.size();
    double max_diff = 0.0;
    for (size_t j = 0; equal && j < a.size(); ++j) {
      equal = a[j] == b[j];
      max_diff = std::max(max_diff, static_cast<double>(std::fabs(a[j] - b[j])));
    }
    all_equal = all_equal && equal;
    nb.record("out_course", out_course);
    nb.record("out_book", out_book);
    nb.print(str(static_cast<int64_t>(i)) + " " + bool_text(equal) + " " + fmt_double(max_diff));
  }
  const std::string hs = str(c.head_size());
  nb.note(std::string(all_equal ? "Bit for bit the same" : "NOT the same") +
              ": with the same weights (and the same dropout draws) an Attention head IS CausalAttention(d_in=d_model, "
              "d_out=d_model // num_heads = " + hs + "). Only the spelling differs: tril(ones) tested "
              "with == 0 instead of triu(ones, diagonal=1).bool(); scaling before the mask instead of after (-inf / s is "
              "still -inf); math.sqrt(" + hs + ") instead of keys.shape[-1]**0.5 (the same float32); "
              "masked_fill returning a new tensor instead of masked_fill_ in place. Constructing each ca drew 3 weights "
              "from the generator; get_rng_state/set_rng_state give both heads the same dropout mask.",
          std::string(all_equal ? "逐位完全相同" : "并不相同") +
              "：权重相同（dropout 抽取的随机数也相同）时，一个 Attention 头就是 CausalAttention(d_in=d_model, "
              "d_out=d_model // num_heads = " + hs + ")。只是写法不同：用 tril(ones) 配合 == 0，而不是 "
              "triu(ones, diagonal=1).bool()；在掩码之前缩放，而不是之后（-inf / s 仍是 -inf）；用 math.sqrt(" + hs +
              ") 而不是 keys.shape[-1]**0.5（float32 结果相同）；masked_fill 返回新张量，而不是用 masked_fill_ "
              "原地修改。构造每个 ca 时从生成器中抽取了 3 个权重矩阵；get_rng_state/set_rng_state "
              "让两个头使用相同的 dropout 掩码。");
  const std::string proj = str(c.d_model * c.d_model + c.d_model), total = str(mha.parameter_count());
  nb.note("So MultiHeadAttention here is the book's MultiHeadAttentionWrapper (3.6.1) with d_out = d_model // "
              "num_heads, plus two things after the cat: projection_layer, a Linear(d_model, d_model) with bias that "
              "mixes the heads' features (the book's out_proj of 3.6.2; " + proj + " of the module's " + total +
              " parameters), and a second nn.Dropout on the output, which the book's MultiHeadAttention does not "
              "have: its GPT model (chapter 4) applies that dropout outside the attention module, as drop_shortcut.",
          "所以这里的 MultiHeadAttention 就是 d_out = d_model // num_heads 的本书 MultiHeadAttentionWrapper"
              "（3.6.1 节），只是在拼接之后多了两样东西：projection_layer，一个带偏置的 Linear(d_model, d_model)，"
              "用来混合各个头的特征（即本书 3.6.2 节的 out_proj；占模块 " + total + " 个参数中的 " + proj +
              " 个）；以及输出上的第二个 nn.Dropout，本书的 MultiHeadAttention 没有它：本书的 GPT 模型（第 4 章）"
              "在注意力模块之外以 drop_shortcut 的形式应用这个 dropout。");
  nb.explain("For each head the cell builds one of the book's CausalAttention modules with d_in = d_model and "
             "d_out = head_size and copies the head's three weight matrices into it. get_rng_state saves the "
             "generator before the course's head runs and set_rng_state rewinds it before the book's, so both "
             "draw the same dropout mask. torch.equal asks for bit-for-bit equality, and the last number is the "
             "largest absolute difference between the two outputs.",
             "这个单元为每个头构造一个本书的 CausalAttention 模块，d_in = d_model，d_out = head_size，"
             "并把这个头的三个权重矩阵复制进去。get_rng_state 在课程的头运行之前保存生成器状态，set_rng_state "
             "在本书的模块运行之前把它恢复，因此两者抽取的 dropout 掩码相同。torch.equal 要求逐位相等，"
             "最后一个数是两个输出之间的最大绝对差。");
}

}  // namespace

Notebook course_mha_lesson(const LessonOptions& opt) {
  const CourseConfig c = resolve(opt);
  Notebook nb = lesson_notebook("course-mha", {"002"}, opt);
  const std::string seed_code = "torch.manual_seed(" + fmt_seed(opt, 123) + ")";
  const std::string d_model = str(c.d_model), heads = str(c.num_heads), hs = str(c.head_size());

  nb.heading("002", "A course's Attention head and MultiHeadAttention", "一门课程中的 Attention 头与 MultiHeadAttention");
  nb.cell(hyperparameter_code(c));
  if (c.post) {
    nb.note("The post's hyper-parameters. Its classes read them as globals, so they come first. The input of "
                "the lesson is torch.randn standing in for the post's embeddings (its token and position embeddings "
                "come in a later post), with T = " + str(c.T) + " tokens (--tokens sets T); context_length only sizes "
                "the mask buffer, of which mask[:T, :T] is used.",
            "博文中的超参数。它的类把这些超参数当作全局变量读取，所以要先定义。本课用 torch.randn 代替博文中的嵌入"
                "（词元嵌入和位置嵌入在后续的博文中介绍），共 T = " + str(c.T) + " 个词元（--tokens 可以设定 T）；"
                "context_length 只决定掩码缓冲区的大小，实际只用到 mask[:T, :T]。");
  } else {
    const bool several = c.num_heads > 1;
    nb.note(std::string(opt.custom_inputs ? "The token embeddings" : "The chapter's six embeddings") +
                " go straight in as x, so d_model is their size, " + d_model + ", and num_heads must divide it. " +
                (opt.num_heads ? "--num-heads " + heads + " gives "
                               : "The default (the largest of 3, 2, 1 that divides d_model) is ") +
                heads + (several ? " heads" : " head") + " of size " + hs +
                (several ? ": several heads to concatenate, each seeing a " + hs + "-d projection of every token"
                         : "") +
                (c.head_size() == 1 ? ". sqrt(head_size) is 1, so the scaling does nothing here (--preset post "
                                      "divides by sqrt(64) = 8.0)"
                                    : "") +
                (opt.dropout ? "." : ". The post's dropout rate 0.1 stays, so both dropouts show; --dropout 0 "
                                     "switches them off."),
            std::string(opt.custom_inputs ? "这些词元嵌入" : "本章的 6 个嵌入") + "直接作为 x 输入，所以 d_model "
                "就是它们的维度 " + d_model + "，num_heads 必须能整除它。" +
                (opt.num_heads ? "--num-heads " + heads + " 给出 " : "默认值（3、2、1 中能整除 d_model 的最大者）给出 ") +
                heads + " 个大小为 " + hs + " 的头" +
                (several ? "：要拼接多个头，每个头看到每个词元的 " + hs + " 维投影" : "") +
                (c.head_size() == 1 ? "。sqrt(head_size) 等于 1，所以这里的缩放不起作用（--preset post 会除以 "
                                      "sqrt(64) = 8.0）"
                                    : "") +
                (opt.dropout ? "。" : "。博文的 dropout 率 0.1 保持不变，所以两处 dropout 都能看到效果；"
                                     "--dropout 0 可以关闭它们。"));
  }
  nb.explain("The course's classes take no constructor arguments: Attention and MultiHeadAttention read "
             "context_length, d_model, num_heads and dropout as module-level globals. That keeps the classes short, "
             "but every instance depends on whatever these globals hold when it is built and run; the book passes "
             "the same numbers as arguments (d_in, d_out, context_length, dropout, num_heads). d_model plays the "
             "role of the book's d_in, and also of the total width of all heads together.",
             "课程中的类没有构造参数：Attention 和 MultiHeadAttention 把 context_length、d_model、num_heads 和 "
             "dropout 当作模块级的全局变量读取。这让类的代码很简短，但每个实例都依赖于构造和运行时这些全局变量的值；"
             "本书则把同样的数作为参数传入（d_in、d_out、context_length、dropout、num_heads）。d_model 相当于本书的 "
             "d_in，同时也是所有头合起来的总宽度。");

  nb.cell(attention_class_code());
  nb.note("One head. Compared with the book's CausalAttention (3.5.3): the sizes are globals, not arguments; the "
          "mask buffer is the lower triangle (1 = may attend) and is tested with == 0, where the book stores the "
          "upper triangle and calls .bool(); the scores are scaled by math.sqrt(d_model // num_heads) before "
          "masking, where the book divides by keys.shape[-1]**0.5 after.",
          "一个头。与本书的 CausalAttention（3.5.3 节）相比：各个尺寸是全局变量而不是参数；掩码缓冲区是下三角矩阵"
          "（1 表示可以关注），用 == 0 来判断，而本书存储上三角矩阵并调用 .bool()；注意力分数在掩码之前就除以 "
          "math.sqrt(d_model // num_heads)，而本书在掩码之后才除以 keys.shape[-1]**0.5。");
  nb.explain("forward is the book's scaled dot-product attention with a causal mask, step by step: project x to q, "
             "k and v; score every query against every key; scale; hide the later tokens; softmax; dropout; weight "
             "the values. Of B, T, C = x.shape only T is used, to cut the mask to the sequence length. "
             "register_buffer makes the mask part of the module (saved with it and moved with it to the GPU) "
             "without making it a trainable parameter.",
             "forward 就是本书带因果掩码的缩放点积注意力，逐步执行：把 x 投影为 q、k、v；计算每个查询向量与每个键向量的"
             "注意力分数；缩放；遮住后面的词元；softmax；dropout；对值向量加权求和。B, T, C = x.shape 中只用到了 T，"
             "用来把掩码截取到序列长度。register_buffer 让掩码成为模块的一部分（随模块保存，也随模块移动到 GPU），"
             "但不会成为可训练的参数。");

  nb.cell(multihead_class_code());
  nb.note("num_heads Attention modules in an nn.ModuleList, their outputs concatenated along the last dimension, "
          "then the projection Wo and a second dropout. Each head produces d_model // num_heads columns, so the cat "
          "is d_model wide again.",
          "nn.ModuleList 中有 num_heads 个 Attention 模块，它们的输出沿最后一个维度拼接，然后经过投影 Wo 和第二个 "
          "dropout。每个头产生 d_model // num_heads 列，所以拼接后的宽度又是 d_model。");
  nb.explain("nn.ModuleList, unlike a plain Python list, registers the heads as submodules, so their weights appear "
             "in mha.parameters() and move with the module. forward runs the heads one after another on the same x, "
             "concatenates their outputs and lets projection_layer (Wo) combine them into the module's output.",
             "与普通的 Python 列表不同，nn.ModuleList 会把各个头注册为子模块，所以它们的权重会出现在 mha.parameters() "
             "中，并随模块一起移动。forward 对同一个 x 依次运行各个头，拼接它们的输出，再由 projection_layer（Wo）"
             "把它们组合成模块的输出。");
  nb.confusion("This class is built like the book's MultiHeadAttentionWrapper (a list of heads and a cat), but its "
               "sizes follow the book's MultiHeadAttention: d_model is the TOTAL width, each head gets d_model // "
               "num_heads = " + hs + " wide, and the cat is d_model = " + d_model + " wide. In the wrapper, "
               "d_out is PER HEAD and the cat is num_heads * d_out wide. So this is the wrapper with d_out = "
               "d_model // num_heads, not d_out = d_model.",
               "这个类的结构像本书的 MultiHeadAttentionWrapper（一组头再拼接），但尺寸的约定与本书的 MultiHeadAttention "
               "相同：d_model 是总宽度，每个头得到 d_model // num_heads = " + hs + " 个特征，拼接后宽度为 d_model = " +
               d_model + "。在封装类中 d_out 是每个头的维度，拼接后的宽度是 num_heads * d_out。所以它相当于 "
               "d_out = d_model // num_heads 的封装类，而不是 d_out = d_model。");

  Tensor x;
  Generator gen;
  if (!c.post) {
    std::vector<std::string> code = inputs_code(opt);
    code.insert(code.end(), {"x = torch.stack((inputs, inputs), dim=0)  # the book's batch: [B, T, d_model]",
                             "print(x.shape)"});
    nb.cell(code);
    x = stack({opt.inputs.embeddings, opt.inputs.embeddings}, 0);
    nb.record("x", x);
    nb.print(repr_size(x.shape()));
    const std::string shape = shape_text(x.shape());
    nb.note(std::string(opt.custom_inputs ? "The token embeddings" : "The chapter's embeddings") +
                " stacked twice, as the book builds its batch (3.5.3): x is [B, T, d_model] = " + shape + ".",
            std::string(opt.custom_inputs ? "把这些词元嵌入" : "把本章的嵌入") +
                "复制两份堆叠起来，和本书构造批次的方法（3.5.3 节）相同：x 的形状为 [B, T, d_model] = " + shape + "。");
    nb.explain("The course writes shapes as [B, T, C]: batch, tokens (time steps) and channels, here d_model. "
               "torch.stack adds the new batch dimension in front; since both texts are the same, both halves of "
               "every result below are the same too (the dropout masks aside, which are drawn per element).",
               "课程把形状写作 [B, T, C]：批次、词元（时间步）和通道，这里的通道数就是 d_model。torch.stack "
               "在最前面新增批次维度；由于两个文本相同，下面每个结果的两半也相同（dropout 掩码除外，它是逐元素抽取的）。");
  }

  nb.cell({seed_code, "mha = MultiHeadAttention()", "print(sum(p.numel() for p in mha.parameters()))",
           "print(mha.heads[0].Wq.weight)"});
  gen.manual_seed(c.seed);
  const CourseMultiHeadAttention mha = CourseMultiHeadAttention::init(gen, c.d_model, c.num_heads, c.context_length,
                                                                      c.dropout);
  nb.print(str(mha.parameter_count()));
  nb.show("mha.heads[0].Wq.weight", mha.heads[0].Wq.weight);
  const std::string params = str(mha.parameter_count());
  nb.note("nn.Linear draws its weights from the seeded generator in construction order: heads[0].Wq, .Wk, .Wv, then "
              "heads[1] and so on, projection_layer's weight and bias last; the mask buffers and nn.Dropout draw "
              "nothing. Parameters: num_heads x 3 x d_model x head_size + d_model x d_model + d_model = " + params +
              ".",
          "nn.Linear 按构造顺序从设定了种子的生成器中抽取权重：先是 heads[0] 的 Wq、Wk、Wv，然后是 heads[1]，"
              "依此类推，最后是 projection_layer 的权重和偏置；掩码缓冲区和 nn.Dropout 不抽取随机数。参数个数："
              "num_heads × 3 × d_model × head_size + d_model × d_model + d_model = " + params + "。");
  nb.explain("nn.Linear stores its weight as (out_features, in_features), so heads[0].Wq.weight is (head_size, "
             "d_model) = (" + hs + ", " + d_model + ") and the layer computes x @ W.T. Its entries are uniform in "
             "[-1/sqrt(in_features), 1/sqrt(in_features)], PyTorch's default initialisation. requires_grad=True "
             "marks it as a parameter that training will update.",
             "nn.Linear 以 (out_features, in_features) 的形状存储权重，所以 heads[0].Wq.weight 的形状是 "
             "(head_size, d_model) = (" + hs + ", " + d_model + ")，这一层计算的是 x @ W.T。它的元素在 "
             "[-1/sqrt(in_features), 1/sqrt(in_features)] 内均匀分布，这是 PyTorch 的默认初始化。requires_grad=True "
             "表示它是训练时会被更新的参数。");

  if (c.post) {
    nb.cell({"x = torch.randn(" + str(c.batch) + ", " + str(c.T) + ", d_model)  # stand-in for " + str(c.T) +
                 " token embeddings",
             "print(x.shape)", "print(x)"});
    x = Tensor({c.batch, c.T, c.d_model}, randn_values(gen, c.batch * c.T * c.d_model));
    nb.print(repr_size(x.shape()));
    nb.show("x", x);
    nb.note("Drawn after the module, so the weights depend on the seed only. With more than 1000 elements PyTorch "
            "summarises the printout with '...'.",
            "在模块之后抽取，所以权重只取决于种子。元素超过 1000 个时，PyTorch 会用 '...' 省略打印的中间部分。");
    const std::string shape = shape_text(x.shape());
    nb.explain("torch.randn draws from the standard normal distribution; here it stands in for real token "
               "embeddings, which in the post's model would also carry position information. The shape [B, T, "
               "d_model] = " + shape + " is what the module expects: a batch of " + str(c.batch) + " sequences of " +
               str(c.T) + " tokens.",
               "torch.randn 从标准正态分布中抽样；这里用它代替真正的词元嵌入，在博文的模型中嵌入还会包含位置信息。"
               "形状 [B, T, d_model] = " + shape + " 正是模块所期望的输入：一个批次，含 " + str(c.batch) + " 个序列，"
               "每个序列 " + str(c.T) + " 个词元。");
  }

  nb.heading("002", "Forward: every head, the cat, the projection", "前向传播：各个头、拼接与投影");
  nb.cell({"out = mha(x)", "print(out)"});
  CourseMultiHeadTrace t;
  const Tensor out = mha.forward(x, gen, opt.bernoulli, &t);
  nb.show("out", out);
  nb.note("[B, T, d_model] in, [B, T, d_model] out. The cells below open up this one call: the steps of "
          "heads[0], the other heads, the cat, the projection and the last dropout.",
          "输入 [B, T, d_model]，输出 [B, T, d_model]。下面的单元格拆开这一次调用：heads[0] 的各个步骤、其他头、"
          "拼接、投影和最后的 dropout。");
  nb.explain(std::string("The output has the same shape as the input, which is what lets a transformer stack such "
                         "blocks one on top of another. ") +
                 (c.dropout > 0.0 && c.dropout < 1.0
                      ? "A new module is in training mode, so both dropouts draw random masks during this call. "
                      : "") +
                 "The cells below show the intermediates of this very call, so their numbers lead exactly to this out.",
             std::string("输出与输入形状相同，正因如此 Transformer 才能把这样的模块一层层堆叠起来。") +
                 (c.dropout > 0.0 && c.dropout < 1.0 ? "新建的模块处于训练模式，所以两处 dropout 在这次调用中都会抽取随机掩码。"
                                                     : "") +
                 "下面的单元格展示的正是这一次调用的中间结果，它们的数值一步步得出这个 out。");

  const CourseAttentionTrace& h = t.heads[0];
  std::vector<std::string> qkv = {"# inside mha(x): heads[0](x)", "B, T, C = x.shape", "q = self.Wq(x)",
                                  "k = self.Wk(x)", "v = self.Wv(x)", "print(q)"};
  if (c.post) qkv.insert(qkv.end(), {"print(k.shape, v.shape)"});
  else qkv.insert(qkv.end(), {"print(k)", "print(v)"});
  nb.cell(qkv);
  nb.show("q", h.q);
  if (c.post) {
    nb.record("k", h.k);
    nb.record("v", h.v);
    nb.print(repr_size(h.k.shape()) + " " + repr_size(h.v.shape()));
  } else {
    nb.show("k", h.k);
    nb.show("v", h.v);
  }
  const std::string q_shape = shape_text(h.q.shape());
  nb.note("Each head projects every token from d_model = " + d_model + " to head_size = d_model // num_heads = " + hs +
              " numbers: q, k, v are [B, T, head_size] = " + q_shape + ".",
          "每个头把每个词元从 d_model = " + d_model + " 维投影到 head_size = d_model // num_heads = " + hs +
              " 维：q、k、v 的形状是 [B, T, head_size] = " + q_shape + "。");
  nb.explain("Wq, Wk and Wv are this head's own projections, without bias. In the book's terms q, k and v hold the "
             "query, key and value vectors of every token: the query asks what a token is looking for, the key is "
             "what it offers to be matched against, the value is what it passes on. The other heads repeat this step "
             "with their own weights, each seeing its own " + hs + "-dimensional view of the tokens.",
             "Wq、Wk、Wv 是这个头自己的投影，没有偏置。按本书的术语，q、k、v 存放每个词元的查询向量、键向量和值向量："
             "查询向量表示这个词元要寻找什么，键向量是它供其他词元匹配的标签，值向量是它要传递的内容。"
             "其他头用各自的权重重复这一步，各自看到词元的一个 " + hs + " 维视角。");

  nb.cell({"weights = (q @ k.transpose(-2, -1)) / math.sqrt(d_model // num_heads)", "print(q @ k.transpose(-2, -1))",
           "print(weights)", "print(math.sqrt(d_model // num_heads), k.shape[-1]**0.5)"});
  nb.show("q @ k.transpose(-2, -1)", h.scores);
  nb.show("weights", h.scaled);
  nb.print(fmt_double(math_sqrt(c.head_size())) + " " + fmt_double(sqrt_d_k(c.head_size())));
  nb.note("transpose(-2, -1) swaps the last two dimensions, so the product is [B, T, T]: row i holds token i's "
          "scores against every token. The post divides by math.sqrt(d_model // num_heads), a number fixed by "
          "the globals; the book divides by keys.shape[-1]**0.5, read off the tensor. Both are sqrt(head_size), "
          "not sqrt(d_model): each head's dot products have head_size terms.",
          "transpose(-2, -1) 交换最后两个维度，所以乘积的形状是 [B, T, T]：第 i 行是词元 i 对每个词元的注意力分数。"
          "博文除以 math.sqrt(d_model // num_heads)，这个数由全局变量决定；本书除以 keys.shape[-1]**0.5，"
          "从张量的形状中读出。两者都是 sqrt(head_size)，而不是 sqrt(d_model)：每个头的点积只有 head_size 项。");
  nb.explain("Counting from the end, transpose(-2, -1) swaps tokens and features of k whatever comes in front, "
             "here the batch. Without the scaling, the spread of the dot products grows with the number of terms, "
             "and softmax would push almost all weight onto one key, with tiny gradients elsewhere. The two numbers "
             "printed last are the post's and the book's scale, the same float.",
             "transpose(-2, -1) 从末尾数维度，无论前面是什么（这里是批次维度），交换的都是 k 的词元维度和特征维度。"
             "如果不缩放，点积的波动范围会随项数增大，softmax 会把几乎全部权重压到一个键上，其余位置的梯度极小。"
             "最后打印的两个数分别是博文和本书的缩放因子，两者是同一个浮点数。");
  nb.confusion("The course calls this tensor weights, but it holds attention SCORES: dot products not yet normalised "
               "(they can be negative and the rows do not sum to 1). In the book's terms it stays attention scores "
               "until the softmax and only then becomes attention weights; the course keeps the one name weights for "
               "all four stages (scaled, masked, softmax, dropout).",
               "博文把这个张量叫作 weights，但它存放的是注意力分数：尚未归一化的点积（可以为负，每行之和也不为 1）。"
               "按本书的术语，在 softmax 之前它一直是注意力分数，softmax 之后才成为注意力权重；博文在缩放、掩码、"
               "softmax、dropout 四个阶段都沿用 weights 这一个名字（它在 softmax 一行的注释里甚至把结果称作"
               "“注意力分数”）。");

  nb.cell({"print(self.mask[:T, :T])", "print(self.mask[:T, :T] == 0)",
           "print(torch.equal(self.mask[:T, :T] == 0, torch.triu(torch.ones(T, T), diagonal=1).bool()))",
           "weights = weights.masked_fill(self.mask[:T, :T] == 0, float('-inf'))", "print(weights)"});
  nb.show("self.mask[:T, :T]", h.mask);
  nb.show("self.mask[:T, :T] == 0", h.mask_is_zero);
  const Tensor book_mask = to_bool(triu(ones({c.T, c.T}), 1));
  nb.print(bool_text(book_mask.values() == h.mask_is_zero.values()));
  nb.show("weights", h.masked);
  const std::string cl = str(c.context_length);
  nb.note("The buffer is tril(ones(" + cl + ", " + cl + ")): 1 where a token may look (itself and earlier). == 0 "
              "turns it into True where it may NOT look, the same bool mask as the book's triu(ones, diagonal=1)."
              "bool(). masked_fill writes -inf there, and returns a new tensor (the book's masked_fill_ works in "
              "place).",
          "缓冲区是 tril(ones(" + cl + ", " + cl + "))：词元可以关注的位置（它自己和之前的词元）为 1。== 0 "
              "把它变成在不能关注的位置为 True，与本书的 triu(ones, diagonal=1).bool() 是同一个布尔掩码。"
              "masked_fill 在这些位置写入 -inf，并返回一个新张量（本书的 masked_fill_ 是原地修改）。");
  nb.explain("self.mask[:T, :T] cuts the context_length x context_length buffer to the T tokens of this input. The "
             "torch.equal line checks, element by element, that the course's mask == 0 and the book's mask are the "
             "same. After masked_fill every score above the diagonal is -inf, so the softmax in the next cell gives "
             "it a weight of exactly 0: no token can draw information from a later one.",
             "self.mask[:T, :T] 把 context_length × context_length 的缓冲区截取到这次输入的 T 个词元。torch.equal "
             "那一行逐元素检查课程的 mask == 0 与本书的掩码是否相同。masked_fill 之后，对角线以上的注意力分数都是 "
             "-inf，下一个单元格中的 softmax 会给它们恰好为 0 的注意力权重：任何词元都无法从它之后的词元获取信息。");
  nb.confusion("The two buffers mean opposite things. The course's tril(ones) has 1 = MAY attend, so the positions to "
               "hide are mask == 0; the book's triu(ones, diagonal=1) has 1 = must NOT attend, so it is used as "
               "mask.bool(). Mixing the conventions fails silently: masked_fill(tril_mask.bool(), -inf), or "
               "masked_fill(triu_mask == 0, -inf), hides each token itself and everything before it and keeps the "
               "future; the last row becomes all -inf and its softmax nan.",
               "两个缓冲区的含义正好相反。课程的 tril(ones) 中 1 表示可以关注，所以要遮住的是 mask == 0 的位置；"
               "本书的 triu(ones, diagonal=1) 中 1 表示不能关注，所以直接用 mask.bool()。把两种约定混用不会报错："
               "masked_fill(tril_mask.bool(), -inf) 或 masked_fill(triu_mask == 0, -inf) 会遮住每个词元自己和它之前"
               "的所有词元，反而保留了未来的词元；最后一行会全部变成 -inf，softmax 之后得到 nan。");

  nb.cell({"weights = F.softmax(weights, dim=-1)", "print(weights)"});
  nb.show("weights", h.softmaxed);
  nb.note("exp(-inf) = 0, so each row spreads its weight over the tokens up to itself only, and sums to 1.",
          "exp(-inf) = 0，所以每一行只把权重分配给它自己及之前的词元，且和为 1。");
  nb.explain("softmax exponentiates each score and divides by the row's sum, turning attention scores into attention "
             "weights. After the mask, row i has only i + 1 finite entries: the first token can only attend to "
             "itself, so its row is 1 followed by zeros, and the last token spreads its weight over all T tokens.",
             "softmax 对每个注意力分数取指数，再除以所在行的和，把注意力分数变成注意力权重。掩码之后，第 i 行只有 "
             "i + 1 个有限值：第一个词元只能关注它自己，所以它那一行是 1 后面跟着若干 0，而最后一个词元把权重分配给"
             "全部 T 个词元。");
  nb.confusion("dim=-1, the keys. With the batch dimension in front, weights is [B, T, T] and dim=1 is the QUERY "
               "dimension: F.softmax(weights, dim=1) runs without error but makes each column sum to 1 instead of "
               "each row. The book's 2-D code in 3.5.1 could write dim=1 only because there the last dimension was 1.",
               "是 dim=-1，即键的维度。前面多了批次维度后，weights 的形状是 [B, T, T]，dim=1 变成了查询的维度："
               "F.softmax(weights, dim=1) 不会报错，但会让每一列（而不是每一行）的和为 1。本书 3.5.1 节的二维代码之所以"
               "能写 dim=1，只是因为在那里最后一个维度恰好是 1。");

  nb.cell({"weights = self.dropout(weights)", "print(weights)"});
  nb.show("weights", h.dropped);
  const Bi first = dropout_effect(c.dropout, h.dropout_keep, h.softmaxed, {"weights", "注意力权重"});
  nb.note("The first dropout, on the attention weights, as in the book. " + first.en,
          "第一处 dropout 作用在注意力权重上，和本书一样。" + first.zh);
  nb.explain("nn.Dropout is only active in training mode, which a new module is in; after mha.eval() it returns its "
             "input unchanged. Dropping attention weights means that, in this forward pass, a token ignores some of "
             "the tokens it could attend to; the rest are scaled up so that the expected total stays the same, and "
             "the rows no longer sum to exactly 1.",
             "nn.Dropout 只在训练模式下起作用，新建的模块默认处于训练模式；调用 mha.eval() 之后它原样返回输入。"
             "丢弃注意力权重意味着在这一次前向传播中，词元会忽略一部分本可以关注的词元；其余的权重被放大，"
             "使期望的总和保持不变，因此每行之和不再恰好为 1。");

  nb.cell({"output = weights @ v", "print(output)"});
  nb.show("output", h.output);
  nb.note("[B, T, T] @ [B, T, head_size] = [B, T, head_size]: each token's mix of the values it may attend to. "
          "This is the head's return value.",
          "[B, T, T] @ [B, T, head_size] = [B, T, head_size]：每个词元对它可以关注的值向量的加权组合。"
          "这就是这个头的返回值。");
  nb.explain("Row i of output is the sum of the value vectors of tokens 0..i, each weighted by token i's attention "
             "weight for it: token i's context vector in this head. It has only head_size = " + hs + " numbers; "
             "the cat below brings the heads back to d_model = " + d_model + ".",
             "output 的第 i 行是词元 0..i 的值向量之和，每个值向量乘以词元 i 对它的注意力权重：这就是词元 i 在这个头中的"
             "上下文向量。它只有 head_size = " + hs + " 个数；下面的拼接会把各个头合起来，恢复到 d_model = " + d_model +
             "。");

  head_output_cells(nb, c, t);

  nb.cell({"head_outputs = torch.cat(head_outputs, dim=-1)", "print(head_outputs)"});
  nb.show("head_outputs", t.head_outputs);
  nb.note("The heads side by side: " +
              (c.head_size() == 1 ? std::string("column i is head i's output")
                                  : "columns 0.." + str(c.head_size() - 1) + " are head 0, the next " + hs +
                                        " head 1, and so on") +
              "; " + heads + " x " + hs + " = d_model = " + d_model + ". Up to here nothing connects the heads.",
          "各个头并排放在一起：" +
              (c.head_size() == 1 ? std::string("第 i 列是第 i 个头的输出")
                                  : "第 0.." + str(c.head_size() - 1) + " 列是第 0 个头，接下来的 " + hs +
                                        " 列是第 1 个头，依此类推") +
              "；" + heads + " × " + hs + " = d_model = " + d_model + "。到这里为止，各个头之间还没有任何联系。");
  nb.explain("torch.cat joins tensors along an existing dimension, here the last one, so the result is [B, T, "
             "num_heads * head_size] = [B, T, d_model]; torch.stack would instead add a new dimension for the heads. "
             "Each token's row is simply its context vectors from all heads, one after another.",
             "torch.cat 沿已有的维度（这里是最后一个维度）连接张量，所以结果是 [B, T, num_heads * head_size] = "
             "[B, T, d_model]；torch.stack 则会为各个头新增一个维度。每个词元的一行就是它在所有头中的上下文向量，"
             "依次排列。");

  nb.cell({"out = self.projection_layer(head_outputs)", "print(self.projection_layer.weight)",
           "print(self.projection_layer.bias)", "print(out)"});
  nb.show("self.projection_layer.weight", mha.projection_layer.weight);
  nb.show("self.projection_layer.bias", *mha.projection_layer.bias);
  nb.show("out", t.projected);
  nb.note("Wo: every output feature is a weighted sum over ALL heads' features plus a bias, so the heads are mixed "
          "instead of merely placed side by side. Same shape in and out: [B, T, d_model].",
          "Wo：每个输出特征都是所有头的特征的加权和再加上偏置，所以各个头被混合起来，而不只是并排放置。"
          "输入和输出的形状相同：[B, T, d_model]。");
  nb.explain("projection_layer is nn.Linear(d_model, d_model) with bias: out = head_outputs @ W.T + b. It is the "
             "W^O of the transformer paper and the book's out_proj (3.6.2). As the post puts it, it lets the model "
             "learn how to combine the features of the different heads, instead of leaving them unrelated.",
             "projection_layer 是带偏置的 nn.Linear(d_model, d_model)：out = head_outputs @ W.T + b。它就是 "
             "Transformer 论文中的 W^O，也是本书的 out_proj（3.6.2 节）。正如博文所说，它让模型学习如何组合不同注意力头"
             "的特征，让各个头之间产生关联，而不只是简单拼接。");

  nb.cell({"out = self.dropout(out)", "print(out)"});
  nb.show("out", t.out);
  const Bi second = dropout_effect(c.dropout, t.dropout_keep, t.projected, {"outputs", "输出值"});
  nb.note("The second dropout, on the module's output; the book's MultiHeadAttention has none here. " + second.en +
              " This is the out printed above.",
          "第二处 dropout 作用在模块的输出上；本书的 MultiHeadAttention 在这里没有 dropout。" + second.zh +
              "这就是上面打印的 out。");
  nb.explain("This dropout regularises the output of the whole attention block. The book's GPT model in chapter 4 "
             "has the same dropout, but outside the attention module (drop_shortcut in the transformer block). So "
             "the course's module computes the same function as the book's MultiHeadAttention (with the heads' "
             "weights side by side in W_query, W_key and W_value) only when this dropout is off: rate 0 or eval mode.",
             "这个 dropout 对整个注意力模块的输出做正则化。本书第 4 章的 GPT 模型也有同样的 dropout，只是放在注意力模块"
             "之外（Transformer 块中的 drop_shortcut）。所以只有在关掉这个 dropout（dropout 率为 0 或处于评估模式）时，"
             "课程的模块才与本书的 MultiHeadAttention 计算同一个函数（把各个头的权重并排放进 W_query、W_key、W_value）。");

  comparison_cells(nb, c, mha, x, gen, opt.bernoulli);
  return nb;
}

}  // namespace attn
