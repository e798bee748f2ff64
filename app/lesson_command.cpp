#include "lesson_command.h"

#include <cstdlib>
#include <sstream>

#include "core/generator.h"
#include "core/inputs.h"
#include "language.h"
#include "lessons/option_fields.h"
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
      opt->transform(row.parser_range() ? strict_integer_check(row.min, row.max) : strict_integer_check());
      if (row.parser_range()) opt->check(CLI::Range(row.min, row.max));
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

// The value of an option the command line gives, as its field takes it (lessons/option_fields.h), checked
// against the bounds of its row; a UsageError naming it otherwise.
nlohmann::json cli_value(const OptionField& f, const CliOptions& o, const LessonOptions& opt) {
  const OptionRow& row = *f.row;
  const std::string& text = o.text(row.flag);
  if (row.kind == OptionKind::Flag) return true;
  if (row.kind == OptionKind::Choice || row.kind == OptionKind::Text) return text;
  if (row.kind == OptionKind::Integer) {
    const int64_t v = integer_value(o, row.flag);
    const std::vector<Prose> values = {std::to_string(v), std::to_string(f.min(opt))};
    if (!row.below_key.empty() && v < f.min(opt)) throw UsageError(tr(row.below_key, values));
    if (!row.above_key.empty() && v > row.max) throw UsageError(tr(row.above_key, values));
    return v;
  }
  if (!plain_decimal(text)) throw UsageError(tr(row.spelling_key, {text}));
  char* end = nullptr;
  const double p = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(p >= static_cast<double>(row.min) && p <= static_cast<double>(row.max)))
    throw UsageError(tr(row.below_key, {text}));
  return p;
}

}  // namespace

LessonOptions to_lesson_options(const CliOptions& o, Lang env_lang) {
  LessonOptions opt;
  opt.lang = env_lang;  // --lang, when given, below
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
  for (const OptionField& f : option_fields())
    if (o.given(f.row->flag)) f.set(opt, cli_value(f, o, opt));
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
