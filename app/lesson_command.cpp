#include "lesson_command.h"

#include <cstdlib>
#include <sstream>

#include "core/generator.h"
#include "core/inputs.h"
#include "language.h"
#include "core/usage_error.h"

namespace attn {

OptionSet options_for(const std::string& lesson) {
  OptionSet s;
  s.init = lesson == "trainable" || lesson == "all";
  s.heads = lesson == "wrapper" || lesson == "mha" || lesson == "all";
  s.dropout = lesson == "dropout" || lesson == "wrapper" || lesson == "mha" || lesson == "all";
  s.context = lesson == "causal-mask" || lesson == "dropout" || lesson == "wrapper" || lesson == "mha" ||
              lesson == "all";
  s.bernoulli = s.dropout || lesson == "causal-mask";
  s.no_reseed = lesson == "wrapper" || lesson == "all";
  s.gpt2 = lesson == "mha" || lesson == "all";
  s.course = lesson == "course-mha";
  s.d2l = lesson == "d2l-mha";
  if (s.course || s.d2l) s.heads = s.dropout = s.bernoulli = true;
  if (s.course) s.context = true;
  return s;
}

void add_lesson_options(CLI::App* sub, CliOptions& o, const OptionSet& set) {
  sub->add_option("--seed", o.seed,
                  tr("Use N instead of every torch.manual_seed(k) of the lesson (any integer torch accepts, "
                     "-2^63 .. 2^64-1)",
                     "用 N 代替本课中每个 torch.manual_seed(k) 的种子（torch 接受的任意整数，-2^63 .. 2^64-1）"))
      ->type_name("N");
  sub->add_option("--inputs", o.inputs,
                  tr("JSON file of token embeddings: [[...], ...] or {\"tokens\": [...], \"inputs\": [[...], ...]}; "
                     "at least 2 rows of equal length (default: the book's six 3-d embeddings)",
                     "词元嵌入的 JSON 文件：[[...], ...] 或 {\"tokens\": [...], \"inputs\": [[...], ...]}；"
                     "至少 2 行且长度相同（默认：书中 6 个三维嵌入向量）"))
      ->type_name("FILE");
  sub->add_option_function<std::string>(
         "--tokens", [&o](const std::string& text) { o.tokens = text; o.tokens_given = true; },
         tr("Your own sentence: each word gets a seeded random embedding (torch.rand after "
            "torch.manual_seed(--seed, else 123)) of --d-in numbers; instead of --inputs",
            "你自己的句子：每个词得到一个带种子的随机嵌入（torch.manual_seed(--seed，否则 123) 之后的 torch.rand），"
            "长度为 --d-in；代替 --inputs"))
      ->type_name("TEXT");
  sub->add_option("--d-in", o.d_in, tr("With --tokens: the embedding size, 1-16 (default 3)",
                                       "与 --tokens 一起使用：嵌入维度，1-16（默认 3）"))
      ->check(CLI::Range(1, 16))
      ->type_name("N");
  sub->add_option("--d-out", o.d_out, tr("Output embedding size d_out, 1-4096 (default 2; in wrapper it is per head)",
                                         "输出嵌入维度 d_out，1-4096（默认 2；在 wrapper 中是每个头的维度）"))
      ->check(CLI::Range(1, 4096))
      ->type_name("N");
  sub->add_flag("--qkv-bias", o.qkv_bias,
                tr("Give the query/key/value nn.Linear layers a bias (qkv_bias=True; d2l-mha: bias=True, W_o too)",
                   "为查询/键/值的 nn.Linear 层加偏置（qkv_bias=True；d2l-mha 中为 bias=True，W_o 也有）"));
  if (set.init)
    sub->add_option("--init", o.init,
                    tr("trainable: how W_query/W_key/W_value are drawn in 3.4.1 (default rand, as in the book; randn "
                       "reproduces the reader's notebook with --seed 42)",
                       "trainable：3.4.1 节中 W_query/W_key/W_value 的随机方式（默认 rand，与书中相同；randn 配合 "
                       "--seed 42 重现读者笔记）"))
        ->check(CLI::IsMember({"rand", "randn"}));
  if (set.heads)
    sub->add_option("--num-heads", o.num_heads,
                    tr("Number of attention heads (default 2; d2l-mha 5; course-mha 3, or 8 with --preset post)",
                       "注意力头的数量（默认 2；d2l-mha 为 5；course-mha 为 3，--preset post 时为 8）"))
        ->type_name("N");
  if (set.dropout)
    sub->add_option("--dropout", o.dropout,
                    tr("Dropout rate P, 0 <= P <= 1 (dropout lesson: the 3.5.2 rate, book 0.5; wrapper/mha: the "
                       "modules' rate, book 0.0; d2l-mha: P > 0 runs the module in train() mode, the post uses "
                       "0.5 in eval(); course-mha: both of the post's dropouts, default 0.1)",
                       "dropout 率 P，0 <= P <= 1（dropout 课：3.5.2 节的比率，书中为 0.5；wrapper/mha：模块的比率，"
                       "书中为 0.0；d2l-mha：P > 0 时以 train() 模式运行，原文为 eval() 下的 0.5；course-mha："
                       "原文的两处 dropout，默认 0.1）"))
        ->type_name("P");
  if (set.context)
    sub->add_option("--context-length", o.context_length,
                    tr("context_length of the causal mask buffer (default: the number of tokens, course-mha --preset "
                       "post 128; must be at least the number of tokens)",
                       "因果掩码缓冲区的 context_length（默认：词元数；course-mha --preset post 为 128；不得小于词元数）"))
        ->type_name("N");
  if (set.bernoulli)
    sub->add_option("--bernoulli", o.bernoulli,
                    tr("Dropout-mask algorithm: default (the book's, every machine since PyTorch 2.7) or mkl (Intel "
                       "CPUs with PyTorch <= 2.6, as in the reader's notebook)",
                       "dropout 掩码算法：default（书中的，PyTorch 2.7 起所有机器）或 mkl（PyTorch <= 2.6 的 Intel "
                       "CPU，如读者笔记）"))
        ->check(CLI::IsMember({"default", "mkl"}));
  if (set.no_reseed)
    sub->add_flag("--no-reseed", o.no_reseed,
                  tr("wrapper: run the CausalAttention cell first and build the wrapper without calling "
                     "torch.manual_seed again, so the generator carries over (the reader's notebook, 001 In [45])",
                     "wrapper：先运行 CausalAttention 单元格，再不重新调用 torch.manual_seed 就构建 wrapper，"
                     "随机数生成器的状态因此延续（读者笔记 001 In [45]）"));
  if (set.course) {
    sub->add_option("--preset", o.preset,
                    tr("small: the chapter's embeddings (default); post: the course's settings (d_model 512, 8 heads, "
                       "context 128, dropout 0.1) on seeded random input",
                       "small：本章的嵌入（默认）；post：课程原文的设置（d_model 512、8 个头、上下文 128、dropout 0.1），"
                       "输入为带种子的随机数"))
        ->check(CLI::IsMember({"small", "post"}));
    sub->add_option("--d-model", o.d_model,
                    tr("Model width d_model (default: the embedding size, or 512 with --preset post)",
                       "模型宽度 d_model（默认：嵌入维度；--preset post 时为 512）"))
        ->check(CLI::Range(1, 4096))
        ->type_name("N");
  }
  if (set.d2l) {
    sub->add_option("--num-hiddens", o.num_hiddens,
                    tr("Model width num_hiddens (default: the post's 100)", "模型宽度 num_hiddens（默认：原文的 100）"))
        ->check(CLI::Range(1, 4096))
        ->type_name("N");
    sub->add_option("--valid-lens", o.valid_lens,
                    tr("Padding mask: \"3,2\" (valid keys per sequence) or \"[[1,2,3,4],[1,2,2,2]]\" (per query); "
                       "default the post's [3, 2]",
                       "填充掩码：\"3,2\"（每个序列的有效键数）或 \"[[1,2,3,4],[1,2,2,2]]\"（每个查询）；默认为原文的 [3, 2]"))
        ->type_name("LENS");
  }
  if (set.gpt2)
    sub->add_flag("--gpt2", o.gpt2,
                  tr("mha: exercise 3.3, a GPT-2-small sized module (768 -> 768, 12 heads, context 1024)",
                     "mha：练习 3.3，GPT-2 small 规模的模块（768 -> 768、12 个头、上下文 1024）"));
  sub->add_option("--json", o.json,
                  tr("Write every intermediate tensor as JSON to FILE (atomically); '-' writes the JSON to stdout "
                     "instead of the notebook text",
                     "把每个中间张量以 JSON 写入 FILE（原子写入）；'-' 表示写到标准输出，代替笔记本文本"))
      ->type_name("FILE|-");
  sub->add_option("--lang", o.lang,
                  tr("Language of the annotations and titles: en or zh (the Chinese edition's terms); default from "
                     "LC_ALL/LANG, else en",
                     "注释与标题的语言：en 或 zh（采用中文版术语）；默认取自 LC_ALL/LANG，否则为 en"))
      ->check(CLI::IsMember({"en", "zh"}));
  sub->add_flag("--explain", o.explain,
                tr("Add the longer explanation of each cell", "为每个单元格加上更详细的解释"));
  sub->add_flag("--step", o.step,
                tr("Pause after each cell (Enter: next, b: back, q: quit) when stdin and stdout are a terminal",
                   "每个单元格后暂停（回车：下一个，b：返回，q：退出），仅当标准输入和输出都是终端时"));
  sub->add_option("--color", o.color, tr("auto (a terminal without NO_COLOR), always or never",
                                         "auto（终端且未设置 NO_COLOR）、always 或 never"))
      ->check(CLI::IsMember({"auto", "always", "never"}));
  sub->add_flag("--heatmap", o.heatmap,
                tr("Draw every attention matrix (scores, weights, masks, dropout results) as a grid with the tokens "
                   "on both axes, right after its output",
                   "把每个注意力矩阵（注意力分数、注意力权重、掩码、dropout 结果）画成热力图，行列标注词元，紧跟在其输出之后"));
  sub->add_option("--html", o.html,
                  tr("Also write a self-contained HTML report (code, notes, tensors, SVG heatmaps) to FILE (atomically)",
                     "另外把自包含的 HTML 报告（代码、注释、张量、SVG 热力图）写入 FILE（原子写入）"))
      ->type_name("FILE");
}

LessonOptions to_lesson_options(const CliOptions& o, Lang env_lang) {
  LessonOptions opt;
  opt.lang = o.lang.empty() ? env_lang : (o.lang == "zh" ? Lang::Zh : Lang::En);
  opt.explain = o.explain;
  if (!o.seed.empty()) {
    opt.seed = parse_torch_seed(o.seed);
    if (!opt.seed)
      throw UsageError("--seed " + o.seed + ": not an integer torch.manual_seed accepts; use a whole number "
                                            "from -9223372036854775808 to 18446744073709551615");
    opt.seed_text = o.seed;
  }
  if (!o.tokens.empty() || o.tokens_given) {
    if (!o.inputs.empty())
      throw UsageError("--tokens and --inputs both give the embeddings; use one of them");
    opt.inputs = sentence_inputs(o.tokens, o.d_in, opt.seed_or(123));
    opt.custom_inputs = true;
    opt.inputs_source = "tokens";
  } else if (!o.inputs.empty()) {
    opt.inputs = load_inputs(o.inputs);
    opt.custom_inputs = true;
    opt.inputs_source = o.inputs;
  }
  if (opt.custom_inputs && (opt.num_tokens() > 16 || opt.d_in() > 16))
    throw UsageError((o.inputs.empty() ? std::string("--tokens: ") : "--inputs " + o.inputs + ": ") +
                     "at most 16 tokens of at most 16 numbers each, so every tensor stays readable; shorten the "
                     "sentence or the embeddings");
  opt.d_out = o.d_out;
  opt.qkv_bias = o.qkv_bias;
  opt.init = o.init == "randn" ? Init::Randn : Init::Rand;
  if (o.num_heads != kNotGiven) {
    if (o.num_heads < 1)
      throw UsageError("--num-heads " + std::to_string(o.num_heads) +
                       ": attention needs at least one head; use --num-heads 1 or more");
    if (o.num_heads > 64) throw UsageError("--num-heads " + std::to_string(o.num_heads) + ": at most 64 heads here");
    opt.num_heads = o.num_heads;
  }
  opt.preset = o.preset;
  if (o.d_model > 0) opt.d_model = o.d_model;
  if (o.num_hiddens > 0) opt.num_hiddens = o.num_hiddens;
  if (!o.valid_lens.empty()) opt.valid_lens = o.valid_lens;
  if (!o.dropout.empty()) {
    char* end = nullptr;
    const double p = std::strtod(o.dropout.c_str(), &end);
    if (end == o.dropout.c_str() || *end != '\0' || !(p >= 0.0 && p <= 1.0))
      throw UsageError("--dropout " + o.dropout +
                       ": a dropout rate is a probability; use a number from 0 (keep all) to 1 (drop all)");
    opt.dropout = p;
  }
  if (o.context_length != 0) {
    if (o.context_length < opt.num_tokens())
      throw UsageError("--context-length " + std::to_string(o.context_length) + ": smaller than the " +
                       std::to_string(opt.num_tokens()) + " input tokens; the causal mask is a context_length x "
                       "context_length buffer and mask[:num_tokens, :num_tokens] cannot cover more tokens than that. "
                       "Use --context-length " + std::to_string(opt.num_tokens()) + " or more");
    if (o.context_length > 4096)
      throw UsageError("--context-length " + std::to_string(o.context_length) + ": at most 4096 here; use a smaller value");
    opt.context_length = o.context_length;
  }
  opt.bernoulli = o.bernoulli == "mkl" ? BernoulliPath::Mkl : BernoulliPath::Default;
  opt.no_reseed = o.no_reseed;
  opt.gpt2 = o.gpt2;
  return opt;
}

LessonOptions parse_lesson_words(const std::string& lesson, const std::string& words) {
  CLI::App app{"", "attn-tutor"};
  CliOptions o;
  CLI::App* sub = app.add_subcommand(lesson, "");
  add_lesson_options(sub, o, options_for(lesson));
  std::vector<std::string> args = {lesson};
  std::istringstream in(words);
  for (std::string w; in >> w;) args.push_back(w);
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  app.parse(reversed);
  return to_lesson_options(o, Lang::En);
}

}  // namespace attn
