// check's and verify's text fits the width $COLUMNS gives (80 when unset or not a number): the two
// tensors side by side when both fit, one above the other otherwise; Chinese measured in columns.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "features/check/check_report_parts.h"
#include "notebook/text_pages.h"
#include "notebook/text_width.h"
#include "run_cli.h"

namespace {

const std::string kMistakes = std::string(ATTN_TEST_FIXTURE_DIR) + "/mistakes/";

// The report's tensor block: from the "yours:" line to the line before the values' summary.
std::vector<std::string> tensor_block(const std::string& report, const std::string& yours, const std::string& summary) {
  const std::vector<std::string> lines = lines_of(report);
  std::vector<std::string> block;
  bool in = false;
  for (const std::string& line : lines) {
    if (line.rfind(yours, 0) == 0) in = true;
    if (in && line.find(summary) != std::string::npos) break;
    if (in) block.push_back(line);
  }
  return block;
}

size_t widest(const std::vector<std::string>& lines) {
  size_t w = 0;
  for (const std::string& line : lines) w = std::max(w, attn::display_width(line));
  return w;
}

}  // namespace

TEST_CASE("output width: $COLUMNS as a terminal dimension, anything else is no value") {
  CHECK(attn::terminal_dimension("80") == 80);
  CHECK(attn::terminal_dimension("1") == 1);
  CHECK(attn::terminal_dimension("10000") == 10000);
  for (const char* bad : {"", "0", "-80", "+80", " 80", "80 ", "8O", "1e3", "10001", "99999999999999999999", "0x50"})
    CHECK_MESSAGE(attn::terminal_dimension(bad) == 0, bad);
  CHECK(attn::terminal_dimension(nullptr) == 0);
}

TEST_CASE("output width: two blocks side by side when both fit, else one above the other") {
  using attn::check_text::two_columns;
  CHECK(two_columns("ab\nc", "xy", 8) == "ab    xy\nc\n");           // 2 + 4 + 2 = 8 fits
  CHECK(two_columns("ab\nc", "xy", 7) == "ab\nc\n\nxy\n");           // one column too many
  CHECK(two_columns("你的：\n1", "xy", 12) == "你的：    xy\n1\n");  // 6 columns + 4 + 2
  CHECK(two_columns("你的：\n1", "xy", 11) == "你的：\n1\n\nxy\n");
}

TEST_CASE("output width: check at COLUMNS=80 stacks the tensors, at 200 puts them side by side (en and zh)") {
  struct Lang {
    const char* flag;
    const char* yours;
    const char* tool;
    const char* summary;
  };
  const Lang langs[] = {{"", "yours:", "attn-tutor:", "values differ"},
                        {" --lang zh", "你的：", "attn-tutor：", "数值不同"}};
  for (const Lang& l : langs) {
    CAPTURE(l.flag);
    const std::string args = "check " + kMistakes + "head-order.json --color never" + l.flag;
    const CliResult narrow = run_cli_env("COLUMNS=80", args), wide = run_cli_env("COLUMNS=200", args);
    const CliResult unset = run_cli(args), invalid = run_cli_env("COLUMNS=wide", args);
    REQUIRE(narrow.exit_code == 1);
    REQUIRE(wide.exit_code == 1);
    CHECK(unset.out == narrow.out);  // 80 by default (stdout is no terminal here)
    CHECK(invalid.out == narrow.out);
    const std::vector<std::string> stacked = tensor_block(narrow.out, l.yours, l.summary);
    REQUIRE(stacked.size() > 20);
    CHECK(stacked[0] == l.yours);
    CHECK(widest(stacked) <= 80);
    size_t tool_lines = 0;
    for (const std::string& line : stacked) tool_lines += line == l.tool;
    CHECK(tool_lines == 1);
    // the prose of the report fits too (the lesson's code lines are shown as written)
    for (const std::string& line : lines_of(narrow.out.substr(narrow.out.find(l.summary) - 40)))
      if (line.rfind("        ", 0) != 0) CHECK_MESSAGE(attn::display_width(line) <= 80, line);
    const std::vector<std::string> side = tensor_block(wide.out, l.yours, l.summary);
    REQUIRE(side.size() > 10);
    CHECK(side[0].find(l.tool) != std::string::npos);
    CHECK(widest(side) > 80);
    CHECK(widest(side) <= 200);
    CHECK(side.size() < stacked.size());
  }
  // small tensors fit side by side at 80 columns
  const CliResult small = run_cli_env("COLUMNS=80", "check " + kMistakes + "dropout-on-scores.json --color never");
  const std::vector<std::string> side = tensor_block(small.out, "yours:", "values differ");
  REQUIRE(!side.empty());
  CHECK(side[0].find("attn-tutor:") != std::string::npos);
  CHECK(widest(side) <= 80);
}

TEST_CASE("output width: verify's lines fit COLUMNS=80, its sources below when they do not fit beside (en and zh)") {
  for (const char* lang : {"en", "zh"}) {
    CAPTURE(lang);
    const CliResult narrow = run_cli_env("COLUMNS=80", std::string("verify --lang ") + lang);
    const CliResult wide = run_cli_env("COLUMNS=200", std::string("verify --lang ") + lang);
    REQUIRE(narrow.exit_code == 0);
    REQUIRE(wide.exit_code == 0);
    const std::vector<std::string> n = lines_of(narrow.out), w = lines_of(wide.out);
    CHECK(widest(n) <= 80);
    CHECK(widest(w) > 100);  // the book's 119-column lines, each on one line
    CHECK(n.size() > w.size());
    size_t below = 0;
    for (const std::string& line : n) below += line.rfind("    [", 0) == 0;
    CHECK(below > 5);
    for (const std::string& line : w) CHECK(line.rfind("    ", 0) != 0);
  }
  // an option stays with its value when the source is broken
  const CliResult gqa = run_cli_env("COLUMNS=80", "verify gqa");
  CHECK(gqa.out.find("    --num-kv-groups 1]") != std::string::npos);
}

TEST_CASE("step pages: a line's screen rows and a text cut into screens at line ends") {
  CHECK(attn::screen_rows("", 80) == 1);
  CHECK(attn::screen_rows(std::string(80, 'x'), 80) == 1);
  CHECK(attn::screen_rows(std::string(81, 'x'), 80) == 2);
  CHECK(attn::screen_rows("\x1b[36m" + std::string(80, 'x') + "\x1b[0m", 80) == 1);  // escapes take no column
  CHECK(attn::screen_rows("注意力", 5) == 2);  // a wide character that does not fit moves to the next row whole
  CHECK(attn::screen_rows("注意力", 6) == 1);
  const std::vector<std::string> pages = attn::screen_pages("a\nb\n" + std::string(15, 'c') + "\nd\ne\n", 3, 10);
  REQUIRE(pages.size() == 3);
  CHECK(pages[0] == "a\nb\n");  // the long line (2 rows) does not fit beside them
  CHECK(pages[1] == std::string(15, 'c') + "\nd\n");
  CHECK(pages[2] == "e\n");
  const std::vector<std::string> tall = attn::screen_pages(std::string(50, 'x') + "\ny\n", 3, 10);  // 5 rows alone
  REQUIRE(tall.size() == 2);
  CHECK(tall[0] == std::string(50, 'x') + "\n");
  CHECK(attn::screen_pages("", 24, 80).size() == 1);
}

TEST_CASE("output width: at COLUMNS=80 check's own lines fit, only code quoted as written may be wider") {
  // The tensor list, the first difference and the lesson's step wrap at the page; what may be wider is code
  // shown as the lesson writes it (its cell, indented four spaces, and the fix's `Fix:` line) and the header
  // naming the file given.
  for (const char* lang : {"en", "zh"})
    for (const char* fixture : {"kv-mask-row0", "no-scaling", "dropout-reseed", "triu-diagonal",
                                "view-no-transpose-merge-gqa", "way-context-vec-last", "head-order"}) {
      CAPTURE(lang);
      CAPTURE(fixture);
      const CliResult r =
          run_cli_env("COLUMNS=80", "check " + kMistakes + fixture + ".json --color never --lang " + lang);
      REQUIRE((r.exit_code == 0 || r.exit_code == 1));
      const std::vector<std::string> lines = lines_of(r.out);
      bool in_cell = false, in_fix = false;  // the lesson's cell (after "..., In [N]:" up to a blank line), the fix
      for (size_t i = 1; i < lines.size(); ++i) {
        const std::string& line = lines[i];
        if (line.empty()) in_cell = false;
        in_fix = line.find("Fix: ") != std::string::npos || line.find("改正：") != std::string::npos ||
                 (in_fix && line.rfind("       ", 0) == 0);
        if (!in_cell && !in_fix) CHECK_MESSAGE(attn::display_width(line) <= 80, line);
        const size_t end = line.find_last_not_of(' ');
        if (end != std::string::npos && line.rfind("    ", 0) != 0 &&
            (line.compare(end, 1, ":") == 0 || (end >= 2 && line.compare(end - 2, 3, "：") == 0)) &&
            line.find("In [") != std::string::npos)
          in_cell = true;
      }
    }
}
