// §3.4.1-3.4.2: scaled dot-product attention with trainable W_query, W_key, W_value, step by step,
// then as the SelfAttention_v1 and SelfAttention_v2 classes, and exercise 3.1.
#include <cmath>

#include "lessons/lesson.h"
#include "lessons/lesson_text.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "core/print.h"
#include "nn/self_attention.h"

namespace attn {

namespace {

Tensor weight_param(Generator& gen, const LessonOptions& opt, int64_t d_in, int64_t d_out) {
  std::vector<float> v = opt.init == Init::Rand ? rand_values(gen, d_in * d_out) : randn_values(gen, d_in * d_out);
  Tensor p({d_in, d_out}, std::move(v));
  p.set_parameter(true);  // requires_grad=False: no suffix when printed
  return p;
}

int64_t argmax(const std::vector<float>& v) {
  int64_t best = 0;
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i] > v[static_cast<size_t>(best)]) best = static_cast<int64_t>(i);
  return best;
}

}  // namespace

Notebook trainable_lesson(const LessonOptions& opt) {
  Notebook nb = lesson_notebook("trainable", {"3.4.1", "3.4.2"}, opt);
  const Tensor& inputs = opt.inputs.embeddings;
  const std::string journey = quoted_token(opt, 1);
  const int64_t d_in = inputs.size(1), d_out = opt.d_out;
  const std::string draw = opt.init == Init::Rand ? "torch.rand" : "torch.randn";
  const std::string N = std::to_string(inputs.size(0)), D = std::to_string(d_in), DO = std::to_string(d_out);
  Generator gen;

  nb.heading("3.4.1", "Computing the attention weights step by step", "逐步计算注意力权重");
  std::vector<std::string> setup = inputs_code(opt);
  setup.insert(setup.end(), {"x_2 = inputs[1]  # second input element", "d_in = inputs.shape[1]  # the input embedding size",
                             "d_out = " + std::to_string(d_out) + "  # the output embedding size", "print(d_in, d_out)"});
  nb.cell(setup);
  nb.record("inputs", inputs);
  Tensor x_2 = select(inputs, 0, 1);
  nb.record("x_2", x_2);
  nb.print(std::to_string(d_in) + " " + std::to_string(d_out));
  nb.note("x_2 is " + journey + ". d_in is the embedding size; d_out the size we project to (GPT models use "
              "d_in = d_out; the book picks different sizes to make the shapes easy to follow).",
          "x_2 是 " + journey + "。d_in 是嵌入维度，d_out 是投影后的维度（类 GPT 模型中通常 d_in = d_out；"
              "书中取不同的大小，是为了让形状的变化更容易看清）。");
  nb.explain("This section turns the simplified attention of §3.3 into the one GPT uses, scaled dot-product "
                 "attention, with three trainable weight matrices. As in §3.3 we first compute a single context "
                 "vector, the one of " + journey + ", so x_2 = inputs[1] is the input that provides the query. d_in = " +
                 D + " is fixed by the embeddings; d_out = " + DO + " is a free choice, the size of the query, key and "
                 "value vectors.",
             "本节把 3.3 节的简化注意力扩展为 GPT 所用的注意力机制，即带有 3 个可训练权重矩阵的缩放点积注意力。"
                 "和 3.3 节一样，先只计算一个上下文向量，即 " + journey + " 的上下文向量，所以 x_2 = inputs[1] 是提供查询的输入。"
                 "d_in = " + D + " 由嵌入向量决定；d_out = " + DO + " 则可以自由选择，它是查询向量、键向量和值向量的维度。");

  const uint64_t seed1 = opt.seed_or(123);
  gen.manual_seed(seed1);
  nb.cell({"torch.manual_seed(" + fmt_seed(opt, 123) + ")",
           "W_query = torch.nn.Parameter(" + draw + "(d_in, d_out), requires_grad=False)",
           "W_key   = torch.nn.Parameter(" + draw + "(d_in, d_out), requires_grad=False)",
           "W_value = torch.nn.Parameter(" + draw + "(d_in, d_out), requires_grad=False)", "print(W_query)",
           "print(W_key)", "print(W_value)"});
  Tensor W_query = weight_param(gen, opt, d_in, d_out);
  Tensor W_key = weight_param(gen, opt, d_in, d_out);
  Tensor W_value = weight_param(gen, opt, d_in, d_out);
  nb.show("W_query", W_query);
  nb.show("W_key", W_key);
  nb.show("W_value", W_value);
  nb.note(std::string("Three (d_in, d_out) matrices of random numbers ") +
              (opt.init == Init::Rand ? "uniform in [0, 1)" : "from a standard normal") +
              ", drawn in this order from the seeded generator. Training would tune them; requires_grad=False keeps "
              "the printout free of autograd suffixes.",
          std::string("三个 (d_in, d_out) 随机矩阵，元素") +
              (opt.init == Init::Rand ? "在 [0, 1) 内均匀分布" : "服从标准正态分布") +
              "，按此顺序从设定了种子的随机数生成器中抽取。训练会调整它们；requires_grad=False 只是让打印结果不带自动求导的附加信息。");
  const std::string seed_text = fmt_seed(opt, 123);
  nb.explain("torch.manual_seed(" + seed_text + ") resets PyTorch's random number generator, so the three matrices "
                 "come out the same on every run. They are drawn one after another: W_key holds the " +
                 std::to_string(d_in * d_out) + " numbers that follow W_query's, so swapping two lines swaps the "
                 "matrices. These are weight parameters, learnt in training; they are not the attention weights, "
                 "which are computed anew for every input.",
             "torch.manual_seed(" + seed_text + ") 重置 PyTorch 的随机数生成器，因此每次运行得到的三个矩阵都相同。"
                 "它们是依次抽取的：W_key 是紧接在 W_query 之后的 " + std::to_string(d_in * d_out) +
                 " 个随机数，所以调换两行代码，得到的矩阵也会随之互换。这里的“权重”是权重参数，在训练中学习得到；"
                 "它们不是注意力权重，后者是针对每个输入重新计算的。");

  nb.cell({"query_2 = x_2 @ W_query", "key_2 = x_2 @ W_key", "value_2 = x_2 @ W_value", "print(query_2)",
           "print(key_2)", "print(value_2)"});
  Tensor query_2 = matmul(x_2, W_query);
  Tensor key_2 = matmul(x_2, W_key);
  Tensor value_2 = matmul(x_2, W_value);
  nb.show("query_2", query_2);
  nb.show("key_2", key_2);
  nb.show("value_2", value_2);
  nb.note(journey + " projected three ways: its query (what it looks for), its key (what it offers to "
              "other queries) and its value (what it hands over when attended to), each " + DO + "-d.",
          journey + " 被投影成三个向量：查询向量（它要找什么）、键向量（它向其他查询展示什么）和值向量"
              "（被关注时它提供什么内容），每个都是 " + DO + " 维。");
  nb.explain("x_2 has " + D + " entries and each weight matrix is (" + D + ", " + DO + "), so each product is a " + DO +
                 "-d vector. The three projections start from the same embedding of " + journey +
                 " but use different matrices, so training can make them specialise: the query is matched against "
                 "keys to decide where to look, the value is what gets mixed into the context vector. The names come "
                 "from databases, where a query is looked up against keys and the matching values are retrieved.",
             "x_2 有 " + D + " 个元素，每个权重矩阵的形状是 (" + D + ", " + DO + ")，所以每个乘积都是 " + DO +
                 " 维向量。三个投影都从 " + journey + " 的同一个嵌入向量出发，但使用不同的矩阵，因此训练可以让它们各司其职："
                 "查询向量与键向量匹配，决定关注哪里；值向量则是被混入上下文向量的内容。这些名称借用自数据库："
                 "用查询去匹配键，再取回匹配项的值。");

  nb.cell({"keys = inputs @ W_key", "values = inputs @ W_value", "print(\"keys.shape:\", keys.shape)",
           "print(\"values.shape:\", values.shape)", "print(keys)", "print(values)"});
  Tensor keys = matmul(inputs, W_key);
  Tensor values = matmul(inputs, W_value);
  nb.print("keys.shape: " + repr_size(keys.shape()));
  nb.print("values.shape: " + repr_size(values.shape()));
  nb.show("keys", keys);
  nb.show("values", values);
  nb.note("Every token needs a key and a value, because the query of " + journey +
              " is compared with all of them: one matrix product maps all rows from " + D + "-d to " + DO +
              "-d at once.",
          "每个词元都需要一个键向量和一个值向量，因为 " + journey + " 的查询向量要与它们全部比较：一次矩阵乘法就把所有行从 " +
              D + " 维映射到 " + DO + " 维。");
  nb.explain("inputs is (" + N + ", " + D + ") and W_key is (" + D + ", " + DO + "), so keys is (" + N + ", " + DO +
                 "): row i is the key of token i, exactly x_i @ W_key. The context vector of " + journey +
                 " needs only one query, but its attention weights depend on the keys of all " + N +
                 " tokens, and it mixes all " + N + " values. The printed torch.Size([" + N + ", " + DO +
                 "]) is the quickest check that the projection went the right way.",
             "inputs 的形状是 (" + N + ", " + D + ")，W_key 是 (" + D + ", " + DO + ")，所以 keys 是 (" + N + ", " + DO +
                 ")：第 i 行就是词元 i 的键向量，正好等于 x_i @ W_key。计算 " + journey +
                 " 的上下文向量只需要一个查询向量，但它的注意力权重取决于全部 " + N + " 个词元的键向量，"
                 "而上下文向量又混合了全部 " + N + " 个值向量。打印出的 torch.Size([" + N + ", " + DO +
                 "]) 是检查投影方向是否正确的最快方法。");

  nb.cell({"keys_2 = keys[1]", "attn_score_22 = query_2.dot(keys_2)", "print(attn_score_22)"});
  Tensor keys_2 = select(keys, 0, 1);
  nb.record("keys_2", keys_2);
  Tensor attn_score_22 = dot(query_2, keys_2);
  nb.show("attn_score_22", attn_score_22);
  nb.note("The unnormalised score omega_22: the query of " + journey + " against its own key. Unlike §3.3, the "
              "dot product is now taken between projected vectors, not the raw embeddings.",
          "未归一化的注意力分数 ω_22：" + journey + " 的查询向量与它自己的键向量的点积。与 3.3 节不同，"
              "点积现在是在投影后的向量之间计算的，而不是直接在原始嵌入向量之间。");
  nb.explain("keys[1] is the key of " + journey + " itself, so this is the score of " + journey +
                 " attending to itself. In §3.3 that score was simply x_2 . x_2; now query_2 and key_2 come from "
                 "different matrices, so how much a token attends to itself is up to the weights, and training can "
                 "change it.",
             "keys[1] 是 " + journey + " 自身的键向量，所以这是 " + journey + " 关注它自己的注意力分数。在 3.3 节中，"
                 "这个分数就是 x_2 · x_2；现在 query_2 和 key_2 来自不同的矩阵，一个词元对自身的关注程度由权重矩阵决定，"
                 "训练可以改变它。");

  nb.cell({"attn_scores_2 = query_2 @ keys.T", "print(attn_scores_2)"});
  Tensor attn_scores_2 = matmul(query_2, T(keys));
  nb.show("attn_scores_2", attn_scores_2);
  nb.note("All scores of the query " + journey + " in one product; the second entry is attn_score_22.",
          "一次乘法得到查询 " + journey + " 的全部注意力分数；第二个元素就是 attn_score_22。");
  const std::string top_score = quoted_token(opt, argmax(attn_scores_2.values()));
  nb.explain("query_2 has " + DO + " entries and keys.T is (" + DO + ", " + N + "), so the product holds " + N +
                 " scores: " + journey + " against each token's key. It is the pattern of inputs @ inputs.T in §3.3, "
                 "with the query and the keys in place of the raw embeddings. The highest score now goes to " +
                 top_score + ".",
             "query_2 有 " + DO + " 个元素，keys.T 的形状是 (" + DO + ", " + N + ")，所以乘积包含 " + N + " 个注意力分数：" +
                 journey + " 与每个词元的键向量各一个。这与 3.3 节的 inputs @ inputs.T 是同一种模式，只是把原始嵌入向量"
                 "换成了查询向量和键向量。现在分数最高的是 " + top_score + "。");

  nb.heading("3.4.1", "Scaled dot-product: from scores to weights and the context vector",
             "缩放点积：从注意力分数到注意力权重和上下文向量");
  nb.cell({"d_k = keys.shape[-1]", "attn_weights_2 = torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)",
           "print(d_k)", "print(attn_weights_2)"});
  const int64_t d_k = keys.size(-1);
  nb.record("d_k", Tensor({}, {static_cast<float>(d_k)}, DType::Int64));
  nb.print(std::to_string(d_k));
  Tensor attn_weights_2 = softmax(div(attn_scores_2, sqrt_d_k(d_k)), -1);
  nb.show("attn_weights_2", attn_weights_2);
  const std::string root = fmt_double(sqrt_d_k(d_k)), DK = std::to_string(d_k);
  nb.note("Dividing by sqrt(d_k) = " + root + " keeps the scores from growing with the embedding size, so softmax "
              "does not saturate into a one-hot vector with vanishing gradients.",
          "除以 sqrt(d_k) = " + root + "，使注意力分数不会随嵌入维度增大而变大，从而避免 softmax 饱和成近似独热（one-hot）"
              "的向量、导致梯度消失。");
  nb.explain("d_k is the size of the keys, " + DK + " here, and d_k**0.5 its square root. A dot product of two "
                 "d_k-vectors adds d_k products, so for random vectors its spread grows like sqrt(d_k); dividing by "
                 "sqrt(d_k) keeps the scores on a similar scale whatever the size. Without it, GPT-sized keys (d_k in "
                 "the hundreds) give scores so far apart that softmax puts nearly all the weight on one token, and "
                 "the gradients through the others nearly vanish. This division is the 'scaled' in scaled "
                 "dot-product attention.",
             "d_k 是键向量的维度，这里为 " + DK + "；d_k**0.5 是它的平方根。两个 d_k 维向量的点积是 d_k 个乘积之和，"
                 "对随机向量而言，其波动幅度按 √d_k 增长；除以 √d_k 能让分数无论维度多大都保持在相近的尺度上。"
                 "如果不缩放，GPT 规模的键向量（d_k 数以百计）会使分数差距悬殊，softmax 几乎把全部权重都给了一个词元，"
                 "经过其余词元的梯度则接近于零。缩放点积注意力中的“缩放”指的就是这次除法。");

  nb.cell({"context_vec_2 = attn_weights_2 @ values", "print(context_vec_2)"});
  Tensor context_vec_2 = matmul(attn_weights_2, values);
  nb.show("context_vec_2", context_vec_2);
  nb.note("The context vector of " + journey + ": the value vectors weighted by attention. It lives in the " + DO +
              "-d value space, not in the input space as in §3.3.",
          journey + " 的上下文向量：以注意力权重对值向量加权求和。它位于 " + DO + " 维的值向量空间中，"
              "而不像 3.3 节那样位于输入空间中。");
  const std::vector<float> w2 = attn_weights_2.values();
  const int64_t top = argmax(w2);
  char top_w[32];
  std::snprintf(top_w, sizeof top_w, "%.4f", static_cast<double>(w2[static_cast<size_t>(top)]));
  nb.explain("attn_weights_2 has " + N + " entries and values is (" + N + ", " + DO +
                 "), so the product is sum_i alpha_2i v_i, a " + DO + "-d vector: one matrix product replaces the "
                 "loop of §3.3. The weights decide how much of each token's value flows into the context vector of " +
                 journey + "; the largest share, " + top_w + ", comes from " + quoted_token(opt, top) +
                 ". So far only " + journey + " has a context vector; §3.4.2 computes them for every token at once.",
             "attn_weights_2 有 " + N + " 个元素，values 的形状是 (" + N + ", " + DO + ")，所以乘积是 Σ_i α_2i v_i，一个 " +
                 DO + " 维向量：一次矩阵乘法代替了 3.3 节的循环。注意力权重决定每个词元的值向量有多少流入 " + journey +
                 " 的上下文向量，其中最大的一份（" + top_w + "）来自 " + quoted_token(opt, top) + "。目前只有 " + journey +
                 " 有了上下文向量；3.4.2 节将一次为所有词元计算。");

  nb.heading("3.4.2", "Implementing a compact self-attention Python class", "实现一个简化的自注意力 Python 类");
  const uint64_t seed_v1 = opt.seed_or(123);
  gen.manual_seed(seed_v1);
  SelfAttentionV1 sa_v1 = SelfAttentionV1::init(gen, d_in, d_out);
  nb.cell({"class SelfAttention_v1(nn.Module):", "    def __init__(self, d_in, d_out):", "        super().__init__()",
           "        self.W_query = nn.Parameter(torch.rand(d_in, d_out))",
           "        self.W_key   = nn.Parameter(torch.rand(d_in, d_out))",
           "        self.W_value = nn.Parameter(torch.rand(d_in, d_out))", "", "    def forward(self, x):",
           "        keys = x @ self.W_key", "        queries = x @ self.W_query", "        values = x @ self.W_value",
           "        attn_scores = queries @ keys.T # omega",
           "        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)",
           "        context_vec = attn_weights @ values", "        return context_vec", "",
           "torch.manual_seed(" + fmt_seed(opt, 123) + ")", "sa_v1 = SelfAttention_v1(d_in, d_out)",
           "print(sa_v1(inputs))"});
  Tensor sa_v1_out = sa_v1.forward(inputs);
  nb.show("sa_v1(inputs)", sa_v1_out);
  const bool same_draws = opt.init == Init::Rand && seed_v1 == seed1;
  if (same_draws)
    nb.note("Same seed and same draws as the step-by-step cells, so row 2 is context_vec_2 again: the class "
            "computes every token's context vector at once.",
            "种子和抽取顺序都与前面逐步计算的单元格相同，所以第 2 行又是 context_vec_2：这个类一次算出了每个词元的上下文向量。");
  else
    nb.note("Row i is token i's context vector. (With these options the step-by-step weights were drawn "
            "differently, so row 2 need not equal context_vec_2.)",
            "第 i 行是词元 i 的上下文向量。（在当前选项下，前面逐步计算时权重的抽取方式不同，所以第 2 行不一定等于 context_vec_2。）");
  nb.confusion("re-seeding. The torch.manual_seed(" + seed_text + ") in this cell resets the generator to the "
                   "state it had before the W_query/W_key/W_value cell drew its weights, so the class draws from the "
                   "same starting point. Leave it out and the generator carries on where those draws ended: other "
                   "weights, other outputs" +
                   (same_draws ? ", and row 2 no longer matches context_vec_2" : "") + ". The code is not wrong; every "
                   "torch.rand advances one shared random stream, and results repeat only after torch.manual_seed "
                   "is called again.",
               "重新设定种子。这个单元格里的 torch.manual_seed(" + seed_text +
                   ") 把随机数生成器重置回前面 W_query/W_key/W_value 单元格抽取权重之前的状态，让这个类从同一个起点抽取。"
                   "如果去掉这一行，生成器会从上次抽取结束的位置继续：权重不同，输出也不同" +
                   (same_draws ? "，第 2 行也不再等于 context_vec_2" : "") + "。"
                   "代码本身并没有错：每次调用 torch.rand 都在推进同一条随机数序列，只有再次调用 torch.manual_seed，结果才会重复。");
  nb.explain("SelfAttention_v1 packages the steps above as an nn.Module: __init__ creates the three weight "
                 "matrices as nn.Parameter, which registers them as trainable, and forward runs projection, scores, "
                 "scaled softmax and weighted sum. It projects all tokens at once, so attn_scores is (" + N + ", " +
                 N + ") and the output has one " + DO + "-d context vector per token. nn.Parameter defaults to "
                 "requires_grad=True, hence the grad_fn=<MmBackward0> at the end: PyTorch recorded how to compute "
                 "gradients.",
             "SelfAttention_v1 把上面的步骤封装成一个 nn.Module：__init__ 用 nn.Parameter 创建三个权重矩阵，"
                 "把它们注册为可训练参数；forward 依次完成投影、计算注意力分数、缩放后的 softmax 和加权求和。"
                 "它一次对所有词元做投影，所以 attn_scores 是 (" + N + ", " + N + ")，输出中每个词元一行，是 " + DO +
                 " 维的上下文向量。nn.Parameter 默认 requires_grad=True，所以输出末尾多了 grad_fn=<MmBackward0>："
                 "PyTorch 记下了如何计算梯度。");

  const uint64_t seed_v2 = opt.seed_or(789);
  gen.manual_seed(seed_v2);
  SelfAttentionV2 sa_v2 = SelfAttentionV2::init(gen, d_in, d_out, opt.qkv_bias);
  const std::string bias = opt.qkv_bias ? "True" : "False";
  nb.cell({"class SelfAttention_v2(nn.Module):", "    def __init__(self, d_in, d_out, qkv_bias=False):",
           "        super().__init__()", "        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)",
           "        self.W_key   = nn.Linear(d_in, d_out, bias=qkv_bias)",
           "        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)", "", "    def forward(self, x):",
           "        keys = self.W_key(x)", "        queries = self.W_query(x)", "        values = self.W_value(x)",
           "        attn_scores = queries @ keys.T",
           "        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)",
           "        context_vec = attn_weights @ values", "        return context_vec", "",
           "torch.manual_seed(" + fmt_seed(opt, 789) + ")",
           std::string("sa_v2 = SelfAttention_v2(d_in, d_out") + (opt.qkv_bias ? ", qkv_bias=True)" : ")"),
           "print(sa_v2(inputs))"});
  Tensor sa_v2_out = sa_v2.forward(inputs);
  nb.show("sa_v2(inputs)", sa_v2_out);
  const std::string seed2_text = fmt_seed(opt, 789);
  if (seed_v2 != seed_v1)
    nb.note("Different numbers from sa_v1 because the weights differ: nn.Linear draws them uniform in "
                "+-1/sqrt(d_in) (Kaiming uniform) instead of [0, 1), as (d_out, d_in) matrices, and here from seed " +
                seed2_text + " instead of " + seed_text + ". The computation itself is the same, as exercise 3.1 shows.",
            "输出与 sa_v1 不同，是因为权重不同：nn.Linear 从 ±1/sqrt(d_in) 范围内的均匀分布（Kaiming 均匀初始化）而不是 "
                "[0, 1) 中抽取权重，以 (d_out, d_in) 的形状存储，而且这里的种子是 " + seed2_text + " 而不是 " + seed_text +
                "。两者的计算本身完全相同，练习 3.1 会证明这一点。");
  else
    nb.note("Different numbers from sa_v1 even with the same seed, because nn.Linear draws its weights uniform in "
            "+-1/sqrt(d_in) (Kaiming uniform) instead of [0, 1), as (d_out, d_in) matrices. The computation itself "
            "is the same, as exercise 3.1 shows.",
            "即使种子与 sa_v1 相同，输出也不同，因为 nn.Linear 从 ±1/sqrt(d_in) 范围内的均匀分布（Kaiming 均匀初始化）"
            "而不是 [0, 1) 中抽取权重，并以 (d_out, d_in) 的形状存储。两者的计算本身完全相同，练习 3.1 会证明这一点。");
  nb.explain("SelfAttention_v2 replaces the hand-made nn.Parameter(torch.rand(...)) with nn.Linear(d_in, d_out, "
             "bias=qkv_bias), which computes x @ weight.T (+ bias). nn.Linear's initialisation keeps the scale of "
             "its outputs about the same whatever d_in is, which makes training more stable: that is why real "
             "models use it. forward is otherwise line for line v1: queries, keys, values, scaled softmax over "
             "dim=-1, weighted sum of the values.",
             "SelfAttention_v2 用 nn.Linear(d_in, d_out, bias=qkv_bias) 取代手写的 nn.Parameter(torch.rand(...))，"
             "它计算的是 x @ weight.T（再加上偏置）。nn.Linear 的初始化方式让输出的尺度基本不随 d_in 变化，"
             "使训练更加稳定，这正是实际模型采用它的原因。除此之外，forward 与 v1 逐行对应：查询、键、值，"
             "沿 dim=-1 的缩放 softmax，再对值向量加权求和。");

  nb.cell({"print(sa_v2.W_query.weight)", "print(sa_v2.W_key.weight)", "print(sa_v2.W_value.weight)"});
  nb.show("sa_v2.W_query.weight", sa_v2.W_query.weight);
  nb.show("sa_v2.W_key.weight", sa_v2.W_key.weight);
  nb.show("sa_v2.W_value.weight", sa_v2.W_value.weight);
  const std::string shape = shape_text({d_out, d_in});
  char bound[32];
  std::snprintf(bound, sizeof bound, "%.4f", 1.0 / std::sqrt(static_cast<double>(d_in)));
  nb.note("nn.Linear stores its weight transposed, as (d_out, d_in) = " + shape +
              ", and computes x @ weight.T. That is the key to exercise 3.1.",
          "nn.Linear 以转置的形式存储权重，形状为 (d_out, d_in) = " + shape + "，计算时用 x @ weight.T。这正是练习 3.1 的关键。");
  nb.explain("Each weight has d_out = " + DO + " rows and d_in = " + D + " columns, the transpose of "
                 "SelfAttention_v1's (d_in, d_out) matrices; row k holds the weights of output feature k. Every entry "
                 "lies within +-1/sqrt(d_in) = +-" + std::string(bound) + ", the bound of the Kaiming-uniform "
                 "initialisation. requires_grad=True marks them as trainable.",
             "每个权重都有 d_out = " + DO + " 行、d_in = " + D + " 列，是 SelfAttention_v1 中 (d_in, d_out) 矩阵的转置；"
                 "第 k 行是第 k 个输出特征的权重。所有元素都落在 ±1/sqrt(d_in) = ±" + std::string(bound) +
                 " 之内，这是 Kaiming 均匀初始化的边界。requires_grad=True 表示它们是可训练的参数。");
  if (opt.qkv_bias) {
    nb.cell({"print(sa_v2.W_query.bias)", "print(sa_v2.W_key.bias)", "print(sa_v2.W_value.bias)"});
    nb.show("sa_v2.W_query.bias", *sa_v2.W_query.bias);
    nb.show("sa_v2.W_key.bias", *sa_v2.W_key.bias);
    nb.show("sa_v2.W_value.bias", *sa_v2.W_value.bias);
    nb.note("With qkv_bias=True each layer also has a bias of d_out = " + DO + " entries, drawn right after its "
                "weight and also uniform in +-1/sqrt(d_in).",
            "qkv_bias=True 时，每一层还有一个 d_out = " + DO + " 维的偏置，紧接在它的权重之后抽取，同样服从 ±1/sqrt(d_in) "
                "范围内的均匀分布。");
    nb.explain("The bias is added after the matrix product, queries = x @ W_query.weight.T + W_query.bias, so it "
               "shifts every token's query (key, value) by the same vector. The book leaves it off by default; "
               "chapter 5 turns it on to load GPT-2's pretrained weights, which include biases.",
               "偏置在矩阵乘法之后加上：queries = x @ W_query.weight.T + W_query.bias，所以它让每个词元的查询向量"
               "（键向量、值向量）都平移同一个向量。书中默认不使用偏置；第 5 章加载 GPT-2 的预训练权重时会打开它，"
               "因为那些权重包含偏置。");
  }

  nb.heading("3.4.2", "Exercise 3.1: copy SelfAttention_v2's weights into SelfAttention_v1",
             "练习 3.1：把 SelfAttention_v2 的权重复制到 SelfAttention_v1 中");
  nb.cell({"sa_v1.W_query = torch.nn.Parameter(sa_v2.W_query.weight.T)",
           "sa_v1.W_key = torch.nn.Parameter(sa_v2.W_key.weight.T)",
           "sa_v1.W_value = torch.nn.Parameter(sa_v2.W_value.weight.T)", "print(sa_v1(inputs))",
           "print(torch.equal(sa_v1(inputs), sa_v2(inputs)))"});
  auto as_param = [](const Tensor& w) {
    Tensor p = T(w);
    p.set_grad_fn("");
    p.set_parameter(true).set_requires_grad(true);
    return p;
  };
  sa_v1.W_query = as_param(sa_v2.W_query.weight);
  sa_v1.W_key = as_param(sa_v2.W_key.weight);
  sa_v1.W_value = as_param(sa_v2.W_value.weight);
  Tensor sa_v1_copied = sa_v1.forward(inputs);
  nb.show("sa_v1(inputs)", sa_v1_copied);
  const bool equal = sa_v1_copied.shape() == sa_v2_out.shape() && sa_v1_copied.values() == sa_v2_out.values();
  nb.print(equal ? "True" : "False");
  if (equal)
    nb.note("Identical to sa_v2(inputs), bit for bit: the two classes compute the same function; only their "
            "initial weights and the (d_out, d_in) storage differ.",
            "与 sa_v2(inputs) 逐位完全相同：两个类计算的是同一个函数，区别只在于初始权重和 (d_out, d_in) 的存储方式。");
  else
    nb.note("Not equal: with qkv_bias=True, SelfAttention_v2 also adds a bias that SelfAttention_v1 has no "
            "place for. Without --qkv-bias the two outputs are identical.",
            "不相等：qkv_bias=True 时，SelfAttention_v2 还会加上偏置，而 SelfAttention_v1 没有地方存放它。"
            "不加 --qkv-bias 时，两者的输出完全相同。");
  nb.explain("Each nn.Linear weight is transposed back to (d_in, d_out) with .T and wrapped in nn.Parameter, "
             "replacing the random matrices sa_v1 was built with. Then x @ sa_v1.W_query is exactly x @ "
             "W_query.weight.T, the operation nn.Linear performs without a bias, so scores, weights and context "
             "vectors all follow. torch.equal demands the same shape and every value identical, stricter than "
             "torch.allclose.",
             "把每个 nn.Linear 的权重用 .T 转置回 (d_in, d_out)，再包装成 nn.Parameter，替换掉 sa_v1 构造时的随机矩阵。"
             "这样 x @ sa_v1.W_query 就正好是 x @ W_query.weight.T，即不带偏置时 nn.Linear 所做的运算，"
             "注意力分数、注意力权重和上下文向量也就随之一致。torch.equal 要求形状相同且每个数值都完全相等，"
             "比 torch.allclose 更严格。");
  return nb;
}

}  // namespace attn
