#pragma once
// The lesson options, one entry each in lessons/options.txt: the one place an option is defined. The CLI's options and their
// help in both languages, the values the parser accepts, `check`'s replay of an export's config, the
// bash completion and the man page's and README's option tables are all derived from (or tested
// against) this table; which lessons take an option is said by each lesson's descriptor.
#include <cstdint>
#include <string>
#include <vector>

namespace attn {

enum class OptionKind { Flag, Integer, Number, Choice, Text };
// Its word in lessons/options.txt ("kind = integer") and in `lessons --json`.
const char* kind_name(OptionKind kind);

struct OptionRow {
  std::string flag;  // "--num-heads"
  OptionKind kind = OptionKind::Flag;
  std::string value_name;            // "N", "FILE", "P" (empty for a flag or a choice)
  std::vector<std::string> choices;  // Choice: the accepted values
  int64_t min = 0, max = 0;          // Integer: the accepted range when min < max
  bool common = false;               // every lesson takes it (otherwise the lessons that list it)
  bool display = false;              // changes only where or how the lesson is shown, never what it computes
  std::string default_value;         // "2": its default where a lesson's row (lessons/registry.cpp) states none
  std::string help_en, help_zh;
  // Integer or Number: where the range (min, max) is checked by the conversion with the app's own messages
  // (lessons/options.txt "bounds = MIN MAX" and "bound_errors = BELOW ABOVE", keys of app/text.txt) rather
  // than by the parser; empty for a "range" the parser checks.
  std::string below_key, above_key;
  // Number: the app's message for text that is not a plain decimal (a third bound_errors word).
  std::string spelling_key;
  // Its entries in README.md's option table and man/attn-tutor.1's OPTIONS (roff, one line per "man = "),
  // written from here by lessons/option_docs.cpp.
  std::string readme, man;

  std::string config_key() const;  // "num_heads": its name in the JSON export's config
  // An integer range the parser checks (and --help and `lessons --json` show).
  bool parser_range() const { return kind == OptionKind::Integer && min < max && below_key.empty(); }
};

const std::vector<OptionRow>& option_table();
const OptionRow& option_row(const std::string& flag);  // throws std::logic_error for an unknown flag

}  // namespace attn
