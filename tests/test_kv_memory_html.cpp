// `attn-tutor kv-memory --html`: the table and an SVG line chart of the same figures, one polyline per
// estimator the text plots and a circle per point, with axes, a legend and an accessible name; Chinese
// with --lang zh; the output rules of --json.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "english_prose.h"
#include "features/kv_memory/kv_memory.h"
#include "html_text.h"
#include "run_cli.h"

namespace {

// The attribute `name` of an element's opening tag.
std::string attribute(const std::string& tag, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(tag, m, std::regex(" " + name + "=\"([^\"]*)\""))) return "";
  return m[1];
}

std::vector<std::string> tags(const std::string& html, const std::string& element) {
  std::vector<std::string> out;
  const std::regex re("<" + element + "[ >][^>]*>");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back(it->str());
  return out;
}

}  // namespace

TEST_CASE("kv-memory --html: one line per estimator shown, a circle per point, the table's numbers") {
  struct Case {
    std::string args;
    std::vector<std::string> series;
  };
  const Case cases[] = {{"", {"MHA", "GQA"}},
                        {"--window 4096 --latent-dim 512", {"MHA", "GQA", "MHA+SWA", "GQA+SWA", "MLA"}},
                        {"--latent-dim 256 --context-length 5000", {"MHA", "GQA", "MLA"}}};
  for (const Case& c : cases) {
    CAPTURE(c.args);
    const CliResult r = run_cli("kv-memory " + c.args + " --html -");
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    REQUIRE(html_elements(r.out, "<svg class=\"kv-chart\"", "</svg>").size() == 1);
    const std::string svg = html_elements(r.out, "<svg class=\"kv-chart\"", "</svg>")[0];
    const std::string open = "<svg class=\"kv-chart\"" + svg.substr(0, svg.find('>') + 1);
    CHECK(attribute(open, "role") == "img");
    CHECK(!attribute(open, "aria-label").empty());
    CHECK(svg.find("<title>") != std::string::npos);
    CHECK(count_of(svg, "<polyline") == c.series.size());
    const std::vector<std::string> groups = html_elements(svg, "<g class=\"series\" data-series=\"", "\"");
    CHECK(groups == c.series);
    CHECK(count_of(svg, "class=\"axis-title x-title\"") == 1);
    CHECK(count_of(svg, "class=\"axis-title y-title\"") == 1);
    REQUIRE(html_elements(svg, "<g class=\"legend\">", "</g>").size() == 1);
    for (const std::string& s : c.series)
      CHECK(html_elements(svg, "<g class=\"legend\">", "</g>")[0].find(">" + s + "<") != std::string::npos);
    // The table's rows and the circles: every context length of the text's table, every series.
    const std::string table = html_elements(r.out, "<table class=\"kv-memory\">", "</table>").at(0);
    const size_t lengths = count_of(table, "<tr") - 1;  // the header row
    CHECK(lengths >= 10);
    const std::vector<std::string> circles = tags(svg, "circle");
    CHECK(circles.size() == lengths * c.series.size());
    CHECK(count_of(svg, "</title></circle>") == circles.size());
    // Each circle's data-y is its row's number in the table, and the circles go up with the context length.
    const attn::KvMemoryEstimate e = [&] {
      attn::KvMemoryConfig config;
      if (c.args.find("--window") != std::string::npos) config.window = 4096;
      if (c.args.find("--latent-dim 512") != std::string::npos) config.latent_dim = 512;
      if (c.args.find("--latent-dim 256") != std::string::npos) config.latent_dim = 256;
      if (c.args.find("--context-length 5000") != std::string::npos) config.context_length = 5000;
      return attn::estimate_kv_memory(config);
    }();
    REQUIRE(e.by_context.size() == lengths);
    for (size_t k = 0; k < circles.size(); ++k) {
      const attn::KvMemoryTotals& t = e.by_context[k % lengths];
      CHECK(attribute(circles[k], "data-x") == std::to_string(t.context_length));
      const std::string& name = c.series[k / lengths];
      const int64_t bytes = name == "MHA"       ? t.mha
                            : name == "GQA"     ? t.gqa
                            : name == "MHA+SWA" ? *t.swa
                            : name == "GQA+SWA" ? *t.gqa_swa
                                                : *t.mla;
      CHECK(attribute(circles[k], "data-bytes") == std::to_string(bytes));
      char gb[32];
      std::snprintf(gb, sizeof gb, "%.2f", static_cast<double>(bytes) / 1e9);
      CHECK(attribute(circles[k], "data-y") == gb);
      if (k % lengths > 0) CHECK(std::stod(attribute(circles[k], "cx")) > std::stod(attribute(circles[k - 1], "cx")));
      if (k % lengths > 0)
        CHECK(std::stod(attribute(circles[k], "cy")) <= std::stod(attribute(circles[k - 1], "cy")));  // y grows upwards
    }
    CHECK(count_of(table, "<tr class=\"current\">") == 1);
  }
}

TEST_CASE("kv-memory --html --lang zh: the chart's and the page's words in Chinese") {
  const CliResult r = run_cli("kv-memory --window 1024 --latent-dim 512 --lang zh --html -");
  CHECK(r.out.find("<html lang=\"zh\">") != std::string::npos);
  std::string prose = html_prose(r.out);
  const std::vector<std::string> english = english_prose_lines(prose);
  CHECK_MESSAGE(english.empty(), (english.empty() ? "" : english[0]));
  // The SVG's own words (titles, axis titles, the label) too.
  std::string svg_words;
  for (const std::string& t : html_elements(r.out, "<title>", "</title>")) svg_words += t + "\n";
  for (const std::string& t : html_elements(r.out, "aria-label=\"", "\"")) svg_words += t + "\n";
  for (const std::string& t : html_elements(r.out, "text-anchor=\"middle\">", "</text>")) svg_words += t + "\n";
  CHECK(english_prose_lines(svg_words).empty());
  check_contains(r.out, {"上下文长度", "KV 缓存（GB）"});
  for (const char* word : {"context length", "Total KV", "log scale"})
    CHECK_MESSAGE(r.out.find(word) == std::string::npos, word);
}

TEST_CASE("kv-memory --html FILE: the file beside the text, --json's rules") {
  const std::string dir = temp_dir();
  const CliResult r = run_cli("kv-memory --html " + dir + "/kv.html --json " + dir + "/kv.json");
  CHECK(r.exit_code == 0);
  CHECK(r.out == run_cli("kv-memory").out);
  CHECK(read_text_file(dir + "/kv.html") == run_cli("kv-memory --html -").out);
  CHECK(read_text_file(dir + "/kv.json") == run_cli("kv-memory --json -").out);
  const std::string empty = temp_dir();
  expect_usage_error("kv-memory --html ''", "--html '': the path is empty");
  expect_usage_error("kv-memory --html - --json -", "both would write to standard output");
  expect_usage_error("kv-memory --html " + empty + "/same --json " + empty + "/same", "is the same file as");
  expect_usage_error("kv-memory --html " + empty + "/kv.html --num-heads 0", "--num-heads");
  CHECK(std::filesystem::is_empty(empty));  // nothing written, no temporary left
}
