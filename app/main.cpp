// attn-tutor: the command line. Parsing and dispatch only; the lessons live in lessons/.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

#include "atomic_file.h"
#include "attention_bench.h"
#include "bench_report.h"
#include "check_report.h"
#include "html_report.h"
#include "did_you_mean.h"
#include "language.h"
#include "step_mode.h"
#include "json_export.h"
#include "lesson.h"
#include "notebook_text.h"
#include "replay.h"
#include "usage_error.h"
#include "verify.h"

namespace {

using namespace attn;

constexpr int64_t kNotGiven = std::numeric_limits<int64_t>::min();

struct CliOptions {
  std::string seed;
  std::string inputs;
  int64_t d_out = 2;
  bool qkv_bias = false;
  std::string init = "rand";
  std::string json;
  std::string color = "auto";
  bool heatmap = false;         // --heatmap: attention matrices as coloured grids
  std::string html;             // --html FILE: a self-contained report
  int64_t num_heads = kNotGiven;
  std::string dropout;          // empty: the lesson's book value
  int64_t context_length = 0;   // 0: the number of tokens
  std::string bernoulli = "default";
  bool no_reseed = false;
  bool gpt2 = false;
  bool step = false;
  std::string lang;  // empty: from the environment
  bool explain = false;
  std::string tokens;           // --tokens "a sentence"
  bool tokens_given = false;
  int64_t d_in = 3;
  std::string preset = "small";
  int64_t d_model = 0;
  int64_t num_hiddens = 0;
  std::string valid_lens;
};

// Which options a subcommand offers beyond the common ones.
struct OptionSet {
  bool init = false, heads = false, dropout = false, context = false, bernoulli = false, no_reseed = false,
       gpt2 = false, course = false, d2l = false;
};

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

bool use_color(const std::string& mode) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  if (no_color && *no_color) return false;
  if (term && std::string(term) == "dumb") return false;
  return isatty(STDOUT_FILENO) == 1;
}

Notebook run_all(const LessonOptions& opt) {
  Notebook all("all", {}, opt.config_json(), opt.inputs.tokens);
  for (const LessonInfo& lesson : lessons())
    if (lesson.sections.front().rfind("3.", 0) == 0) all.append(lesson.run(opt));  // the chapter's lessons
  return all;
}

int emit(const Notebook& nb, const CliOptions& cli) {
  if (!cli.html.empty()) {
    const std::string error = write_file_atomically(cli.html, html_report(nb));
    if (!error.empty()) throw UsageError("--html " + error + "; choose a path in a writable directory");
  }
  if (cli.json == "-") {
    std::cout << export_json(nb, ATTN_TUTOR_VERSION);
    return 0;
  }
  if (!cli.json.empty()) {
    const std::string error = write_file_atomically(cli.json, export_json(nb, ATTN_TUTOR_VERSION));
    if (!error.empty()) throw UsageError("--json " + error + "; choose a path in a writable directory");
  }
  TextOptions options;
  options.color = use_color(cli.color);
  options.heatmap = cli.heatmap;
  options.palette = palette_for(options.color, std::getenv("COLORTERM"));
  const std::string text = render_text(nb, options);
  if (cli.step && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1) {
    step_through(split_cells(text), std::cin, std::cout);
    return 0;
  }
  std::cout << text;  // --step is ignored unless both ends are a terminal
  return 0;
}

// A lesson's options from command-line words (verify's reference entries carry them as text).
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

int run_verify(const std::string& only_lesson) {
  if (!only_lesson.empty() && !find_lesson(only_lesson))
    throw UsageError("verify " + only_lesson + ": no such lesson; run 'attn-tutor' to list them");
  const std::vector<ReferenceEntry> reference = parse_reference(embedded_book_reference());
  const auto results = verify_reference(reference, only_lesson, [](const std::string& lesson, const std::string& words) {
    return find_lesson(lesson)->run(parse_lesson_words(lesson, words));
  });
  int passed = 0, failed = 0;
  for (const VerifyResult& r : results) {
    char diff[32];
    if (r.max_diff < 0) std::snprintf(diff, sizeof diff, "n/a");
    else std::snprintf(diff, sizeof diff, "%.4g", r.max_diff);
    std::cout << (r.ok ? "\u2713 " : "\u2717 ") << r.entry->lesson << "  " << r.entry->name << "  " << r.shape
              << "  max|diff| " << diff << "  [" << r.entry->source
              << (r.entry->options.empty() ? "" : ", " + r.entry->options) << "]\n";
    if (!r.ok) std::cout << "    expected:\n" << r.entry->text << "\n    attn-tutor printed:\n" << r.actual << "\n";
    (r.ok ? passed : failed)++;
  }
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed == 0 && passed > 0 ? 0 : 1;
}

// check FILE: the learner's exported tensors against the lesson replayed with the same settings.
int run_check(const std::string& path, const std::string& color) {
  const CheckReport report = check_file(path);
  std::cout << render_report(report, use_color(color));
  return report.ok() ? 0 : 1;
}

std::string lesson_list() {
  std::string out = "attn-tutor " ATTN_TUTOR_VERSION +
                    tr(": Chapter 3 of \"Build a Large Language Model (From Scratch)\", cell by cell.\n\nLessons:\n",
                       "：逐个单元格重现《从零构建大模型》第 3 章。\n\n课程：\n");
  for (const LessonInfo& l : lessons()) {
    std::string sections;
    for (const std::string& s : l.sections) sections += (sections.empty() ? "" : ", ") + s;
    char line[256];
    const bool book = sections.rfind("3.", 0) == 0;
    const std::string where = book ? "\u00a7" + sections : "seed " + sections;
    const int width = book ? 17 : 16;  // "§" takes two bytes
    std::snprintf(line, sizeof line, "  %-14s %-*s %s\n", l.name.c_str(), width, where.c_str(),
                  tr(l.title, l.title_zh).c_str());
    out += line;
  }
  out += tr("  all            every lesson in book order\n  verify         compare with every tensor the book prints\n",
            "  all            按本书顺序运行全部课程\n  verify         与书中打印的每个张量逐一比对\n");
  out += tr("  check FILE     compare your own PyTorch tensors (tools/export_pytorch.py) with a lesson\n",
            "  check FILE     将你自己的 PyTorch 张量（tools/export_pytorch.py 导出）与课程逐一比对\n");
  out += tr("  bench          time the wrapper, MultiHeadAttention, fused qkv and flash attention at GPT-2 size\n",
            "  bench          在 GPT-2 规模上为封装类、MultiHeadAttention、合并 qkv 和 flash 注意力计时\n");
  out += tr("\nRun 'attn-tutor LESSON' to replay one, 'attn-tutor LESSON --help' for its options.\n",
            "\n运行 'attn-tutor 课程名' 重现一节，'attn-tutor 课程名 --help' 查看其选项。\n");
  return out;
}

struct BenchCli {
  BenchOptions options;
  int64_t threads = kNotGiven;  // default: every hardware thread
  std::string seed;
  std::string json;
  std::string lang;
};

void add_bench_options(CLI::App* sub, BenchCli& b) {
  AttentionShape& s = b.options.shape;
  sub->add_option("--batch", s.batch, tr("Sequences per batch (default 8)", "每批的序列数（默认 8）"))->type_name("N");
  sub->add_option("--tokens", s.tokens, tr("Tokens per sequence, T (default 1024)", "每个序列的词元数 T（默认 1024）"))
      ->type_name("N");
  sub->add_option("--d-model", s.d_model, tr("Embedding size, d_in = d_out (default 768)", "嵌入维度，d_in = d_out（默认 768）"))
      ->type_name("N");
  sub->add_option("--num-heads", s.heads, tr("Attention heads; must divide --d-model (default 12)",
                                             "注意力头数；必须整除 --d-model（默认 12）"))
      ->type_name("N");
  sub->add_option("--threads", b.threads,
                  tr("Threads (default: every hardware thread, " + std::to_string(hardware_threads()) + " here)",
                     "线程数（默认：全部硬件线程，这里是 " + std::to_string(hardware_threads()) + "）"))
      ->type_name("N");
  sub->add_option("--repeats", b.options.repeats, tr("Timed runs of each form after its warm-up (default 5)",
                                                     "每种写法预热后的计时次数（默认 5）"))
      ->type_name("N");
  sub->add_option("--seed", b.seed, tr("torch.manual_seed for the weights and the input (default 123)",
                                       "权重和输入所用的 torch.manual_seed（默认 123）"))
      ->type_name("N");
  sub->add_option("--json", b.json, tr("Write the table as JSON to FILE (atomically); '-' writes it to stdout instead "
                                       "of the text",
                                       "把表格以 JSON 写入 FILE（原子写入）；'-' 表示写到标准输出，代替文本"))
      ->type_name("FILE|-");
  sub->add_option("--lang", b.lang, tr("Language of the annotations: en or zh", "注释的语言：en 或 zh"))
      ->check(CLI::IsMember({"en", "zh"}));
}

int run_bench(BenchCli& b, Lang env_lang) {
  if (!b.seed.empty()) {
    const std::optional<uint64_t> seed = parse_torch_seed(b.seed);
    if (!seed)
      throw UsageError("--seed " + b.seed + ": not an integer torch.manual_seed accepts; use a whole number "
                                            "from -9223372036854775808 to 18446744073709551615");
    b.options.seed = *seed;
  }
  if (b.threads != kNotGiven && (b.threads < 1 || b.threads > 1024))
    throw UsageError("--threads " + std::to_string(b.threads) + ": the bench runs on at least one thread; use 1 to 1024");
  b.options.threads = b.threads == kNotGiven ? hardware_threads() : static_cast<int>(b.threads);
  check_bench_options(b.options);
  const bool show_progress = isatty(STDERR_FILENO) == 1;
  const BenchResult result = run_attention_bench(b.options, [show_progress](const std::string& form, int run, int runs) {
    if (!show_progress) return;
    std::cerr << "\r\x1b[Kbench: " << form << (run == 0 ? " warm-up" : " run " + std::to_string(run) + "/" +
                                                     std::to_string(runs)) << std::flush;
  });
  if (show_progress) std::cerr << "\r\x1b[K" << std::flush;
  const std::string json = bench_json(result, ATTN_TUTOR_VERSION);
  if (b.json == "-") {
    std::cout << json;
    return 0;
  }
  if (!b.json.empty()) {
    const std::string error = write_file_atomically(b.json, json);
    if (!error.empty()) throw UsageError("--json " + error + "; choose a path in a writable directory");
  }
  const Lang lang = b.lang.empty() ? env_lang : (b.lang == "zh" ? Lang::Zh : Lang::En);
  std::cout << render_bench(result, lang);
  return 0;
}

// One line for the learner: what is wrong and how to fix it.
int usage_error(const std::string& message) {
  std::cerr << "attn-tutor: error: " << message << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const Lang lang = choose_language(argc, argv);
  set_help_language(lang);
  CLI::App app{"attn-tutor: Chapter 3 of \"Build a Large Language Model (From Scratch)\", step by step, "
               "with PyTorch's exact numbers", "attn-tutor"};
  app.set_version_flag("--version", std::string("attn-tutor ") + ATTN_TUTOR_VERSION);
  app.require_subcommand(0, 1);
  std::string list_lang;  // `attn-tutor --lang zh` lists the lessons in Chinese
  app.add_option("--lang", list_lang, tr("Language of the lesson list: en or zh", "课程列表的语言：en 或 zh"))
      ->check(CLI::IsMember({"en", "zh"}));

  CliOptions cli;
  const LessonInfo* chosen = nullptr;
  for (const LessonInfo& lesson : lessons()) {
    std::string sections;
    for (const std::string& s : lesson.sections) sections += (sections.empty() ? "" : ", ") + s;
    const bool book = sections.rfind("3.", 0) == 0;
    CLI::App* sub = app.add_subcommand(
        lesson.name,
        book ? tr("Replays \u00a7" + sections + " of the book: " + lesson.summary,
                  "重现本书第 " + sections + " 节：" + lesson.summary_zh)
             : tr("Replays shared/seeds/" + sections + "_*, beside the book: " + lesson.summary,
                  "重现 shared/seeds/" + sections + "_*（本书之外）：" + lesson.summary_zh));
    add_lesson_options(sub, cli, options_for(lesson.name));
    sub->callback([&chosen, &lesson] { chosen = &lesson; });
  }
  CLI::App* all = app.add_subcommand("all", "Replays every lesson in book order (§3.3-3.6), one after another");
  add_lesson_options(all, cli, options_for("all"));
  CLI::App* verify = app.add_subcommand(
      "verify", "Compares every tensor the book prints (§3.3-3.6, and the reader's notebook for --init randn and "
                "--bernoulli mkl) with the tool's own output; exit 1 on any mismatch");
  std::string verify_lesson;
  verify->add_option("LESSON", verify_lesson, "Only this lesson's tensors");
  CLI::App* check = app.add_subcommand(
      "check", "Compares your own PyTorch tensors (exported with tools/export_pytorch.py) with the lesson replayed "
               "with the same settings, and names the known mistake behind the first difference; exit 1 on any "
               "difference");
  std::string check_path, check_color = "auto";
  check->add_option("FILE", check_path, "The export: {\"schema\": \"attn-tutor/1\", \"lesson\": ..., \"tensors\": [...]}")
      ->required();
  check->add_option("--color", check_color, "auto (a terminal without NO_COLOR), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));

  CLI::App* bench = app.add_subcommand(
      "bench", tr("Times causal self-attention four ways (the chapter's wrapper, MultiHeadAttention as written, one "
                  "fused qkv projection, flash-style tiles) on the same seeded weights and input, at GPT-2-small size "
                  "by default, against this machine's measured FP32 peak",
                  "在相同的带种子权重和输入上，用四种写法（本章的封装类、原样的 MultiHeadAttention、合并的 qkv 投影、"
                  "flash 式分块）为因果自注意力计时，默认 GPT-2 small 规模，并与本机实测的 FP32 峰值比较"));
  BenchCli bench_cli;
  add_bench_options(bench, bench_cli);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (argc > 1 && argv[1][0] != '-' && app.get_subcommands().empty()) {
      std::vector<std::string> names;
      for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
      const std::string guess = nearest_name(argv[1], names);
      return usage_error("unknown subcommand '" + std::string(argv[1]) + "'" +
                         (guess.empty() ? "" : " (did you mean " + guess + "?)") +
                         "; run 'attn-tutor' to list the lessons");
    }
    std::string what = e.what();
    if (what.empty()) what = e.get_name();
    return usage_error(what + "; run 'attn-tutor --help' or 'attn-tutor LESSON --help'");
  }

  try {
    if (verify->parsed()) return run_verify(verify_lesson);
    if (check->parsed()) return run_check(check_path, check_color);
    if (bench->parsed()) return run_bench(bench_cli, lang);
    if (all->parsed()) return emit(run_all(to_lesson_options(cli, lang)), cli);
    if (!chosen) {
      std::cout << lesson_list();
      return 0;
    }
    return emit(chosen->run(to_lesson_options(cli, lang)), cli);
  } catch (const UsageError& e) {
    return usage_error(e.what());
  } catch (const std::exception& e) {
    return usage_error(std::string("cannot run this lesson with these options: ") + e.what());
  }
}
