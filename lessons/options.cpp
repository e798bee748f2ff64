#include "lessons/options.h"

#include <sstream>
#include <stdexcept>
#include <utility>

#include "core/named.h"
#include "lessons/field_file.h"

namespace attn {

std::string OptionRow::config_key() const {
  std::string key = flag.substr(2);
  for (char& c : key)
    if (c == '-') c = '_';
  return key;
}

constexpr EnumName<OptionKind> kKindNames[] = {{OptionKind::Flag, "flag"},
                                               {OptionKind::Integer, "integer"},
                                               {OptionKind::Number, "number"},
                                               {OptionKind::Choice, "choice"},
                                               {OptionKind::Text, "text"}};

const char* kind_name(OptionKind kind) { return enum_name(kKindNames, kind); }

namespace {

OptionKind kind_of(const std::string& word, const std::string& where) {
  OptionKind kind;
  if (!enum_value(kKindNames, word, kind)) throw std::logic_error(where + ": unknown kind '" + word + "'");
  return kind;
}

// lessons/options.txt: [--flag] then "field = value" lines (see the file's header).
std::vector<OptionRow> parse_options(const std::string& source) {
  std::vector<OptionRow> rows;
  for (const FieldLine& l : field_lines(source, "lessons/options.txt")) {
    const std::string where = "lessons/options.txt:" + std::to_string(l.number);
    if (l.section.empty()) throw std::logic_error(where + ": expected [--flag] before 'field = value'");
    if (rows.empty() || rows.back().flag != l.section) {
      rows.emplace_back();
      rows.back().flag = l.section;
    }
    const std::string& field = l.field;
    const std::string& value = l.value;
    OptionRow& row = rows.back();
    std::istringstream words(value);
    if (field == "kind")
      row.kind = kind_of(value, where);
    else if (field == "value")
      row.value_name = value;
    else if (field == "choices")
      for (std::string w; words >> w;) row.choices.push_back(w);
    else if (field == "range" || field == "bounds")
      words >> row.min >> row.max;
    else if (field == "bound_errors")
      words >> row.below_key >> row.above_key >> row.spelling_key;
    else if (field == "common")
      row.common = value == "yes";
    else if (field == "display")
      row.display = value == "yes";
    else if (field == "default")
      row.default_value = value;
    else if (field == "readme")
      row.readme = value;
    else if (field == "man")
      row.man += (row.man.empty() ? "" : "\n") + value;
    else if (field == "en")
      row.help_en = value;
    else if (field == "zh")
      row.help_zh = value;
    else
      throw std::logic_error(where + ": unknown field '" + field + "'");
  }
  return rows;
}

}  // namespace

const std::vector<OptionRow>& option_table() {
  static const std::vector<OptionRow> rows = [] { return parse_options(embedded_text("options.txt")); }();
  return rows;
}

const OptionRow& option_row(const std::string& flag) {
  for (const OptionRow& row : option_table())
    if (row.flag == flag) return row;
  throw std::logic_error("no option " + flag + " in the option table");
}

}  // namespace attn
