#pragma once
// The command line's messages about the command line itself, in English and Chinese (the keys cli.*
// of app/text.txt, through tr()): the errors of app/parse_errors.cpp, app/option_rules.cpp and
// --from, and the --help footer. Each error names the option (or word) first and says how to fix it.
#include <string>
#include <vector>

namespace attn {

// "; run 'attn-tutor mha --help'" (command "" : 'attn-tutor --help').
std::string run_help(const std::string& command);

std::string unknown_command_message(const std::string& word, const std::string& guess);
std::string unknown_option_message(const std::string& option, const std::string& command, const std::string& guess);
std::string option_not_taken_message(const std::string& option, const std::string& lesson,
                                     const std::vector<std::string>& takers);
std::string unexpected_word_message(const std::string& word, const std::string& command);
std::string missing_value_message(const std::string& option, const std::string& value_name, const std::string& command);
std::string given_twice_message(const std::string& option, const std::string& command);
std::string out_of_range_message(const std::string& option, const std::string& value, const std::string& min,
                                 const std::string& max, const std::string& command);
std::string not_whole_number_message(const std::string& option, const std::string& value, const std::string& min,
                                     const std::string& max, const std::string& command);
std::string not_a_choice_message(const std::string& option, const std::string& value,
                                 const std::vector<std::string>& choices, const std::string& command);
std::string bad_value_message(const std::string& option, const std::string& value, const std::string& value_name,
                              const std::string& command);
std::string flag_with_value_message(const std::string& option, const std::string& command);
std::string required_message(const std::string& name, const std::string& command);
// `attn-tutor --seed 7 mha`: `wrong` and `right` are the whole command lines.
std::string options_before_lesson_message(const std::string& option, const std::string& wrong,
                                          const std::string& right);
std::string option_without_lesson_message(const std::string& option);
std::string options_after_lesson_help();

// --from names no section or cell of the lesson.
std::string from_not_found_message(const std::string& from, const std::string& lesson,
                                   const std::vector<std::string>& sections, int cells);

// Options with no effect in the combination given: the option first, then why.
std::string no_weights_message(const std::string& option, const std::string& lesson);
std::string no_random_message(const std::string& lesson);
std::string no_dropout_mask_message(const std::string& lesson);
// --json -, --py - or --ipynb - (`to_stdout`) with an option that shapes only the notebook text.
std::string from_with_export_message(const std::string& to_stdout);
std::string text_only_with_export_message(const std::string& option, const std::string& to_stdout);
std::string swa_ratio_without_window_message();

}  // namespace attn
