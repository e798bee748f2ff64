#include "lessons/option_docs.h"

#include "lessons/lesson.h"
#include "lessons/lesson_docs.h"
#include "lessons/option_fields.h"
#include "lessons/options.h"

namespace attn {
namespace {

// The commands app/main.cpp adds besides the lessons, in the completion's order.
const char* const kCommands = "all verify check bench kv-memory lessons";

// `words` joined by spaces, a new line (indented by `indent`) before a word that would pass `width` columns.
std::string wrapped(const std::vector<std::string>& words, size_t first_column, const std::string& indent,
                    size_t width) {
  std::string out;
  size_t column = first_column;
  for (const std::string& w : words) {
    if (!out.empty() && column + 1 + w.size() > width) {
      out += "\n" + indent;
      column = indent.size();
    } else if (!out.empty()) {
      out += " ";
      ++column;
    }
    out += w;
    column += w.size();
  }
  return out;
}

std::string joined(const std::vector<std::string>& words, const std::string& between) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : between) + w;
  return out;
}

std::string roff_escaped(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out;
}

// What a row's value looks like: its choices ("rand|randn") or its value name ("FILE|-"); empty for a flag.
std::string value_text(const OptionRow& row) {
  return row.kind == OptionKind::Choice ? joined(row.choices, "|") : row.value_name;
}

std::string escaped_bars(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string readme_rows() {
  std::string out = "| option | lessons | meaning |\n|---|---|---|\n";
  for (const OptionRow& row : option_table()) {
    std::vector<std::string> taking;
    for (const LessonInfo& l : lessons())
      if (l.takes(row)) taking.push_back(l.name);
    const std::string value = value_text(row);
    out += "| `" + row.flag + (value.empty() ? "" : " " + escaped_bars(value)) + "` | " +
           (row.common ? std::string("all") : joined(taking, ", ")) + " | " + row.readme + " |\n";
  }
  return out;
}

std::string man_rows() {
  std::string out;
  for (const OptionRow& row : option_table()) {
    const std::string value = value_text(row);
    const std::string head = row.kind == OptionKind::Flag ? ".B " : row.kind == OptionKind::Choice ? ".BR " : ".BI ";
    out +=
        ".TP\n" + head + roff_escaped(row.flag) + (value.empty() ? "" : " \" " + value + "\"") + "\n" + row.man + "\n";
  }
  return out;
}

std::string completion_lists() {
  std::vector<std::string> names, flags, files;
  for (const LessonInfo& l : lessons()) names.push_back(l.name);
  names.push_back(kCommands);
  for (const OptionRow& row : option_table()) {
    flags.push_back(row.flag);
    if (row.value_name.rfind("FILE", 0) == 0) files.push_back(row.flag);
  }
  flags.push_back("--help");
  std::string out = "  local lessons=\"" + wrapped(names, 17, std::string(17, ' '), 118) + "\"\n";
  out += "  local options=\"" + wrapped(flags, 17, std::string(17, ' '), 118) + "\"\n";
  out += "  case \"$prev\" in\n";
  out += "    " + joined(files, "|") + ") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n";
  for (const OptionRow& row : option_table())
    if (row.kind == OptionKind::Choice)
      out += "    " + row.flag + ") COMPREPLY=($(compgen -W \"" + joined(row.choices, " ") +
             "\" -- \"$cur\")); return ;;\n";
  return out;
}

// The settings export() takes as keywords besides seed, inputs and tokens: the config keys of the options
// that change what a lesson computes.
std::string python_config_keys() {
  std::vector<std::string> keys = {"\"" + option_row("--d-in").config_key() + "\","};
  for (const OptionField& f : option_fields())
    if (f.learner_setting) keys.push_back("\"" + f.row->config_key() + "\",");
  keys.back().pop_back();
  return "CONFIG_KEYS = (" + wrapped(keys, 15, std::string(15, ' '), 118) + ")\n";
}

}  // namespace

std::vector<GeneratedBlock> generated_blocks() {
  const std::string from = "generated from lessons/options.txt and lessons/registry.cpp by lessons/option_docs.cpp";
  const std::string lessons_from =
      "generated from lessons/*/lesson.txt and lessons/registry.cpp by lessons/option_docs.cpp";
  return {
      {"README.md", "<!-- " + from + ": begin -->", "<!-- generated: end -->", readme_rows()},
      {"man/attn-tutor.1", ".\\\" " + from + ": begin", ".\\\" generated: end", man_rows()},
      {"completions/attn-tutor.bash", "  # " + from + ": begin", "  # generated: end", completion_lists()},
      {"python/export_pytorch.py", "# " + from + ": begin", "# generated: end", python_config_keys()},
      {"README.md", "<!-- " + lessons_from + ": begin -->", "<!-- generated: end -->", readme_lesson_rows()},
      {"man/attn-tutor.1", ".\\\" " + lessons_from + ": begin", ".\\\" generated: end", man_lesson_entries()},
  };
}

}  // namespace attn
