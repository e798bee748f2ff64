#include "parse_errors.h"

#include <cctype>

#include "cli_messages.h"
#include "did_you_mean.h"
#include "language.h"
#include "lessons/lesson.h"

namespace attn {
namespace {

bool is_option_word(const std::string& w) {
  // "-5" and "-0.1" are values (a negative seed or a bad rate), not options.
  return w.size() > 1 && w[0] == '-' && !std::isdigit(static_cast<unsigned char>(w[1])) && w[1] != '.';
}

std::string option_name(const std::string& w) { return w.substr(0, w.find('=')); }

CLI::App* subcommand_named(CLI::App& app, const std::string& name) {
  for (CLI::App* sub : app.get_subcommands({}))
    if (sub->get_name() == name) return sub;
  return nullptr;
}

bool takes_value(const CLI::Option* opt) { return opt && opt->get_expected_max() > 0; }  // a flag expects 0

// The value given to `option` in args[from...]: the word after it, or after '='.
std::string value_of(const std::vector<std::string>& args, size_t from, const std::string& option) {
  for (size_t i = from; i < args.size(); ++i) {
    if (args[i] == option) return i + 1 < args.size() ? args[i + 1] : "";
    if (args[i].rfind(option + "=", 0) == 0) return args[i].substr(option.size() + 1);
  }
  return "";
}

// The lessons that take a lesson option, as the registry says.
std::vector<std::string> takers(const OptionRow& row) {
  std::vector<std::string> names;
  for (const LessonInfo& l : lessons())
    if (l.takes(row)) names.push_back(l.name);
  return names;
}

const OptionRow* lesson_option(const std::string& flag) {
  for (const OptionRow& row : option_table())
    if (row.flag == flag) return &row;
  return nullptr;
}

// The words of an unknown option: an option a lesson does not take, else a suggestion.
std::string unknown_option(CLI::App* sub, const std::string& name) {
  const std::string command = sub->get_name();
  const OptionRow* row = lesson_option(name);
  if (row && find_lesson(command)) return option_not_taken_message(name, command, takers(*row));
  std::vector<std::string> names;
  for (const CLI::Option* opt : sub->get_options())
    if (!opt->get_positional()) names.push_back(opt->get_name());
  return unknown_option_message(name, command, nearest_name(name, names));
}

// "a b c" from the words.
std::string line(const std::vector<std::string>& words) {
  std::string out = "attn-tutor";
  for (const std::string& w : words) out += " " + w;
  return out;
}

// What CLI11 said after "NAME: " (its messages start with the option's name).
std::string after_name(const std::string& what) {
  const size_t colon = what.find(": ");
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

bool whole_number(const std::string& s) {  // as app/strict_integer.h reads them: no '+'
  const size_t digits = !s.empty() && s[0] == '-' ? 1 : 0;
  if (s.size() == digits) return false;
  for (size_t i = digits; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

std::vector<std::string> split_choices(const std::string& set) {  // "{a,b,c}"
  std::vector<std::string> out(1);
  for (char c : set.substr(1, set.size() - 2)) {
    if (c == ',')
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

// A known option of `sub` whose value CLI11 refused or did not get.
std::string bad_value(CLI::App* sub, const std::vector<std::string>& args, size_t from, const std::string& name,
                      const std::exception& error) {
  const std::string command = sub->get_name();
  const std::string what = error.what();
  const CLI::Option* opt = sub->get_option_no_throw(name);
  const std::string value_name = opt ? opt->get_type_name() : "";
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error)) {
    if (what.find("missing") != std::string::npos) return missing_value_message(name, value_name, command);
    return given_twice_message(name, command);
  }
  const std::string value = value_of(args, from, name);
  const std::string said = after_name(what);
  const size_t range = said.find(" not in range ");
  if (range != std::string::npos) {  // CLI::Range: "Value V not in range MIN to MAX"
    const std::string bounds = said.substr(range + 14);
    const size_t to = bounds.find(" to ");
    if (to != std::string::npos) {
      const std::string min = bounds.substr(0, to), max = bounds.substr(to + 4);
      return whole_number(value) ? out_of_range_message(name, value, min, max, command)
                                 : not_whole_number_message(name, value, min, max, command);
    }
  }
  if (said == "not a whole number")
    return tr("err.not-integer", {name, value}) + run_help(command);  // strict_integer_check
  if (said == "too many digits") return tr("err.integer-too-long", {name, value}) + run_help(command);
  const size_t set = said.find(" not in {");
  if (set != std::string::npos) return not_a_choice_message(name, value, split_choices(said.substr(set + 8)), command);
  return bad_value_message(name, value, value_name, command);
}

}  // namespace

std::string parse_error_message(CLI::App& app, const std::vector<std::string>& args, const std::exception& error) {
  // The lesson (or command) word, after the program's own options (--lang L).
  std::vector<std::string> before;  // options given before it
  std::vector<std::string> own;     // the program's own (--lang L), which may stay there
  size_t at = 0;
  for (; at < args.size(); ++at) {
    const std::string& w = args[at];
    if (w == "--lang") {
      own.push_back(w);
      if (at + 1 < args.size()) own.push_back(args[++at]);
      continue;
    }
    if (w.rfind("--lang=", 0) == 0) {
      own.push_back(w);
      continue;
    }
    if (!is_option_word(w)) break;
    before.push_back(w);
    const OptionRow* row = lesson_option(option_name(w));
    if (row && row->kind != OptionKind::Flag && w.find('=') == std::string::npos && at + 1 < args.size())
      before.push_back(args[++at]);
  }
  CLI::App* sub = at < args.size() ? subcommand_named(app, args[at]) : nullptr;
  if (!before.empty()) {
    const std::string option = option_name(before.front());
    if (!sub) {
      if (lesson_option(option)) return option_without_lesson_message(option);
      return unknown_option_message(option, "", nearest_name(option, {"--lang", "--help", "--version"}));
    }
    std::vector<std::string> right = own;
    right.push_back(args[at]);
    right.insert(right.end(), before.begin(), before.end());
    right.insert(right.end(), args.begin() + static_cast<std::ptrdiff_t>(at) + 1, args.end());
    std::vector<std::string> wrong(args.begin(), args.end());
    return options_before_lesson_message(option, line(wrong), line(right));
  }
  if (!sub && at < args.size()) {  // "msha": a mistyped lesson or command
    std::vector<std::string> names;
    for (const CLI::App* s : app.get_subcommands({})) names.push_back(s->get_name());
    return unknown_command_message(args[at], nearest_name(args[at], names));
  }
  if (!sub) return std::string(error.what()) + run_help("");
  const std::string command = sub->get_name();

  // The words after the command: the first unknown option, or a switch given a value.
  const CLI::Option* previous = nullptr;  // an option still waiting for its value
  for (size_t i = at + 1; i < args.size(); ++i) {
    const std::string& w = args[i];
    if (previous && !is_option_word(w)) {
      previous = nullptr;
      continue;
    }
    previous = nullptr;
    if (!is_option_word(w)) continue;
    const std::string name = option_name(w);
    if (name == "--help" || name == "-h") continue;
    const CLI::Option* opt = sub->get_option_no_throw(name);
    if (!opt) return unknown_option(sub, name);
    if (!takes_value(opt) && w.find('=') != std::string::npos) return flag_with_value_message(name, command);
    if (takes_value(opt) && w.find('=') == std::string::npos) previous = opt;
  }

  const std::string what = error.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&error)) {
    // "The following argument(s) ... not expected: W ..." lists the words last first.
    const size_t colon = what.rfind(": ");
    const std::string words = colon == std::string::npos ? what : what.substr(colon + 2);
    const size_t space = words.rfind(' ');
    return unexpected_word_message(space == std::string::npos ? words : words.substr(space + 1), command);
  }
  if (dynamic_cast<const CLI::RequiredError*>(&error)) {
    const size_t is = what.find(" is required");
    return required_message(is == std::string::npos ? what : what.substr(0, is), command);
  }
  std::string name = what.substr(0, what.find(':'));
  if (dynamic_cast<const CLI::ConversionError*>(&error)) {  // "Could not convert: --threads = x"
    const size_t start = what.find(": "), eq = what.find(" = ");
    if (start != std::string::npos && eq != std::string::npos) name = what.substr(start + 2, eq - start - 2);
  }
  if (sub->get_option_no_throw(name)) return bad_value(sub, args, at + 1, name, error);
  return what + run_help(command);
}

}  // namespace attn
