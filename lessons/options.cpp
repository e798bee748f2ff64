#include "lessons/options.h"

#include <stdexcept>

namespace attn {

std::string OptionRow::config_key() const {
  std::string key = flag.substr(2);
  for (char& c : key)
    if (c == '-') c = '_';
  return key;
}

// Order: as `attn-tutor LESSON --help` lists them.
const std::vector<OptionRow>& option_table() {
  static const std::vector<OptionRow> rows = {
      // flag, kind, value name, choices, min, max, every lesson, help (en, zh)
      {"--seed", OptionKind::Text, "N", {}, 0, 0, true,
       "Use N instead of every torch.manual_seed(k) of the lesson (any integer torch accepts, "
       "-2^63 .. 2^64-1)",
       "用 N 代替本课中每个 torch.manual_seed(k) 的种子（torch 接受的任意整数，-2^63 .. 2^64-1）"},
      {"--inputs", OptionKind::Text, "FILE", {}, 0, 0, true,
       "JSON file of token embeddings: [[...], ...] or {\"tokens\": [...], \"inputs\": [[...], ...]}; "
       "at least 2 rows of equal length (default: the book's six 3-d embeddings)",
       "词元嵌入的 JSON 文件：[[...], ...] 或 {\"tokens\": [...], \"inputs\": [[...], ...]}；"
       "至少 2 行且长度相同（默认：书中 6 个三维嵌入向量）"},
      {"--tokens", OptionKind::Text, "TEXT", {}, 0, 0, true,
       "Your own sentence: each word gets a seeded random embedding (torch.rand after "
       "torch.manual_seed(--seed, else 123)) of --d-in numbers; instead of --inputs",
       "你自己的句子：每个词得到一个带种子的随机嵌入（torch.manual_seed(--seed，否则 123) 之后的 torch.rand），"
       "长度为 --d-in；代替 --inputs"},
      {"--d-in", OptionKind::Integer, "N", {}, 1, 16, true,
       "With --tokens: the embedding size, 1-16 (default 3)",
       "与 --tokens 一起使用：嵌入维度，1-16（默认 3）"},
      {"--d-out", OptionKind::Integer, "N", {}, 1, 4096, true,
       "Output embedding size d_out, 1-4096 (default 2; in wrapper it is per head)",
       "输出嵌入维度 d_out，1-4096（默认 2；在 wrapper 中是每个头的维度）"},
      {"--qkv-bias", OptionKind::Flag, "", {}, 0, 0, true,
       "Give the query/key/value nn.Linear layers a bias (qkv_bias=True; d2l-mha: bias=True, W_o too)",
       "为查询/键/值的 nn.Linear 层加偏置（qkv_bias=True；d2l-mha 中为 bias=True，W_o 也有）"},
      {"--init", OptionKind::Choice, "", {"rand", "randn"}, 0, 0, false,
       "trainable: how W_query/W_key/W_value are drawn in 3.4.1 (default rand, as in the book; randn "
       "reproduces the reader's notebook with --seed 42)",
       "trainable：3.4.1 节中 W_query/W_key/W_value 的随机方式（默认 rand，与书中相同；randn 配合 "
       "--seed 42 重现读者笔记）"},
      {"--num-heads", OptionKind::Integer, "N", {}, 0, 0, false,
       "Number of attention heads (default 2; d2l-mha 5; course-mha 3, or 8 with --preset post)",
       "注意力头的数量（默认 2；d2l-mha 为 5；course-mha 为 3，--preset post 时为 8）"},
      {"--dropout", OptionKind::Number, "P", {}, 0, 0, false,
       "Dropout rate P, 0 <= P <= 1 (dropout lesson: the 3.5.2 rate, book 0.5; wrapper/mha: the "
       "modules' rate, book 0.0; d2l-mha: P > 0 runs the module in train() mode, the post uses "
       "0.5 in eval(); course-mha: both of the post's dropouts, default 0.1)",
       "dropout 率 P，0 <= P <= 1（dropout 课：3.5.2 节的比率，书中为 0.5；wrapper/mha：模块的比率，"
       "书中为 0.0；d2l-mha：P > 0 时以 train() 模式运行，原文为 eval() 下的 0.5；course-mha："
       "原文的两处 dropout，默认 0.1）"},
      {"--context-length", OptionKind::Integer, "N", {}, 0, 0, false,
       "context_length of the causal mask buffer (default: the number of tokens, course-mha --preset "
       "post 128; must be at least the number of tokens)",
       "因果掩码缓冲区的 context_length（默认：词元数；course-mha --preset post 为 128；不得小于词元数）"},
      {"--bernoulli", OptionKind::Choice, "", {"default", "mkl"}, 0, 0, false,
       "Dropout-mask algorithm: default (the book's, every machine since PyTorch 2.7) or mkl (Intel "
       "CPUs with PyTorch <= 2.6, as in the reader's notebook)",
       "dropout 掩码算法：default（书中的，PyTorch 2.7 起所有机器）或 mkl（PyTorch <= 2.6 的 Intel "
       "CPU，如读者笔记）"},
      {"--no-reseed", OptionKind::Flag, "", {}, 0, 0, false,
       "wrapper: run the CausalAttention cell first and build the wrapper without calling "
       "torch.manual_seed again, so the generator carries over (the reader's notebook, 001 In [45])",
       "wrapper：先运行 CausalAttention 单元格，再不重新调用 torch.manual_seed 就构建 wrapper，"
       "随机数生成器的状态因此延续（读者笔记 001 In [45]）"},
      {"--preset", OptionKind::Choice, "", {"small", "post"}, 0, 0, false,
       "small: the chapter's embeddings (default); post: the course's settings (d_model 512, 8 heads, "
       "context 128, dropout 0.1) on seeded random input",
       "small：本章的嵌入（默认）；post：课程原文的设置（d_model 512、8 个头、上下文 128、dropout 0.1），"
       "输入为带种子的随机数"},
      {"--d-model", OptionKind::Integer, "N", {}, 1, 4096, false,
       "Model width d_model (default: the embedding size, or 512 with --preset post)",
       "模型宽度 d_model（默认：嵌入维度；--preset post 时为 512）"},
      {"--num-hiddens", OptionKind::Integer, "N", {}, 1, 4096, false,
       "Model width num_hiddens (default: the post's 100)",
       "模型宽度 num_hiddens（默认：原文的 100）"},
      {"--valid-lens", OptionKind::Text, "LENS", {}, 0, 0, false,
       "Padding mask: \"3,2\" (valid keys per sequence) or \"[[1,2,3,4],[1,2,2,2]]\" (per query); "
       "default the post's [3, 2]",
       "填充掩码：\"3,2\"（每个序列的有效键数）或 \"[[1,2,3,4],[1,2,2,2]]\"（每个查询）；默认为原文的 [3, 2]"},
      {"--gpt2", OptionKind::Flag, "", {}, 0, 0, false,
       "mha: exercise 3.3, a GPT-2-small sized module (768 -> 768, 12 heads, context 1024)",
       "mha：练习 3.3，GPT-2 small 规模的模块（768 -> 768、12 个头、上下文 1024）"},
      {"--num-kv-groups", OptionKind::Integer, "G", {}, 1, 64, false,
       "gqa: key/value heads, each shared by num_heads / G query heads (default 2; G = --num-heads is "
       "multi-head attention, G = 1 multi-query attention); must divide --num-heads",
       "gqa：键/值头的数量，每个由 num_heads / G 个查询头共享（默认 2；G = --num-heads 即多头注意力，"
       "G = 1 即多查询注意力）；必须整除 --num-heads"},
      {"--latent-dim", OptionKind::Integer, "D", {}, 1, 4096, false,
       "mla: the latent size that keys and values are compressed to and the cache holds (default 2; the "
       "class's own default is max(16, d_out // 8))",
       "mla：键和值被压缩到的潜在维度，也是缓存保存的内容（默认 2；类自身的默认值为 max(16, d_out // 8)）"},
      {"--window", OptionKind::Integer, "W", {}, 1, 4096, false,
       "swa: the sliding window, W tokens including the query's own (default 3; W >= the number of tokens "
       "is plain causal attention)",
       "swa：滑动窗口大小，W 个词元（含查询自身）（默认 3；W 不小于词元数时即普通因果注意力）"},
      {"--json", OptionKind::Text, "FILE|-", {}, 0, 0, true,
       "Write every intermediate tensor as JSON to FILE (atomically); '-' writes the JSON to stdout "
       "instead of the notebook text",
       "把每个中间张量以 JSON 写入 FILE（原子写入）；'-' 表示写到标准输出，代替笔记本文本"},
      {"--lang", OptionKind::Choice, "", {"en", "zh"}, 0, 0, true,
       "Language of the annotations and titles: en or zh (the Chinese edition's terms); default from "
       "LC_ALL/LANG, else en",
       "注释与标题的语言：en 或 zh（采用中文版术语）；默认取自 LC_ALL/LANG，否则为 en"},
      {"--explain", OptionKind::Flag, "", {}, 0, 0, true,
       "Add the longer explanation of each cell",
       "为每个单元格加上更详细的解释"},
      {"--step", OptionKind::Flag, "", {}, 0, 0, true,
       "Pause after each cell (Enter: next, b: back, q: quit) when stdin and stdout are a terminal",
       "每个单元格后暂停（回车：下一个，b：返回，q：退出），仅当标准输入和输出都是终端时"},
      {"--color", OptionKind::Choice, "", {"auto", "always", "never"}, 0, 0, true,
       "auto (a terminal without NO_COLOR), always or never",
       "auto（终端且未设置 NO_COLOR）、always 或 never"},
      {"--heatmap", OptionKind::Flag, "", {}, 0, 0, true,
       "Draw every attention matrix (scores, weights, masks, dropout results) as a grid with the tokens "
       "on both axes, right after its output",
       "把每个注意力矩阵（注意力分数、注意力权重、掩码、dropout 结果）画成热力图，行列标注词元，紧跟在其输出之后"},
      {"--html", OptionKind::Text, "FILE", {}, 0, 0, true,
       "Also write a self-contained HTML report (code, notes, tensors, SVG heatmaps) to FILE (atomically)",
       "另外把自包含的 HTML 报告（代码、注释、张量、SVG 热力图）写入 FILE（原子写入）"},
  };
  return rows;
}

const OptionRow& option_row(const std::string& flag) {
  for (const OptionRow& row : option_table())
    if (row.flag == flag) return row;
  throw std::logic_error("no option " + flag + " in the option table");
}

}  // namespace attn
