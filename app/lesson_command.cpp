#include "lesson_command.h"

#include <cstdlib>
#include <sstream>

#include "core/generator.h"
#include "core/inputs.h"
#include "language.h"
#include "strict_integer.h"
#include "core/usage_error.h"

namespace attn {

void add_lesson_options(CLI::App* sub, CliOptions& o, const LessonInfo* lesson) {
  for (const OptionRow& row : option_table()) {
    // `all` (lesson == nullptr) takes what any chapter lesson takes.
    bool takes = row.common;
    for (const LessonInfo& l : lessons())
      if (lesson ? &l == lesson && l.takes(row) : l.in_chapter() && l.takes(row)) takes = true;
    if (!takes) continue;
    const std::string help =
        lesson ? lesson->option_help(row, help_language()) : chapter_option_help(row, help_language());
    if (row.kind == OptionKind::Flag) {
      sub->add_flag_function(
             row.flag, [&o, flag = row.flag](int64_t) { o.values[flag] = "true"; }, help)
          ->disable_flag_override();  // --qkv-bias=false is an error, not a bias
      continue;
    }
    CLI::Option* opt = sub->add_option_function<std::string>(
        row.flag, [&o, flag = row.flag](const std::string& value) { o.values[flag] = value; }, help);
    if (!row.value_name.empty()) opt->type_name(row.value_name);
    if (row.kind == OptionKind::Choice) opt->check(CLI::IsMember(row.choices));
    if (row.kind == OptionKind::Integer) {  // decimal digits only, before CLI11 reads "0x10" as 16
      opt->transform(row.min < row.max ? strict_integer_check(row.min, row.max) : strict_integer_check());
      if (row.min < row.max) opt->check(CLI::Range(row.min, row.max));
    }
  }
}

namespace {

// A whole number as the option gives it (decimal digits, an optional '-'), or a UsageError naming the option.
int64_t integer_value(const CliOptions& o, const std::string& flag) {
  const std::string& text = o.text(flag);
  int64_t v = 0;
  if (!strict_integer(text, v)) throw UsageError(tr("err.not-integer", {flag, text}));
  return v;
}

// A number as Python and the README write one: digits with an optional sign, point and exponent
// ("0.5", ".5", "+0.5", "1e-1"); no spaces, hex ("0x.8"), "inf" or "nan", which strtod would also read.
// The code writes the value canonically (py_float), whatever the spelling.
bool plain_decimal(const std::string& text) {
  size_t i = 0, digits = 0;
  const auto run = [&] {
    size_t n = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i, ++n;
    return n;
  };
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  digits += run();
  if (i < text.size() && text[i] == '.') ++i, digits += run();
  if (digits == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (run() == 0) return false;
  }
  return i == text.size();
}

}  // namespace

LessonOptions to_lesson_options(const CliOptions& o, Lang env_lang) {
  LessonOptions opt;
  opt.lang = !o.given("--lang") ? env_lang : (o.text("--lang") == "zh" ? Lang::Zh : Lang::En);
  opt.explain = o.given("--explain");
  if (o.given("--seed")) {
    opt.seed = parse_torch_seed(o.text("--seed"));
    if (!opt.seed) throw UsageError(tr("err.seed", {"--seed " + o.text("--seed")}));
    // Canonical (0123 and +123 are 123, -0 is 0): the code, the notes and the JSON config write it so.
    const bool negative = o.text("--seed")[0] == '-' && *opt.seed != 0;
    opt.seed_text = negative ? "-" + std::to_string(0 - *opt.seed) : std::to_string(*opt.seed);
  }
  if (o.given("--d-in") && !o.given("--tokens")) throw UsageError(tr("err.d-in", {o.text("--d-in")}));
  if (o.given("--tokens")) {
    if (o.given("--inputs")) throw UsageError(tr("err.tokens-and-inputs"));
    opt.inputs =
        sentence_inputs(o.text("--tokens"),
                        o.given("--d-in") ? integer_value(o, "--d-in") : std::stoll(option_row("--d-in").default_value),
                        opt.seed_or(123), "--tokens");
    opt.custom_inputs = true;
    opt.inputs_source = "tokens";
  } else if (o.given("--inputs")) {
    opt.inputs = load_inputs(o.text("--inputs"), "--inputs " + o.text("--inputs"));
    opt.custom_inputs = true;
    opt.inputs_source = o.text("--inputs");
  }
  if (opt.custom_inputs && (opt.num_tokens() > 16 || opt.d_in() > 16))
    throw UsageError(
        tr("err.too-many-tokens", {!o.given("--inputs") ? std::string("--tokens") : "--inputs " + o.text("--inputs")}));
  if (o.given("--d-out")) {
    opt.d_out = integer_value(o, "--d-out");
    opt.d_out_given = true;
  }
  opt.qkv_bias = o.given("--qkv-bias");
  opt.init = o.text("--init") == "randn" ? Init::Randn : Init::Rand;
  if (o.given("--num-heads")) {
    const int64_t num_heads = integer_value(o, "--num-heads");
    if (num_heads < 1) throw UsageError(tr("err.no-heads", {std::to_string(num_heads)}));
    if (num_heads > 64) throw UsageError(tr("err.many-heads", {std::to_string(num_heads)}));
    opt.num_heads = num_heads;
  }
  if (o.given("--preset")) opt.preset = o.text("--preset");
  if (o.given("--d-model")) opt.d_model = integer_value(o, "--d-model");
  if (o.given("--num-hiddens")) opt.num_hiddens = integer_value(o, "--num-hiddens");
  if (o.given("--valid-lens")) opt.valid_lens = o.text("--valid-lens");
  if (o.given("--dropout")) {
    const std::string& dropout = o.text("--dropout");
    if (!plain_decimal(dropout)) throw UsageError(tr("err.dropout-spelling", {dropout}));
    char* end = nullptr;
    const double p = std::strtod(dropout.c_str(), &end);
    if (end == dropout.c_str() || *end != '\0' || !(p >= 0.0 && p <= 1.0))
      throw UsageError(tr("err.dropout", {dropout}));
    opt.dropout = p;
  }
  if (o.given("--context-length")) {
    const int64_t context_length = integer_value(o, "--context-length");
    if (context_length < opt.num_tokens())
      throw UsageError(tr("err.context-short", {std::to_string(context_length), std::to_string(opt.num_tokens())}));
    if (context_length > 4096) throw UsageError(tr("err.context-long", {std::to_string(context_length)}));
    opt.context_length = context_length;
  }
  if (o.given("--num-kv-groups")) opt.num_kv_groups = integer_value(o, "--num-kv-groups");
  if (o.given("--latent-dim")) opt.latent_dim = integer_value(o, "--latent-dim");
  if (o.given("--window")) opt.window = integer_value(o, "--window");
  opt.bernoulli = o.text("--bernoulli") == "mkl" ? BernoulliPath::Mkl : BernoulliPath::Default;
  opt.no_reseed = o.given("--no-reseed");
  opt.gpt2 = o.given("--gpt2");
  return opt;
}

LessonOptions parse_lesson_words(const std::string& lesson, const std::string& words) {
  CLI::App app{"", "attn-tutor"};
  CliOptions o;
  CLI::App* sub = app.add_subcommand(lesson, "");
  add_lesson_options(sub, o, find_lesson(lesson));
  std::vector<std::string> args = {lesson};
  std::istringstream in(words);
  for (std::string w; in >> w;) args.push_back(w);
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  app.parse(reversed);
  return to_lesson_options(o, Lang::En);
}

}  // namespace attn
