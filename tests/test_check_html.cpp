// `attn-tutor check FILE --html`: the text report's words as HTML, every differing entry of both tensors
// marked (exactly the values the text report counts), the tensors otherwise print(t) byte for byte, the
// same exit code, Chinese throughout with --lang zh, and the output rules of the other --html options.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "english_prose.h"
#include "html_text.h"
#include "run_cli.h"

namespace {

const std::string kMistakes = std::string(ATTN_TEST_FIXTURE_DIR) + "/mistakes/";

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t from = 0;
  for (size_t nl; (nl = text.find('\n', from)) != std::string::npos; from = nl + 1)
    lines.push_back(text.substr(from, nl - from));
  if (from < text.size()) lines.push_back(text.substr(from));
  return lines;
}

std::string rstrip(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// The two tensors of the text report's side-by-side block ("yours:" and "attn-tutor:" columns), each
// with `lines` lines.
void text_columns(const std::string& report, size_t left_lines, size_t right_lines, std::string& left,
                  std::string& right) {
  const std::vector<std::string> lines = split_lines(report);
  size_t head = 0;
  while (head < lines.size() && lines[head].rfind("yours:", 0) != 0) ++head;
  REQUIRE(head < lines.size());
  const size_t col = lines[head].find("attn-tutor:");
  REQUIRE(col != std::string::npos);
  left.clear();
  right.clear();
  for (size_t i = 0; i < std::max(left_lines, right_lines); ++i) {
    const std::string& line = lines.at(head + 1 + i);
    if (i < left_lines) left += (i ? "\n" : "") + rstrip(line.substr(0, std::min(col, line.size())));
    if (i < right_lines) right += (i ? "\n" : "") + (line.size() > col ? line.substr(col) : std::string());
  }
}

size_t line_count(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')) + 1; }

std::string without_marks(const std::string& pre) {
  return html_text(std::regex_replace(pre, std::regex("</?mark[^>]*>"), ""));
}

std::string trailing_spaces_removed(const std::string& text) {
  std::string out;
  for (const std::string& line : split_lines(text)) out += (out.empty() ? "" : "\n") + rstrip(line);
  return out;
}

}  // namespace

TEST_CASE("check --html: the marks are exactly the differing values the text report counts") {
  const char* fixtures[] = {"dropout-on-scores", "dropout-reseed",    "mask-after-softmax", "eval-mode",
                            "softmax-dim",       "repeat-valid-lens", "stale-scores"};
  for (const char* name : fixtures) {
    const std::string path = kMistakes + name + ".json";
    CAPTURE(path);
    const CliResult text = run_cli_env("COLUMNS=200", "check " + path + " --color never");  // side by side
    const CliResult html = run_cli("check " + path + " --html -");
    CHECK(text.exit_code == 1);
    CHECK(html.exit_code == text.exit_code);
    CHECK(html.err.empty());
    std::smatch m;
    REQUIRE(std::regex_search(text.out, m, std::regex("(All (\\d+)|(\\d+) of (\\d+)) values differ")));
    const size_t differing = std::stoul(m[2].matched ? m[2].str() : m[3].str());
    const std::vector<std::string> yours = html_elements(html.out, "<pre class=\"out yours\">", "</pre>");
    const std::vector<std::string> ours = html_elements(html.out, "<pre class=\"out ours\">", "</pre>");
    REQUIRE(yours.size() == 1);
    REQUIRE(ours.size() == 1);
    CHECK(count_of(yours[0], "<mark class=\"diff\">") == differing);
    CHECK(count_of(ours[0], "<mark class=\"diff\">") == differing);
    CHECK(count_of(html.out, "<mark") == 2 * differing);  // nowhere else
    // Without the marks, each is the text report's tensor, byte for byte (the report pads the left column).
    const std::string a = without_marks(yours[0]), b = without_marks(ours[0]);
    std::string left, right;
    text_columns(text.out, line_count(a), line_count(b), left, right);
    CHECK(trailing_spaces_removed(a) == left);
    CHECK(b == right);
    // A mark holds one value's text: no padding, no separator.
    for (const std::string& marked : html_elements(yours[0] + ours[0], "<mark class=\"diff\">", "</mark>"))
      CHECK(std::regex_match(marked, std::regex("-?(nan|inf|[0-9.]+(e[-+][0-9]+)?)")));
    CHECK(html.out.find("<div class=\"verdict differ\">") != std::string::npos);
    CHECK(html.out.find("<p class=\"count\">") != std::string::npos);
  }
}

TEST_CASE("check --html: a matching export has no marks, a match verdict and exit 0") {
  const CliResult html = run_cli("check " + kMistakes + "correct-mha.json --html -");
  CHECK(html.exit_code == 0);
  CHECK(html.out.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(count_of(html.out, "<mark") == 0);
  CHECK(html.out.find("<div class=\"verdict match\">") != std::string::npos);
  CHECK(count_of(html.out, "<li class=\"match\">") == 2);
  CHECK(html.out.find("All 2 checked tensors match the lesson.") != std::string::npos);
}

TEST_CASE("check --html FILE: the file is what --html - writes, stdout the text report, the same exit code") {
  const std::string dir = temp_dir();
  const std::string path = kMistakes + "mask-after-softmax.json";
  const CliResult to_file = run_cli("check " + path + " --color never --html " + dir + "/report.html");
  const CliResult text = run_cli("check " + path + " --color never");
  const CliResult html = run_cli("check " + path + " --html -");
  CHECK(to_file.exit_code == 1);
  CHECK(to_file.out == text.out);
  CHECK(read_text_file(dir + "/report.html") == html.out);
}

TEST_CASE("check --html --lang zh: the report's prose and labels in Chinese") {
  for (const char* name : {"dropout-on-scores", "stale-scores", "correct-mha", "mask-after-softmax"}) {
    CAPTURE(name);
    const CliResult html = run_cli(std::string("check ") + kMistakes + name + ".json --html - --lang zh");
    CHECK(html.out.find("<html lang=\"zh\">") != std::string::npos);
    const std::string prose = html_prose(html.out);
    const std::vector<std::string> english = english_prose_lines(prose);
    CHECK_MESSAGE(english.empty(), "English in the Chinese report: " << (english.empty() ? "" : english[0]));
    for (const char* word : {"yours", "First difference", "Diagnosis", "values differ", "match, "})
      CHECK_MESSAGE(prose.find(word) == std::string::npos, word);
  }
  const CliResult html = run_cli("check " + kMistakes + "dropout-on-scores.json --html - --lang zh");
  check_contains(html.out, {"<h3>你的：</h3>", "第一处差异", "诊断："});
}

TEST_CASE("check --html: a hostile tensor name reaches the HTML escaped") {
  const std::string dir = temp_dir();
  std::string fixture = read_text_file(kMistakes + "correct-softmax.json");
  const std::string hostile = "<script>alert(1)</script>\\u202e&amp;";
  const size_t at = fixture.find("\"name\": \"attn_scores\"");
  REQUIRE(at != std::string::npos);
  fixture.insert(fixture.find("{", at - 4),
                 "{\"name\": \"" + hostile + "\", \"shape\": [1], \"dtype\": \"float32\", \"data\": [1.0]},\n  ");
  const std::string path = write_file(dir, "hostile.json", fixture);
  const CliResult html = run_cli("check " + path + " --html -");
  CAPTURE(html.err);
  CHECK(html.exit_code == 0);
  CHECK(html.out.find("<script") == std::string::npos);
  CHECK(html.out.find("&lt;script&gt;") != std::string::npos);
  CHECK(html.out.find("\u202e") == std::string::npos);
  CHECK(html.out.find("<li class=\"unknown\">") != std::string::npos);
}

TEST_CASE("check --html: the output rules of every --html (one line, exit 2, nothing written)") {
  const std::string dir = temp_dir();
  const std::string input = write_file(dir, "export.json", read_text_file(kMistakes + "dropout-on-scores.json"));
  expect_usage_error("check " + input + " --html " + input, "is the file that check");
  CHECK(read_text_file(input) == read_text_file(kMistakes + "dropout-on-scores.json"));
  expect_usage_error("check " + input + " --html ''", "--html '': the path is empty");
  expect_usage_error("check " + input + " --html " + dir + "/missing/report.html", "--html");
  expect_usage_error("check " + input + " --html " + dir, "--html");
  expect_usage_error("check " + dir + "/none.json --html " + dir + "/report.html", "none.json");
  size_t files = 0;  // no report, no temporary left behind
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files += entry.path().filename() != "export.json";
  CHECK(files == 0);
  const CliResult to_null = run_cli("check " + input + " --html /dev/null");  // a device is written directly
  CHECK(to_null.exit_code == 1);
  CHECK(to_null.out.find("24 of 24 values") != std::string::npos);
}

TEST_CASE("check --html: when the shapes differ, every entry of both tensors is marked (as the text says)") {
  const std::string path = kMistakes + "export-settings.json";
  const CliResult text = run_cli("check " + path + " --color never");
  const CliResult html = run_cli("check " + path + " --html -");
  REQUIRE(text.out.find("the lesson's shape is (2, 6, 2)") != std::string::npos);
  CHECK(html.exit_code == text.exit_code);
  const std::vector<std::string> yours = html_elements(html.out, "<pre class=\"out yours\">", "</pre>");
  const std::vector<std::string> ours = html_elements(html.out, "<pre class=\"out ours\">", "</pre>");
  REQUIRE(yours.size() == 1);
  REQUIRE(ours.size() == 1);
  CHECK(count_of(yours[0], "<mark class=\"diff\">") == 2 * 6 * 4);
  CHECK(count_of(ours[0], "<mark class=\"diff\">") == 2 * 6 * 2);
  CHECK(html.out.find("<p class=\"summary\">Your shape is (2, 6, 4), the lesson&#39;s (2, 6, 2).</p>") !=
        std::string::npos);
}
