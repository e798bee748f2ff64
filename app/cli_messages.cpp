#include "cli_messages.h"

#include "language.h"

namespace attn {
namespace {

std::string joined(const std::vector<std::string>& words, const std::string& comma) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) out += (i ? comma : "") + words[i];
  return out;
}

std::string lesson_help(const std::string& command) {
  return command.empty() ? "attn-tutor --help" : "attn-tutor " + command + " --help";
}

std::string command_name(const std::string& command) { return command.empty() ? "attn-tutor" : command; }

// ", " in English, "、" in Chinese.
std::string listed(const std::vector<std::string>& words) { return joined(words, tr("cli.list-comma")); }

// " (did you mean X?)", or nothing without a guess.
std::string guess_text(const std::string& guess) { return guess.empty() ? "" : tr("cli.did-you-mean", {guess}); }

}  // namespace

std::string run_help(const std::string& command) { return tr("cli.run-help", {lesson_help(command)}); }

std::string unknown_command_message(const std::string& word, const std::string& guess) {
  return tr("cli.unknown-command", {word, guess_text(guess)});
}

std::string unknown_option_message(const std::string& option, const std::string& command, const std::string& guess) {
  return tr("cli.unknown-option", {option, command_name(command), guess_text(guess)}) + run_help(command);
}

std::string option_not_taken_message(const std::string& option, const std::string& lesson,
                                     const std::vector<std::string>& takers) {
  return tr("cli.not-taken", {option, lesson, listed(takers)}) + run_help(lesson);
}

std::string unexpected_word_message(const std::string& word, const std::string& command) {
  return tr("cli.unexpected-word", {word, command_name(command)}) + run_help(command);
}

std::string missing_value_message(const std::string& option, const std::string& value_name,
                                  const std::string& command) {
  // An output file (--html, --json, --py, --ipynb): the fix is a name, which the message gives whole.
  if (value_name == "FILE|-" && option.size() > 2) {
    const std::string file = (command.empty() ? std::string("attn-tutor") : command) + "." + option.substr(2);
    return tr("cli.missing-file", {option, file});
  }
  const std::string example = option + " " + (value_name.empty() ? "VALUE" : value_name);
  return tr("cli.missing-value", {option, example}) + run_help(command);
}

std::string given_twice_message(const std::string& option, const std::string& command) {
  return tr("cli.given-twice", {option}) + run_help(command);
}

std::string out_of_range_message(const std::string& option, const std::string& value, const std::string& min,
                                 const std::string& max, const std::string& command) {
  return tr("cli.out-of-range", {option, value, min, max}) + run_help(command);
}

std::string not_whole_number_message(const std::string& option, const std::string& value, const std::string& min,
                                     const std::string& max, const std::string& command) {
  return tr("cli.not-whole", {option, value, min, max}) + run_help(command);
}

std::string not_a_choice_message(const std::string& option, const std::string& value,
                                 const std::vector<std::string>& choices, const std::string& command) {
  return tr("cli.not-a-choice", {option, value, listed(choices)}) + run_help(command);
}

std::string bad_value_message(const std::string& option, const std::string& value, const std::string& value_name,
                              const std::string& command) {
  const std::string what = value_name.empty() ? "value" : value_name;
  return tr("cli.bad-value", {option, value, what}) + run_help(command);
}

std::string flag_with_value_message(const std::string& option, const std::string& command) {
  return tr("cli.flag-with-value", {option}) + run_help(command);
}

std::string required_message(const std::string& name, const std::string& command) {
  return tr("cli.required", {name, command_name(command), command}) + run_help(command);
}

std::string options_before_lesson_message(const std::string& option, const std::string& wrong,
                                          const std::string& right) {
  return tr("cli.before-lesson", {option, right, wrong});
}

std::string option_without_lesson_message(const std::string& option) { return tr("cli.without-lesson", {option}); }

std::string options_after_lesson_help() { return tr("cli.after-lesson-help"); }

std::string from_not_found_message(const std::string& from, const std::string& lesson,
                                   const std::vector<std::string>& headings, int cells) {
  std::vector<std::string> sections;  // as a shell word: 'd2l 11.5'
  for (const std::string& h : headings) sections.push_back(h.find(' ') == std::string::npos ? h : "'" + h + "'");
  const std::string first = sections.empty() ? "1" : sections.front();
  return tr("cli.from-not-found", {from, lesson, listed(sections), std::to_string(cells), first});
}

std::string no_weights_message(const std::string& option, const std::string& lesson) {
  return tr("cli.no-weights", {option, lesson});
}

std::string no_random_message(const std::string& lesson) { return tr("cli.no-random", {lesson}); }

std::string no_dropout_mask_message(const std::string& lesson) { return tr("cli.no-dropout-mask", {lesson}); }

std::string from_with_export_message(const std::string& to_stdout) { return tr("cli.from-with-export", {to_stdout}); }

std::string text_only_with_export_message(const std::string& option, const std::string& to_stdout) {
  return tr("cli.text-only-with-export", {option, to_stdout});
}

std::string swa_ratio_without_window_message() { return tr("cli.swa-ratio-without-window"); }

}  // namespace attn
