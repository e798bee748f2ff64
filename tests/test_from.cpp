// --from SECTION|CELL: the printed lesson starts at a section heading or a cell; everything runs, so
// what is printed is exactly the tail of the whole lesson's text; --json and --html keep it all.
#include <doctest/doctest.h>

#include <string>

#include "lessons/lesson.h"
#include "notebook/notebook_text.h"
#include "run_cli.h"

namespace {

// The whole lesson's text from the first line that starts with `marker` (a heading "== 3.5.3" or
// "In [7]:"), with the blank line before it.
std::string tail_from(const std::string& text, const std::string& marker) {
  const size_t at = text.find("\n" + marker);
  REQUIRE(at != std::string::npos);
  return text.substr(at);
}

// `lesson --from FROM` prints the whole lesson's text from `marker` on, and not `earlier` (if given).
void expect_tail(const std::string& lesson, const std::string& from, const std::string& marker,
                 const std::string& earlier) {
  CAPTURE(from);
  const CliResult r = run_cli(lesson + " --from " + from + " --color never");
  CHECK(r.exit_code == 0);
  CHECK(r.out == tail_from(run_cli(lesson + " --color never").out, marker));
  if (!earlier.empty()) CHECK(r.out.find(earlier) == std::string::npos);
}

}  // namespace

TEST_CASE("from: a section starts the text at its heading, and the rest is the whole lesson's") {
  expect_tail("dropout", "3.5.3", "== 3.5.3", "In [1]:");
  expect_tail("dropout",
              "\xC2\xA7"
              "3.5.3",
              "== 3.5.3", "In [1]:");             // "§3.5.3" as the book writes it
  expect_tail("dropout", "3.5", "== 3.5.2", "");  // the first section under 3.5
  expect_tail("all", "3.6", "== 3.6.1", "== 3.5.");
}

TEST_CASE("from: a cell number starts at In [n], with the heading that opens it") {
  expect_tail("mha", "7", "In [7]:", "In [6]:");
  // The first cell is opened by the lesson's first heading: the whole text.
  CHECK(run_cli("mha --from 1 --color never").out == run_cli("mha --color never").out);
}

TEST_CASE("from: with --lang zh, --explain, --heatmap and colour the tail is the same") {
  for (const std::string options :
       {"--lang zh --color never", "--explain --color never", "--heatmap --color never", "--color always"}) {
    CAPTURE(options);
    const std::string whole = run_cli("causal-mask " + options).out;
    const std::string part = run_cli("causal-mask --from 5 " + options).out;
    CHECK(!part.empty());
    CHECK(part.size() < whole.size());
    CHECK(whole.compare(whole.size() - part.size(), part.size(), part) == 0);
  }
}

TEST_CASE("from: --json FILE and --html FILE keep the whole lesson") {
  const std::string dir = temp_dir();
  // The same file names both times: the page quotes the command that makes it, --html FILE included.
  CHECK(run_cli("wrapper --from 4 --json " + dir + "/a.json --html " + dir + "/a.html").exit_code == 0);
  const std::string json_from = read_text_file(dir + "/a.json"), html_from = read_text_file(dir + "/a.html");
  CHECK(run_cli("wrapper --json " + dir + "/a.json --html " + dir + "/a.html").exit_code == 0);
  CHECK(read_text_file(dir + "/a.json") == json_from);
  CHECK(read_text_file(dir + "/a.html") == html_from);
  CHECK(html_from.find("--from") == std::string::npos);  // --from only pages the terminal text
}

TEST_CASE("from: an unknown section or cell names --from, lists the sections and cells, and writes nothing") {
  const std::string dir = temp_dir();
  const CliResult r = run_cli("dropout --from 9.9 --json " + dir + "/out.json");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.rfind("attn-tutor: error: --from 9.9: dropout has no such section or cell; its sections: 3.5.2, 3.5.3; "
                    "its cells: 1-",
                    0) == 0);
  CHECK(read_text_file(dir + "/out.json").empty());
  for (const char* bad : {"0", "999", "3.9", "x", "''"}) {
    CAPTURE(bad);
    const CliResult b = run_cli(std::string("trainable --from ") + bad);
    CHECK(b.exit_code == 2);
    CHECK(b.err.rfind("attn-tutor: error: --from ", 0) == 0);
    CHECK(b.err.find("its sections: 3.4.1, 3.4.2") != std::string::npos);
  }
}

TEST_CASE("from: a section with a space is listed as one shell word, and works as one") {
  const CliResult r = run_cli("d2l-mha --from 0");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("its sections: 'd2l 11.5'; its cells: 1-") != std::string::npos);
  CHECK(run_cli("d2l-mha --from 'd2l 11.5' --color never").out == run_cli("d2l-mha --color never").out);
}

TEST_CASE("from: start_item finds headings and cells of a recorded notebook") {
  const attn::Notebook nb = attn::find_lesson("trainable")->run(attn::LessonOptions{});
  CHECK(attn::start_item(nb, "") == 0);
  CHECK(attn::start_item(nb, "3.4.1") == 0);
  const int second = attn::start_item(nb, "3.4.2");
  REQUIRE(second > 0);
  CHECK(nb.items()[static_cast<size_t>(second)].kind == attn::NotebookItem::Kind::Heading);
  CHECK(nb.items()[static_cast<size_t>(second)].text == "3.4.2");
  const int cell = attn::start_item(nb, "3");
  REQUIRE(cell > 0);
  CHECK(nb.items()[static_cast<size_t>(cell)].cell == 3);
  CHECK(attn::start_item(nb, "0") == -1);
  CHECK(attn::start_item(nb, std::to_string(attn::cell_count(nb) + 1)) == -1);
  CHECK(attn::start_item(nb, "3.4.9") == -1);
  CHECK(attn::start_sections(nb) == std::vector<std::string>{"3.4.1", "3.4.2"});
  attn::TextOptions options;
  options.from = "nowhere";
  CHECK_THROWS_AS(attn::render_text(nb, options), std::invalid_argument);
}
