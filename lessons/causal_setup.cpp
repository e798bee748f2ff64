#include "lessons/causal_setup.h"

#include <limits>

#include "lessons/lesson_text.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "core/print.h"

namespace attn {

std::vector<std::string> self_attention_v2_class_code() {
  return {"class SelfAttention_v2(nn.Module):",
          "    def __init__(self, d_in, d_out, qkv_bias=False):",
          "        super().__init__()",
          "        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)",
          "        self.W_key   = nn.Linear(d_in, d_out, bias=qkv_bias)",
          "        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)",
          "    # forward as in 3.4.2"};
}

std::vector<std::string> causal_attention_class_code() {
  return {"class CausalAttention(nn.Module):",
          "    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):",
          "        super().__init__()",
          "        self.d_out = d_out",
          "        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)",
          "        self.W_key   = nn.Linear(d_in, d_out, bias=qkv_bias)",
          "        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)",
          "        self.dropout = nn.Dropout(dropout)",
          "        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1))",
          "",
          "    def forward(self, x):",
          "        b, num_tokens, d_in = x.shape",
          "        keys = self.W_key(x)",
          "        queries = self.W_query(x)",
          "        values = self.W_value(x)",
          "        attn_scores = queries @ keys.transpose(1, 2)",
          "        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)",
          "        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)",
          "        attn_weights = self.dropout(attn_weights)",
          "        context_vec = attn_weights @ values",
          "        return context_vec"};
}

std::vector<std::string> wrapper_class_code() {
  return {"class MultiHeadAttentionWrapper(nn.Module):",
          "    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):",
          "        super().__init__()",
          "        self.heads = nn.ModuleList(",
          "            [CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)",
          "             for _ in range(num_heads)]",
          "        )",
          "",
          "    def forward(self, x):",
          "        return torch.cat([head(x) for head in self.heads], dim=-1)"};
}

std::vector<std::string> multihead_attention_class_code() {
  return {"class MultiHeadAttention(nn.Module):",
          "    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):",
          "        super().__init__()",
          "        assert d_out % num_heads == 0, \"d_out must be divisible by num_heads\"",
          "        self.d_out = d_out",
          "        self.num_heads = num_heads",
          "        self.head_dim = d_out // num_heads",
          "        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)",
          "        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)",
          "        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)",
          "        self.out_proj = nn.Linear(d_out, d_out)",
          "        self.dropout = nn.Dropout(dropout)",
          "        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1))",
          "    # forward: see the cells below, one step each"};
}

Tensor batch_cell(Notebook& nb, const LessonOptions& opt, bool with_inputs) {
  std::vector<std::string> code = with_inputs ? inputs_code(opt) : std::vector<std::string>{};
  code.insert(code.end(), {"batch = torch.stack((inputs, inputs), dim=0)", "print(batch.shape)"});
  nb.cell(code);
  Tensor batch = stack({opt.inputs.embeddings, opt.inputs.embeddings}, 0);
  nb.record("batch", batch);
  nb.print(repr_size(batch.shape()));
  const std::string shape = shape_text(batch.shape());
  const std::string n = std::to_string(opt.num_tokens()), d_in = std::to_string(opt.d_in());
  const std::string cat_shape = "(" + std::to_string(2 * opt.num_tokens()) + ", " + d_in + ")";
  nb.note("torch.stack adds a new first dimension: two copies of the input text become one batch of shape "
          "(batch size, tokens, embedding size) = " + shape + ".",
          "torch.stack 在最前面新增一个维度：输入文本的两份副本组成一个批次，形状为（批次大小，词元数，嵌入维度）= " +
              shape + "。");
  nb.explain(std::string(with_inputs ? "The cell first defines the inputs again so that it runs on its own. " : "") +
                 "The data loaders of chapter 2 hand the model several texts at once, so from here on every "
                 "attention module must accept a 3-D input. Stacking the same text twice is the simplest way to "
                 "simulate that; because both texts are identical, every result below comes out twice. torch.stack "
                 "joins tensors along a NEW dimension (dim=0 here), whereas torch.cat joins them along an existing "
                 "one and would give a " + cat_shape + " tensor instead.",
             std::string(with_inputs ? "这个单元先重新定义 inputs，使它可以单独运行。" : "") +
                 "第 2 章实现的数据加载器会一次向模型输入多个文本，因此从这里开始，每个注意力模块都必须能处理三维输入。"
                 "把同一段文本叠加两次是模拟批量输入最简单的方法；由于两个文本完全相同，下面的每个结果都会出现两次。"
                 "torch.stack 沿一个“新”维度（这里是 dim=0）合并张量，而 torch.cat 沿已有的维度连接，得到的会是形状为 " +
                 cat_shape + " 的张量。");
  return batch;
}

CausalWeights causal_weights(const LessonOptions& opt, Notebook* nb, bool verbose) {
  const Tensor& inputs = opt.inputs.embeddings;
  Generator gen;
  gen.manual_seed(opt.seed_or(789));
  SelfAttentionV2 sa_v2 = SelfAttentionV2::init(gen, opt.d_in(), opt.d_out, opt.qkv_bias);
  CausalWeights w;
  w.queries = sa_v2.W_query(inputs);
  w.keys = sa_v2.W_key(inputs);
  w.values = sa_v2.W_value(inputs);
  w.attn_scores = matmul(w.queries, T(w.keys));
  w.attn_weights_unmasked = softmax(div(w.attn_scores, sqrt_d_k(w.keys.size(-1))), 1);
  const int64_t context_length = w.attn_scores.size(0);
  w.mask = triu(ones({context_length, context_length}), 1);
  w.masked = masked_fill(w.attn_scores, to_bool(w.mask), -std::numeric_limits<float>::infinity());
  w.attn_weights = softmax(div(w.masked, sqrt_d_k(w.keys.size(-1))), 1);
  if (!nb) return w;

  const std::string seed = fmt_seed(opt, 789), d_in = std::to_string(opt.d_in()), d_out = std::to_string(opt.d_out);
  std::vector<std::string> code = inputs_code(opt);
  code.push_back("d_in, d_out = inputs.shape[1], " + std::to_string(opt.d_out));
  const std::vector<std::string> cls = self_attention_v2_class_code();
  code.insert(code.end(), cls.begin(), cls.end());
  code.push_back("torch.manual_seed(" + fmt_seed(opt, 789) + ")");
  code.push_back(std::string("sa_v2 = SelfAttention_v2(d_in, d_out") + (opt.qkv_bias ? ", qkv_bias=True)" : ")"));
  if (!verbose) {
    code.insert(code.end(), {"queries = sa_v2.W_query(inputs)", "keys = sa_v2.W_key(inputs)",
                             "attn_scores = queries @ keys.T", "context_length = attn_scores.shape[0]",
                             "mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)",
                             "masked = attn_scores.masked_fill(mask.bool(), -torch.inf)",
                             "attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=1)", "print(attn_weights)"});
    nb->cell(code);
    nb->show("attn_weights", w.attn_weights);
    nb->note("The causal attention weights of causal-mask (3.5.1): every token attends only to itself and the "
             "tokens before it, and each row sums to 1.",
             "这是 causal-mask（3.5.1 节）得到的因果注意力权重：每个词元只关注它自身和它之前的词元，每一行之和为 1。");
    nb->explain("This cell recaps 3.5.1 in one go, so that dropout starts from the same tensors: SelfAttention_v2 "
                "rebuilt after torch.manual_seed(" + seed + "), the attention scores, the triu(diagonal=1) mask filled "
                "with -inf, and the scaled softmax. The masked positions get exactly zero weight because "
                "exp(-inf) = 0. Run `attn-tutor causal-mask` to see each step on its own.",
                "这个单元一次性重现 3.5.1 节的内容，让 dropout 从相同的张量开始：在 torch.manual_seed(" + seed +
                    ") 之后重新创建 SelfAttention_v2，计算注意力分数，用 triu(diagonal=1) 掩码把对角线以上的注意力分数填充为 "
                    "-inf，再做缩放后的 softmax。由于 exp(-inf) = 0，被掩码的位置得到的注意力权重恰好为 0。运行 "
                    "`attn-tutor causal-mask` 可以逐步查看每一步。");
    return w;
  }
  nb->cell(code);
  nb->note("The SelfAttention_v2 of 3.4.2, built with the same seed, so its weights are the ones printed there.",
           "这是 3.4.2 节的 SelfAttention_v2，用相同的随机种子创建，因此它的权重与那里打印的完全相同。");
  nb->explain("Causal attention changes only how the attention weights are computed, not the projections, so the "
              "lesson reuses the module of 3.4.2. torch.manual_seed(" + seed + ") comes right before the constructor: "
              "nn.Linear draws its initial weights from the global random number generator, and resetting it "
              "reproduces the same W_query, W_key and W_value. d_out = " + d_out + " sets the size of the query, key "
              "and value vectors, independently of the embedding size d_in = " + d_in + ".",
              "因果注意力只改变注意力权重的计算方式，不改变投影，所以这里沿用 3.4.2 节的模块。torch.manual_seed(" + seed +
                  ") 紧挨在构造函数之前调用：nn.Linear 从全局随机数生成器中抽取初始权重，重置种子就能重现同样的 "
                  "W_query、W_key 和 W_value。d_out = " + d_out + " 决定查询向量、键向量和值向量的维度，与嵌入维度 d_in = " +
                  d_in + " 无关。");
  nb->cell({"queries = sa_v2.W_query(inputs)", "keys = sa_v2.W_key(inputs)", "attn_scores = queries @ keys.T",
            "attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=1)", "print(queries)", "print(keys)",
            "print(attn_scores)", "print(attn_weights)"});
  nb->show("queries", w.queries);
  nb->show("keys", w.keys);
  nb->show("attn_scores", w.attn_scores);
  nb->show("attn_weights", w.attn_weights_unmasked);
  const std::string n = std::to_string(opt.num_tokens());
  const bool third = opt.num_tokens() >= 3;
  nb->note("Ordinary self-attention: every row spreads weight over all " + n + " tokens, including the ones after it." +
               (third ? " A language model generating " + quoted_token(opt, 1) + " must not see " +
                            quoted_token(opt, 2) + " yet."
                      : std::string()),
           "普通的自注意力：每一行都把注意力权重分配给全部 " + n + " 个词元，包括它之后的词元。" +
               (third ? "可是语言模型在生成 " + quoted_token(opt, 1) + " 时还不应该看到 " + quoted_token(opt, 2) + "。"
                      : std::string()));
  nb->explain("These are the weights of step (1) in figure 3-20: the scores queries @ keys.T, scaled by sqrt(d_k) and "
              "normalised with softmax along dim=1, so each row (one query) sums to 1. Row i, column j says how much "
              "token i attends to token j. Everything above the diagonal (j > i) is a look into the future, which "
              "causal attention must remove.",
              "这就是图 3-20 中第 (1) 步得到的注意力权重：注意力分数 queries @ keys.T 除以 sqrt(d_k) 进行缩放，再沿 dim=1 "
              "做 softmax 归一化，因此每一行（对应一个查询）之和为 1。第 i 行第 j 列表示词元 i 对词元 j 的关注程度。"
              "对角线以上（j > i）的元素都是在“偷看”未来的词元，因果注意力必须把它们去掉。");
  return w;
}

}  // namespace attn
