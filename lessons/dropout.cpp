// §3.5.2-3.5.3: dropout on the attention weights (and its 1/(1-p) scale), a batch of two inputs,
// and the CausalAttention class step by step.
#include "nn/causal_attention.h"
#include "lessons/causal_setup.h"
#include "core/dropout.h"
#include "lessons/lesson.h"
#include "lessons/lesson_text.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "core/print.h"

namespace attn {

namespace {

std::string p_text(double p) { return fmt_double(p); }

}  // namespace

Notebook dropout_lesson(const LessonOptions& opt) {
  Notebook nb = lesson_notebook("dropout", {"3.5.2", "3.5.3"}, opt);
  const double p = opt.dropout.value_or(0.5);
  const int64_t n = opt.num_tokens();
  const bool mkl = opt.bernoulli == BernoulliPath::Mkl;
  Generator gen;

  nb.heading("3.5.2", "Masking additional attention weights with dropout", "利用 dropout 掩码额外的注意力权重");
  CausalWeights w = causal_weights(opt, &nb, false);

  gen.manual_seed(opt.seed_or(123));
  nb.cell({"torch.manual_seed(" + fmt_seed(opt, 123) + ")", "dropout = torch.nn.Dropout(" + p_text(p) + ")",
           "example = torch.ones(" + std::to_string(n) + ", " + std::to_string(n) + ")", "print(dropout(example))"});
  Tensor example = ones({n, n});
  nb.record("example", example);
  Tensor keep;
  Tensor dropped_example = dropout(example, p, gen, opt.bernoulli, &keep);
  nb.show("dropout(example)", dropped_example);
  const std::string seed = fmt_seed(opt, 123);
  if (p == 0.0) {
    nb.note("Dropout(0.0) returns its input unchanged and draws no random numbers at all.",
            "Dropout(0.0) 原样返回输入，完全不抽取随机数。");
  } else if (p == 1.0) {
    nb.note("Dropout(1.0) drops everything: PyTorch returns input * 0 without drawing random numbers.",
            "Dropout(1.0) 丢弃全部元素：PyTorch 直接返回 input * 0，不抽取随机数。");
  } else {
    int64_t kept = 0;
    for (float k : keep.values()) kept += k != 0.0f;
    nb.note(std::to_string(kept) + " of " + std::to_string(n * n) + " entries survive (each independently with "
                "probability 1 - p = " + fmt_double(1.0 - p) + "); the rest are zero.",
            std::to_string(n * n) + " 个元素中有 " + std::to_string(kept) + " 个被保留（每个元素独立地以概率 1 - p = " +
                fmt_double(1.0 - p) + " 保留），其余都被置 0。");
  }
  nb.explain("In training, nn.Dropout zeroes each element independently with probability p, so the model cannot rely "
             "on any single attention weight; in eval() mode it does nothing. A matrix of ones makes the pattern "
             "easy to see: every 0 is a dropped element, and every other entry shows the factor the survivors are "
             "scaled by. torch.manual_seed(" + seed + ") first makes the random mask reproducible. The book uses "
             "p = 0.5 for clarity; the GPT models of later chapters train with 0.1 or 0.2.",
             "训练时，nn.Dropout 以概率 p 独立地把每个元素置 0，使模型无法依赖某一个注意力权重；在 eval() 模式下它什么也不做。"
             "用全 1 矩阵可以清楚地看出模式：每个 0 都是被丢弃的元素，其余元素显示的是幸存元素的放大倍数。先调用 "
             "torch.manual_seed(" + seed + ") 是为了让随机掩码可以重现。本书为了直观使用 p = 0.5；后续章节训练 GPT 模型时"
             "会使用 0.1 或 0.2 这样较低的 dropout 率。");
  if (p == 0.0 || p == 1.0)
    nb.confusion("the scale is 1/(1-p), not 1/p. p is the probability of DROPPING an entry, so the survivors of "
                 "Dropout(p) are multiplied by 1/(1-p) to keep their expected value; with p = 0.2, say, that is 1.25, "
                 "not 5. At p = 0 the scale is 1, and p = 1 keeps nothing to scale.",
                 "放大倍数是 1/(1-p)，而不是 1/p。p 是“丢弃”元素的概率，所以 Dropout(p) 要把幸存的元素乘以 1/(1-p)，才能"
                 "保持期望值不变；例如 p = 0.2 时放大倍数是 1.25，而不是 5。p = 0 时放大倍数为 1，p = 1 时则没有元素需要放大。");

  if (p > 0.0 && p < 1.0) {
    const float q = static_cast<float>(1.0 - p);
    const float scale = 1.0f / q;
    nb.cell({"scale = 1 / (1 - " + p_text(p) + ")", "print(scale)"});
    nb.print(fmt_double(static_cast<double>(scale)));
    const std::string s_text = fmt_double(static_cast<double>(scale));
    nb.note("Survivors are multiplied by 1/(1-p) = " + s_text + ": the expected value of each entry stays what it "
                "was, so the layer behaves the same on average in training (dropout on) and inference (dropout off). "
                "PyTorch computes it in float32 as 1/float32(1-p).",
            "幸存的元素乘以 1/(1-p) = " + s_text + "：每个元素的期望值保持不变，因此这一层在训练（启用 dropout）和推理"
                "（关闭 dropout）时的平均表现一致。PyTorch 以 float32 计算这个值：1/float32(1-p)。");
    nb.explain("Why rescale at all: in training each entry is kept with probability 1-p, so its expected value is "
               "(1-p) * x * scale, which equals x only when scale = 1/(1-p). At inference dropout is switched off and "
               "the weights are used as they are; without the scale, the next layer would see inputs about (1-p) "
               "times as large in training as at inference. This is 'inverted dropout': the correction is made in "
               "training, so inference needs no change.",
               "为什么要放大：训练时每个元素以 1-p 的概率保留，其期望值为 (1-p) · x · scale，只有 scale = 1/(1-p) 时才等于 "
               "x。推理时 dropout 关闭，注意力权重原样使用；如果不放大，下一层在训练时看到的输入平均只有推理时的 (1-p) 倍。"
               "这种做法称为 inverted dropout（反向 dropout）：修正在训练时完成，推理时无须任何改动。");
    const std::string why_en = "the scale is 1/(1-p), not 1/p. p is the probability of DROPPING an entry, so an entry "
                               "survives with probability 1-p and must be divided by 1-p to keep its expected value. ";
    const std::string why_zh = "放大倍数是 1/(1-p)，而不是 1/p。p 是“丢弃”元素的概率，每个元素以 1-p 的概率保留，所以要"
                               "除以 1-p 才能保持期望值不变。";
    if (p == 0.5)
      nb.confusion(why_en + "With the book's p = 0.5 both give 2 (the book writes 1/0.5 = 2), which hides the "
                            "difference; try --dropout 0.2: the survivors become 1.25 (1/0.8), not 5 (1/0.2).",
                   why_zh + "本书的 p = 0.5 时两者都等于 2（书中写作 1/0.5 = 2），看不出区别；试试 --dropout 0.2："
                            "幸存元素变为 1.25（1/0.8），而不是 5（1/0.2）。");
    else
      nb.confusion(why_en + "Here that is " + s_text + "; 1/p would be " + fmt_double(1.0 / p) +
                       ". (The book's 1/0.5 = 2 cannot tell the two apart, since there p = 1-p = 0.5.)",
                   why_zh + "这里放大倍数是 " + s_text + "，而 1/p 会是 " + fmt_double(1.0 / p) +
                       "。（书中的 1/0.5 = 2 无法区分两者，因为那里 p = 1-p = 0.5。）");
  }

  gen.manual_seed(opt.seed_or(123));
  nb.cell({"torch.manual_seed(" + fmt_seed(opt, 123) + ")", "print(dropout(attn_weights))"});
  Tensor dropped = dropout(w.attn_weights, p, gen, opt.bernoulli, &keep);
  nb.show("dropout(attn_weights)", dropped);
  if (p == 0.0)
    nb.note("Dropout(0.0) returns the causal attention weights unchanged.", "Dropout(0.0) 原样返回因果注意力权重。");
  else if (p == 1.0)
    nb.note("Dropout(1.0) zeroes every attention weight.", "Dropout(1.0) 把所有注意力权重都置 0。");
  else
    nb.note("The same seed gives the same mask as for the ones above: compare where the zeros are. Entries above "
            "the diagonal were already 0; dropout zeroes some of the others and scales the survivors by 1/(1-p).",
            "相同的种子给出与上面全 1 矩阵相同的掩码：比较一下 0 的位置。对角线以上的元素本来就是 0；dropout 又把其余元素中"
            "的一部分置 0，并把幸存的元素放大为原来的 1/(1-p) 倍。");
  nb.explain("Dropout is applied to the causal attention weights right after softmax, the more common of the two "
             "places GPT-like models use it (figure 3-22). Re-seeding reproduces the mask of the ones matrix, "
             "because the mask depends only on the random numbers and the number of elements, not on the values. "
             "A row can even lose all of its weights, and then that token's context vector is zero in this "
             "training step.",
             "dropout 作用于 softmax 之后的因果注意力权重，这是类 GPT 模型使用 dropout 的两个位置中更常见的一个（图 3-22）。"
             "重新设定相同的种子后，得到的掩码与全 1 矩阵的掩码相同，因为掩码只取决于随机数和元素个数，与元素的值无关。"
             "某一行甚至可能丢掉全部注意力权重，这时该词元在这一步训练中的上下文向量为零。");
  nb.confusion(std::string("dropout masks differ between machines. Up to PyTorch 2.6, the official x86 builds "
                           "running on an Intel CPU drew the mask with Intel MKL's own generator, seeded with a single "
                           "draw from torch's; AMD and Apple machines, and every machine since PyTorch 2.7, use "
                           "torch's generator directly. So the same torch.manual_seed(123) printed other zeros on "
                           "Intel (the reader's notebook, 001 In [38]-[39]); that is what the book's remark that the "
                           "output may differ by operating system is about. Both are correct dropout. ") +
                   (mkl ? "This run uses --bernoulli mkl, the Intel masks." :
                          "--bernoulli mkl reproduces the Intel masks."),
               std::string("不同机器上的 dropout 掩码可能不同。在 PyTorch 2.6 及之前的版本中，官方发布的 x86 版本在 Intel CPU "
                           "上运行时，用 Intel MKL 自己的随机数生成器抽取掩码（其种子取自 torch 生成器的一次抽取）；而 AMD "
                           "和 Apple 的机器，以及 PyTorch 2.7 之后的所有机器，都直接使用 torch 的生成器。因此同样的 "
                           "torch.manual_seed(123)，在 Intel 机器上打印出的 0 的位置不同（读者笔记 001 的 In [38]–[39]）；"
                           "书中“由于操作系统的差异，最终的 dropout 输出可能会有所不同”说的就是这件事。两种都是正确的 "
                           "dropout。") +
                   (mkl ? "本次运行使用 --bernoulli mkl，即 Intel 上的掩码。" : "用 --bernoulli mkl 可以重现 Intel 上的掩码。"));
  if (mkl)
    nb.note("--bernoulli mkl: these are the masks an Intel CPU printed with PyTorch <= 2.6 (001 In [38]-[39]). "
            "Whatever the tensor's size, this path takes exactly one number from torch's generator, the default "
            "path two per element, so everything drawn afterwards differs too.",
            "--bernoulli mkl：这是 PyTorch 2.6 及之前版本在 Intel CPU 上打印的掩码（001 的 In [38]–[39]）。无论张量多大，"
            "这条路径只从 torch 的生成器中取一个数，而默认路径每个元素取两个，因此之后抽取的所有随机数也都不同。");

  gen.manual_seed(opt.seed_or(123));
  nb.cell({"torch.manual_seed(" + fmt_seed(opt, 123) + ")", "print(dropout(attn_weights).sum(dim=-1))"});
  nb.show("dropout(attn_weights).sum(dim=-1)", sum(dropout(w.attn_weights, p, gen, opt.bernoulli), -1, false));
  if (p == 0.0)
    nb.note("With Dropout(0.0) every row still sums to 1: nothing was dropped.",
            "使用 Dropout(0.0) 时每一行之和仍为 1：没有任何元素被丢弃。");
  else
    nb.note("After dropout the rows no longer sum to 1: dropout is applied after softmax and is not "
            "renormalised. Only the expected row sum is still 1.",
            "dropout 之后，各行之和不再是 1：dropout 在 softmax 之后进行，而且不会重新归一化。只有每行之和的期望值仍为 1。");
  nb.explain("sum(dim=-1) adds up each row. Compare 3.5.1, where masking after softmax had to be followed by "
             "renormalising: there each row had to sum to exactly 1, because the hidden tokens must get no weight at "
             "all. Dropout is deliberate noise for training only: the 1/(1-p) scale keeps each row sum right on "
             "average, and at inference dropout is off and the rows sum to 1 again.",
             "sum(dim=-1) 对每一行求和。对比 3.5.1 节：那里在 softmax 之后掩码，必须再重新归一化，因为被隐藏的词元不能分到"
             "任何注意力权重，每行之和必须恰好为 1。dropout 则是仅在训练时有意加入的噪声：1/(1-p) 的放大让每行之和在平均"
             "意义上保持正确，而推理时 dropout 关闭，各行之和又恢复为 1。");

  nb.heading("3.5.3", "Implementing a compact causal attention class", "实现一个简化的因果注意力类");
  Tensor batch = batch_cell(nb, opt, false);

  const int64_t context_length = opt.context_length_or_tokens();
  std::vector<std::string> code = causal_attention_class_code();
  code.insert(code.end(), {"", "torch.manual_seed(" + fmt_seed(opt, 123) + ")",
                           opt.context_length ? "context_length = " + std::to_string(context_length)
                                              : "context_length = batch.shape[1]",
                           std::string("ca = CausalAttention(d_in, d_out, context_length, 0.0") +
                               (opt.qkv_bias ? ", qkv_bias=True)" : ")"),
                           "context_vecs = ca(batch)",
                           "print(\"context_vecs.shape:\", context_vecs.shape)"});
  nb.cell(code);
  gen.manual_seed(opt.seed_or(123));
  CausalAttention ca = CausalAttention::init(gen, opt.d_in(), opt.d_out, context_length, 0.0, opt.qkv_bias);
  CausalAttentionTrace t;
  Tensor context_vecs = ca.forward(batch, gen, opt.bernoulli, &t);
  nb.print("context_vecs.shape: " + repr_size(context_vecs.shape()));
  nb.note("register_buffer stores the mask with the module (it moves with it to a GPU) but it is not a "
          "parameter; [:num_tokens, :num_tokens] lets one module serve any text up to context_length tokens.",
          "register_buffer 把掩码与模块存放在一起（模块移到 GPU 时它也随之移动），但它不是参数；[:num_tokens, :num_tokens] "
          "让同一个模块能处理长度不超过 context_length 个词元的任意文本。");
  const std::string out_shape = shape_text(context_vecs.shape()), d_out = std::to_string(opt.d_out);
  nb.explain("Listing 3.3 gathers everything so far into one module: the three projections of SelfAttention_v2, the "
             "triu(diagonal=1) mask, the -inf fill, the scaled softmax and dropout after it. The mask is built once "
             "for context_length tokens and registered as a buffer, so it is saved in state_dict and moved by "
             ".to(device) but never updated by the optimizer. ca is created with dropout 0.0, so its output is "
             "deterministic; its shape " + out_shape + " holds one " + d_out + "-dimensional context vector per "
             "token and per text.",
             "代码清单 3-3 把目前为止的内容集中到一个模块中：SelfAttention_v2 的三个投影、triu(diagonal=1) 掩码、-inf 填充、"
             "缩放后的 softmax 以及其后的 dropout。掩码只按 context_length 个词元创建一次，并注册为缓冲区，因此它会保存在 "
             "state_dict 中、随 .to(device) 移动，但不会被优化器更新。创建 ca 时 dropout 率为 0.0，因此输出是确定的；输出形状 " +
             out_shape + " 表示每个文本的每个词元都有一个 " + d_out + " 维的上下文向量。");

  nb.cell({"# inside ca(batch), step by step", "keys = self.W_key(x)", "queries = self.W_query(x)",
           "values = self.W_value(x)", "print(keys)", "print(queries)", "print(values)"});
  nb.show("keys", t.keys);
  nb.show("queries", t.queries);
  nb.show("values", t.values);
  nb.note("The same projections as before, now for a batch: (b, num_tokens, d_out). nn.Linear works on the "
          "last dimension whatever comes before it.",
          "与之前相同的投影，只是现在作用于一个批次：形状为 (b, num_tokens, d_out)。无论前面有多少维，nn.Linear 都只作用于"
          "最后一维。");
  nb.explain("Inside forward, x is the whole batch " + shape_text(batch.shape()) + ". nn.Linear computes x @ W.T "
             "(plus the bias, if any) on the last dimension and treats every leading dimension as a batch, so all " +
             std::to_string(2 * n) + " token embeddings are projected with the same weights. Both texts are "
             "identical, so the two blocks of each tensor are too.",
             "在 forward 中，x 是整个批次，形状为 " + shape_text(batch.shape()) + "。nn.Linear 在最后一维上计算 x @ W.T（有"
             "偏置时再加上偏置），把前面的所有维度都当作批次维度，因此全部 " + std::to_string(2 * n) +
             " 个词元嵌入都用同一组权重投影。两个文本完全相同，所以每个张量的两个块也完全相同。");

  nb.cell({"attn_scores = queries @ keys.transpose(1, 2)",
           "attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)", "print(attn_scores)"});
  nb.show("attn_scores", t.attn_scores);
  nb.note("keys.transpose(1, 2) swaps tokens and features but leaves the batch dimension alone (keys.T would "
          "reverse all three). masked_fill_ with a trailing underscore works in place.",
          "keys.transpose(1, 2) 交换词元维和特征维，而批次维保持不变（keys.T 会把三个维度全部反转）。末尾带下划线的 "
          "masked_fill_ 是原地操作。");
  nb.explain("queries (b, N, d_out) @ keys.transpose(1, 2) (b, d_out, N) is a batched matrix product: one (N, N) "
             "score matrix per text. The mask buffer is cut down to the current number of tokens and broadcast over "
             "the batch dimension, so every text is masked the same way. Filling in place saves a copy of the "
             "scores.",
             "queries (b, N, d_out) 与 keys.transpose(1, 2) (b, d_out, N) 相乘是批量矩阵乘法：每个文本得到一个 (N, N) 的"
             "注意力分数矩阵。掩码缓冲区先被截取到当前的词元数，再沿批次维广播，因此每个文本都按同样的方式掩码。原地填充"
             "省去了一次注意力分数的复制。");

  nb.cell({"attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)",
           "attn_weights = self.dropout(attn_weights)", "print(attn_weights)"});
  nb.show("attn_weights", t.dropped_weights);
  nb.note("Causal attention weights for each text: Dropout(0.0) passes them through untouched.",
          "每个文本各自的因果注意力权重：Dropout(0.0) 让它们原样通过。");
  nb.explain(std::string("The same two steps as in 3.5.1 and 3.5.2, now inside the module: scale by sqrt(d_k) with "
                         "d_k = keys.shape[-1], softmax, then dropout. Because ca was built with dropout 0.0, "
                         "self.dropout returns its input and draws no random numbers, so these are plain causal "
                         "attention weights, one block per text") +
                 (opt.seed ? "." : " (other numbers than in 3.5.1: ca's projections were drawn after "
                                   "torch.manual_seed(123), not 789).") +
                 " In training with p > 0, every call would draw a new mask.",
             std::string("这是模块内部的两步，与 3.5.1 和 3.5.2 节相同：除以 sqrt(d_k)（d_k = keys.shape[-1]）进行缩放，"
                         "做 softmax，再应用 dropout。由于创建 ca 时 dropout 率为 0.0，self.dropout 原样返回输入，也不抽取"
                         "随机数，所以这里就是普通的因果注意力权重，每个文本一个块") +
                 (opt.seed ? "。" : "（数值与 3.5.1 节不同：ca 的投影是在 torch.manual_seed(123) 而不是 789 之后抽取的）。") +
                 "训练时若 p > 0，每次调用都会抽取新的掩码。");
  nb.confusion("dim=-1, not dim=1, once there is a batch dimension. The scores are now (b, num_tokens, num_tokens), "
               "so dim=1 is the QUERY axis: softmax over it would make every column sum to 1 and give wrong weights "
               "without any error. The 2-D cells of 3.5.1 wrote dim=1 because there it was the last dimension; "
               "dim=-1 always means the keys, with or without a batch.",
               "有了批次维之后，要用 dim=-1 而不是 dim=1。注意力分数现在的形状是 (b, num_tokens, num_tokens)，dim=1 变成了"
               "查询所在的维度：沿它做 softmax 会让每一“列”之和为 1，得到错误的注意力权重，却不会报任何错。3.5.1 节的二维"
               "代码写 dim=1，是因为在那里它恰好是最后一维；而 dim=-1 无论有没有批次维，始终指向键的方向。");

  nb.cell({"context_vec = attn_weights @ values", "return context_vec", "# back outside: context_vecs = ca(batch)",
           "print(context_vecs)"});
  nb.show("context_vecs", context_vecs);
  nb.note("One causal context vector per token and per text: both texts are identical, so both blocks are.",
          "每个文本的每个词元各有一个因果上下文向量：两个文本完全相同，因此两个块也完全相同。");
  nb.explain("attn_weights (b, N, N) @ values (b, N, d_out) is again a batched product, giving (b, N, d_out). This "
             "CausalAttention is the single-head attention that 3.6 stacks into multi-head attention: the wrapper "
             "runs several of them side by side and concatenates their outputs.",
             "attn_weights (b, N, N) 与 values (b, N, d_out) 相乘同样是批量矩阵乘法，结果形状为 (b, N, d_out)。这个 "
             "CausalAttention 就是单头注意力，3.6 节会把它扩展为多头注意力：封装类并排运行多个这样的模块，再把它们的输出"
             "连接起来。");
  return nb;
}

}  // namespace attn
