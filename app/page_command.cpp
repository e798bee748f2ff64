#include "page_command.h"

#include <algorithm>
#include <cstring>

#include "lessons/options.h"

namespace attn {

std::string shell_word(const std::string& word) {
  const bool safe = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || std::strchr("_./,:=+-@%", c);
  });
  if (safe) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string reproducing_command(const std::string& lesson, const CliOptions& cli, Lang lang) {
  std::string out = "attn-tutor " + shell_word(lesson);
  for (const OptionRow& row : option_table()) {
    if (!cli.given(row.flag) || row.display) continue;  // an output file, paging, colour: not the page
    out += " " + row.flag;
    if (row.kind != OptionKind::Flag) out += " " + shell_word(cli.text(row.flag));
  }
  if (!cli.given("--lang") && lang == Lang::Zh) out += " --lang zh";
  if (cli.given("--html")) out += " --html " + shell_word(cli.text("--html"));
  return out;
}

}  // namespace attn
