// `attn-tutor verify --html`: the text's table as <table class="verify">, one row per line of the text,
// the same marks, the summary and the exit code; Chinese with --lang zh; a failure's texts escaped.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "english_prose.h"
#include "features/verify/verify.h"
#include "html_text.h"
#include "run_cli.h"

namespace {

// The text's table lines: each starts with its mark.
size_t marked_lines(const std::string& text, const std::string& mark) {
  size_t n = 0;
  for (size_t at = 0; at < text.size();) {
    if (text.compare(at, mark.size(), mark) == 0) ++n;
    const size_t nl = text.find('\n', at);
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return n;
}

std::string last_line(const std::string& text) {
  const size_t end = text.find_last_not_of('\n');
  const size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end - (start == std::string::npos ? 0 : start + 1) + 1);
}

}  // namespace

TEST_CASE("verify --html: as many rows as the text table, the same marks, summary and exit code") {
  for (const std::string args : {"verify mha", "verify", "verify mha --lang zh"}) {
    CAPTURE(args);
    const CliResult text = run_cli(args);
    const CliResult html = run_cli(args + " --html -");
    CHECK(html.exit_code == text.exit_code);
    CHECK(text.exit_code == 0);
    REQUIRE(html_elements(html.out, "<table class=\"verify\">", "</table>").size() == 1);
    const std::string table = html_elements(html.out, "<table class=\"verify\">", "</table>")[0];
    const size_t rows = count_of(table, "<tr class=\"match\">") + count_of(table, "<tr class=\"differ\">");
    CHECK(rows == marked_lines(text.out, "\u2713 ") + marked_lines(text.out, "\u2717 "));
    CHECK(rows > 4);
    CHECK(count_of(table, "<span class=\"mark-ok\">\u2713</span>") == marked_lines(text.out, "\u2713 "));
    CHECK(count_of(table, "<td class=\"tensor\">") == rows);
    CHECK(count_of(table, "<td class=\"source\">") == rows);
    const std::vector<std::string> summary = html_elements(html.out, "<p class=\"summary\">", "</p>");
    REQUIRE(summary.size() == 1);
    CHECK(summary[0] == last_line(text.out));
    CHECK(html.out.find("<div class=\"verdict match\">") != std::string::npos);
  }
}

TEST_CASE("verify --html --lang zh: every heading and label in Chinese") {
  const CliResult html = run_cli("verify --lang zh --html -");
  CHECK(html.out.find("<html lang=\"zh\">") != std::string::npos);
  const std::string prose = html_prose(html.out);
  const std::vector<std::string> english = english_prose_lines(prose);
  CHECK_MESSAGE(english.empty(), (english.empty() ? "" : english[0]));
  for (const char* word : {"Result", "Lesson", "Tensor", "Shape", "Where", "passed"})
    CHECK_MESSAGE(prose.find(word) == std::string::npos, word);
  check_contains(html.out, {"<th>结果</th>", "<th>书中打印的位置</th>", "通过 93 项"});
}

TEST_CASE("verify --html FILE: the file is the HTML, stdout the text") {
  const std::string dir = temp_dir();
  const CliResult r = run_cli("verify mha --html " + dir + "/verify.html");
  CHECK(r.exit_code == 0);
  CHECK(r.out == run_cli("verify mha").out);
  CHECK(read_text_file(dir + "/verify.html") == run_cli("verify mha --html -").out);
  expect_usage_error("verify mha --html ''", "--html '': the path is empty");
  expect_usage_error("verify mha --html " + dir + "/missing/v.html", "--html");
  expect_usage_error("verify nope --html -", "nope");
}

TEST_CASE("verify_html: a failure is a differ row, its texts escaped, a differ verdict") {
  attn::ReferenceEntry ok_entry{"mha", "context_vecs", "", "", "book 3.6.2", "tensor([1.])"};
  attn::ReferenceEntry bad_entry{"mha", "<b>x</b>", "--seed 1", "", "book 3.6.2", "tensor([<i>])"};
  std::vector<attn::VerifyResult> results(2);
  results[0].ok = true;
  results[0].entry = &ok_entry;
  results[0].shape = "(1,)";
  results[1].ok = false;
  results[1].entry = &bad_entry;
  results[1].shape = "(1,)";
  results[1].max_diff = 0.5;
  results[1].actual = "tensor([</pre><script>])";
  const std::string html = attn::verify_html(results, attn::Lang::En);
  CHECK(count_of(html, "<tr class=\"match\">") == 1);
  CHECK(count_of(html, "<tr class=\"differ\">") == 1);
  CHECK(count_of(html, "<span class=\"mark-bad\">\u2717</span>") == 1);
  CHECK(html.find("<div class=\"verdict differ\">") != std::string::npos);
  CHECK(html.find("<p class=\"summary\">1 passed, 1 failed</p>") != std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<b>x") == std::string::npos);
  CHECK(html_elements(html, "<pre class=\"printed\">", "</pre>").at(0) == "tensor([&lt;/pre&gt;&lt;script&gt;])");
  CHECK(html.find("<td class=\"max-diff\">0.5</td>") != std::string::npos);
  CHECK(html.find(", --seed 1</td>") != std::string::npos);
}
