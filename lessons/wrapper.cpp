// §3.6.1: multi-head attention as a list of CausalAttention heads whose outputs are concatenated.
#include "nn/causal_attention.h"
#include "lessons/causal_setup.h"
#include "lessons/lesson.h"
#include "lessons/lesson_text.h"
#include "core/ops_shape.h"
#include "core/print.h"

namespace attn {

Notebook wrapper_lesson(const LessonOptions& opt) {
  Notebook nb = lesson_notebook("wrapper", {"3.6.1"}, opt);
  const double p = opt.dropout.value_or(0.0);
  const int64_t context_length = opt.context_length_or_tokens();
  const int64_t h = opt.heads_or(2), d_out = opt.d_out;
  Generator gen;

  nb.heading("3.6.1", "Stacking multiple single-head attention layers", "叠加多个单头注意力层");
  Tensor batch = batch_cell(nb, opt, true);

  if (opt.no_reseed) {
    nb.cell({"torch.manual_seed(" + fmt_seed(opt, 123) + ")", "context_length = batch.shape[1]",
             "d_in, d_out = " + std::to_string(opt.d_in()) + ", " + std::to_string(d_out),
             std::string("ca = CausalAttention(d_in, d_out, context_length, 0.0") + (opt.qkv_bias ? ", qkv_bias=True)" : ")"),
             "context_vecs = ca(batch)"});
    gen.manual_seed(opt.seed_or(123));
    CausalAttention ca = CausalAttention::init(gen, opt.d_in(), d_out, opt.num_tokens(), 0.0, opt.qkv_bias);
    ca.forward(batch, gen, opt.bernoulli);
    nb.note("The CausalAttention cell of 3.5.3 ran just before: building ca took " + std::to_string(gen.draws()) +
                " random numbers (three nn.Linear weights) from the generator seeded with " + fmt_seed(opt, 123) + ".",
            "3.5.3 节的 CausalAttention 单元刚刚运行过：创建 ca 时从以 " + fmt_seed(opt, 123) + " 为种子的生成器中取走了 " +
                std::to_string(gen.draws()) + " 个随机数（三个 nn.Linear 的权重）。");
    nb.explain("--no-reseed replays the reader's notebook (001), where this cell ran right before the wrapper. Every "
               "nn.Linear draws its initial weights from torch's one global generator, so whatever ran before decides "
               "where in the random stream the next module's weights start. Only the count matters here: ca used up "
               "its random numbers and the generator moved on.",
               "--no-reseed 重现读者笔记（001）中的情形：在那里，这个单元紧挨在封装类之前运行。每个 nn.Linear 都从 torch "
               "唯一的全局随机数生成器中抽取初始权重，所以之前运行过什么，决定了下一个模块的权重从随机数序列的哪个位置"
               "开始。这里只有取走的个数才重要：ca 用掉了它的随机数，生成器随之向前推进。");
  }

  std::vector<std::string> code = wrapper_class_code();
  code.push_back("");
  if (!opt.no_reseed) code.push_back("torch.manual_seed(" + fmt_seed(opt, 123) + ")");
  code.insert(code.end(), {opt.context_length ? "context_length = " + std::to_string(context_length)
                                              : "context_length = batch.shape[1]  # the number of tokens",
                           "d_in, d_out = " + std::to_string(opt.d_in()) + ", " + std::to_string(d_out),
                           "mha = MultiHeadAttentionWrapper(d_in, d_out, context_length, " + fmt_double(p) +
                               ", num_heads=" + std::to_string(h) + (opt.qkv_bias ? ", qkv_bias=True)" : ")"),
                           "context_vecs = mha(batch)", "print(context_vecs)",
                           "print(\"context_vecs.shape:\", context_vecs.shape)"});
  nb.cell(code);
  if (!opt.no_reseed) gen.manual_seed(opt.seed_or(123));
  const uint64_t draws_before = gen.draws();
  MultiHeadAttentionWrapper mha =
      MultiHeadAttentionWrapper::init(gen, opt.d_in(), d_out, context_length, p, h, opt.qkv_bias);
  std::vector<Tensor> head_outputs;
  Tensor context_vecs = mha.forward(batch, gen, opt.bernoulli, &head_outputs);
  nb.show("context_vecs", context_vecs);
  nb.print("context_vecs.shape: " + repr_size(context_vecs.shape()));
  const std::string hs = std::to_string(h), ds = std::to_string(d_out), width = std::to_string(h * d_out);
  const std::string seed = fmt_seed(opt, 123);
  nb.note(hs + (h == 1 ? " head, a CausalAttention" : " heads, each a CausalAttention") + " with its own W_query, "
              "W_key, W_value, drawn one after the other from the generator. The output is " + hs + " x " + ds +
              " = " + width + " wide.",
          hs + " 个头，每个头都是一个 CausalAttention，各有自己的 W_query、W_key、W_value，依次从生成器中抽取。输出宽度为 " +
              hs + " × " + ds + " = " + width + "。");
  nb.explain("Listing 3.4 builds multi-head attention the simplest way: an nn.ModuleList of num_heads independent "
             "CausalAttention modules, each applied to the same input, their results concatenated along the last "
             "dimension. The output has the same (b, num_tokens, ...) layout as a single head, only wider: " +
             shape_text(context_vecs.shape()) + ". The price is that the heads run one after another in a Python "
             "loop; the MultiHeadAttention of 3.6.2 computes them all in one batched matrix product.",
             "代码清单 3-4 用最简单的方式构建多头注意力：一个由 num_heads 个相互独立的 CausalAttention 模块组成的 "
             "nn.ModuleList，每个模块处理同一个输入，再沿最后一维把结果连接起来。它的输出与单头注意力的布局相同，都是 "
             "(b, num_tokens, ...)，只是更宽：" + shape_text(context_vecs.shape()) + "。代价是各个头在 Python 循环中依次运行；"
             "3.6.2 节的 MultiHeadAttention 会用一次批量矩阵乘法同时计算所有的头。");
  if (opt.no_reseed) {
    const std::string drawn = std::to_string(draws_before), last = std::to_string(draws_before - 1);
    const bool book = !opt.seed && !opt.custom_inputs && d_out == 2 && h >= 2 && !opt.qkv_bias;
    nb.confusion("outputs differ when torch.manual_seed is not called again. No torch.manual_seed before the "
                     "wrapper: the generator carries on where ca left it, at draw " + drawn + ". So the first head "
                     "gets the weights the book's second head gets (the book's first head got draws 0.." + last +
                     ", which ca consumed here)" + (h >= 2 ? ", and the second head gets fresh ones." : ".") +
                     (book ? " This is why the reader's notebook (001 In [45]) starts with [0.4772, 0.1063, ...]: the "
                             "book's third and fourth columns."
                           : "") +
                     " Nothing is wrong with the code: call torch.manual_seed(" + seed + ") right before building a "
                     "module to get the book's numbers.",
                 "没有再次调用 torch.manual_seed，输出就会不同。创建封装类之前没有调用 torch.manual_seed：生成器从 ca 用完的"
                     "位置，即第 " + drawn + " 个随机数处继续。于是第一个头得到的是书中第二个头的权重（书中第一个头用的是第 "
                     "0 到第 " + last + " 个随机数，而它们在这里已被 ca 用掉）" +
                     (h >= 2 ? "，第二个头则得到全新的权重。" : "。") +
                     (book ? "这就是读者笔记（001 的 In [45]）的输出以 [0.4772, 0.1063, ...] 开头的原因：它们正是书中输出的"
                             "第三列和第四列。"
                           : "") +
                     "代码本身没有错：要得到书中的数值，就在创建模块之前紧接着调用 torch.manual_seed(" + seed + ")。");
  } else {
    nb.confusion("outputs differ when torch.manual_seed is not called again. The torch.manual_seed(" + seed + ") at "
                 "the top of this cell is what makes these numbers the book's: each head's weights are the next "
                 "numbers of torch's one global generator. Leave it out after running other cells (as the reader's "
                 "notebook, 001 In [45], did after the CausalAttention cell) and the heads get other weights and the "
                 "output changes, although nothing is wrong. --no-reseed shows exactly that run.",
                 "不再次调用 torch.manual_seed，输出就会不同。本单元开头的 torch.manual_seed(" + seed + ") 正是这些数值与"
                 "书中一致的原因：每个头的权重都是从 torch 唯一的全局随机数生成器中依次取出的。如果在运行过其他单元后省略它"
                 "（就像读者笔记 001 的 In [45] 在 CausalAttention 单元之后那样），各个头就会得到别的权重，输出也随之改变，"
                 "尽管代码并没有错。--no-reseed 展示的正是这次运行。");
  }

  nb.cell({"# inside mha(batch) above, before the cat:", "head_outputs = [head(x) for head in self.heads]",
           "for i, out in enumerate(head_outputs):", "    print(f\"head {i}:\", out)"});
  for (size_t i = 0; i < head_outputs.size(); ++i)
    nb.show("head " + std::to_string(i) + ":", "head_outputs[" + std::to_string(i) + "]", head_outputs[i]);
  nb.note("Each head runs on its own, one after another, and returns (b, num_tokens, d_out) = " +
              shape_text(head_outputs[0].shape()) + ". The heads are independent: same input, different weights." +
              (p > 0.0 ? " These are the outputs from inside mha(batch); calling the heads again would draw new "
                         "dropout masks and give other numbers."
                       : ""),
          "每个头独立运行，一个接一个，返回形状为 (b, num_tokens, d_out) = " + shape_text(head_outputs[0].shape()) +
              " 的张量。各个头互不相关：输入相同，权重不同。" +
              (p > 0.0 ? "这些是 mha(batch) 内部的输出；再次调用这些头会抽取新的 dropout 掩码，得到不同的数值。" : ""));
  nb.explain("Each entry of head_outputs is what one CausalAttention returns for the whole batch. Their numbers "
             "differ only because each head has its own randomly initialised W_query, W_key and W_value; in "
             "training, each head would learn to attend to different relations between the tokens. Each head's "
             "output is exactly " + ds + (d_out == 1 ? " column" : " columns") + " of context_vecs above.",
             "head_outputs 中的每一项都是一个 CausalAttention 对整个批次的输出。它们的数值不同，只是因为每个头都有自己随机"
             "初始化的 W_query、W_key 和 W_value；训练过程中，各个头会学会关注词元之间不同的关系。每个头的输出恰好是上面 "
             "context_vecs 中的 " + ds + " 列。");

  nb.cell({"torch.cat(head_outputs, dim=-1)", "print(torch.cat(head_outputs, dim=-1).shape)"});
  nb.record("torch.cat(head_outputs, dim=-1)", context_vecs);
  nb.print(repr_size(context_vecs.shape()));
  nb.note("torch.cat along the last dimension puts the heads side by side: columns 1.." + ds + " are head 0, the "
              "next " + ds + " head 1, and so on. Exercise 3.2: --d-out 1 gives width " + hs + ".",
          "torch.cat 沿最后一维把各个头并排放置：第 1 到第 " + ds + " 列来自 head 0，接下来的 " + ds +
              " 列来自 head 1，以此类推。练习 3.2：用 --d-out 1 可以得到宽度为 " + hs + " 的输出。");
  nb.explain("torch.cat joins tensors along an existing dimension (torch.stack would add a new one). dim=-1 is the "
             "feature dimension, so the batch and token dimensions stay as they are and only the width grows; the "
             "grad_fn=<CatBackward0> of the printed context_vecs comes from this call. The wrapper returns this "
             "tensor as it is: unlike the class of 3.6.2, it has no output projection that mixes the heads.",
             "torch.cat 沿已有的维度连接张量（torch.stack 则会新增一个维度）。dim=-1 是特征维，因此批次维和词元维保持不变，"
             "只有宽度增加；上面打印的 context_vecs 中的 grad_fn=<CatBackward0> 就来自这次调用。封装类直接返回这个张量："
             "与 3.6.2 节的类不同，它没有把各个头混合起来的输出投影层。");
  nb.confusion("d_out is PER HEAD in the wrapper but the TOTAL in MultiHeadAttention. Here each head outputs d_out = " +
                   ds + " columns, so the width is num_heads * d_out = " + width + ". In the MultiHeadAttention of "
                   "3.6.2 (mha), d_out is the total width and each head gets head_dim = d_out / num_heads: " +
                   (d_out % h == 0 ? "the same arguments give width " + ds + " there."
                                   : "the same arguments would be rejected there, as d_out must be divisible by "
                                     "num_heads.") +
                   " For the same width from both, give the wrapper d_out / num_heads.",
               "封装类中的 d_out 是“每个头”的输出维度，而 MultiHeadAttention 中的 d_out 是“总”输出维度。这里每个头输出 "
                   "d_out = " + ds + " 列，所以宽度为 num_heads × d_out = " + width + "。在 3.6.2 节的 MultiHeadAttention"
                   "（mha）中，d_out 是总宽度，每个头分到 head_dim = d_out / num_heads 维：" +
                   (d_out % h == 0 ? "同样的参数在那里得到的宽度是 " + ds + "。"
                                   : "同样的参数在那里会被拒绝，因为 d_out 必须能被 num_heads 整除。") +
                   "要让两者输出宽度相同，应给封装类传入 d_out / num_heads。");
  return nb;
}

}  // namespace attn
