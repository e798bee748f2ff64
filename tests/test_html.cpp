// --html: a self-contained page with one SVG per attention grid (side*side cells, tokens on both
// axes), escaped text, and a real render in headless Chromium (its DOM and a non-blank screenshot).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "notebook/attention_matrix.h"
#include "notebook/notebook_maps.h"
#include "lessons/lesson.h"
#include "chromium_render.h"
#include "run_cli.h"

namespace {

const std::vector<std::string> kTokens = {"Your", "journey", "starts", "with", "one", "step"};

int count(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

std::vector<std::string> svgs(const std::string& html) {
  std::vector<std::string> out;
  for (size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1))
    out.push_back(html.substr(at, html.find("</svg>", at) - at));
  return out;
}

int data_side(const std::string& svg) {
  const size_t at = svg.find("data-side=\"");
  return at == std::string::npos ? -1 : std::atoi(svg.c_str() + at + 11);
}

// The SVGs the notebook's pictures give (notebook_maps.h), counted on the notebook itself ("all": the
// chapter's lessons): a grid per batch/head index of a matrix, one for bars.
int expected_grids(const std::string& lesson) {
  int n = 0;
  for (const attn::LessonInfo& l : attn::lessons()) {
    if (lesson == "all" ? l.sections.front().rfind("3.", 0) != 0 : l.name != lesson) continue;
    const attn::Notebook nb = l.run(attn::LessonOptions{});
    for (const auto& [item, map] : attn::all_maps(nb))
      n += attn::is_weight_vector(map.tensor) ? 1 : static_cast<int>(attn::attention_grids(map.tensor.tensor).size());
  }
  return n;
}

int data_rows(const std::string& svg) {
  const size_t at = svg.find("data-rows=\"");
  return at == std::string::npos ? -1 : std::atoi(svg.c_str() + at + 11);
}

std::string write_report(const std::string& lesson, const std::string& extra = "") {
  const std::string path = temp_dir() + "/" + lesson + ".html";
  const CliResult r = run_cli(lesson + " --color never " + extra + " --html " + path);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  return path;
}

bool near(const uint8_t* p, int r, int g, int b) {
  return std::abs(p[0] - r) <= 8 && std::abs(p[1] - g) <= 8 && std::abs(p[2] - b) <= 8;
}

void check_rendered(const std::string& lesson) {
  REQUIRE_MESSAGE(chromium_installed(), "chromium is not installed: run sh tools/install-deps.sh (make test does)");
  const std::string path = write_report(lesson);
  const Render r = render_in_chromium(path, 1200, 4500);
  REQUIRE(r.status == 0);
  CHECK(count(r.dom, "<svg") == expected_grids(lesson));
  CHECK(count(r.dom, "<rect") == count(read_text_file(path), "<rect"));
  REQUIRE_MESSAGE(r.shot.error.empty(), r.shot.error);
  CHECK(r.png_bytes > 20000);
  CHECK(r.shot.width == 1200);
  // Not blank: plenty of pixels differ from the page background, in many colours, and whole cells
  // show both ends of the heatmap scale (the first heatmap has a minimum and a maximum; the
  // legends' gradients alone give fewer than 300 such pixels).
  const uint8_t* bg = r.shot.rgb.data();
  size_t ink = 0;
  size_t low = 0, high = 0;
  std::set<uint32_t> colours;
  for (size_t i = 0; i + 2 < r.shot.rgb.size(); i += 3) {
    const uint8_t* p = r.shot.rgb.data() + i;
    if (p[0] != bg[0] || p[1] != bg[1] || p[2] != bg[2]) ++ink;
    if (colours.size() < 1000) colours.insert(uint32_t(p[0]) << 16 | uint32_t(p[1]) << 8 | p[2]);
    low += near(p, 68, 1, 84);
    high += near(p, 253, 231, 37);
  }
  CHECK(ink > r.shot.rgb.size() / 3 / 50);  // more than 2% of the page
  CHECK(colours.size() > 50);
  CHECK(low > 1000);
  CHECK(high > 1000);
}

}  // namespace

TEST_CASE("html report of causal-mask: one svg per attention matrix with 6x6 cells and token labels") {
  const std::string html = read_text_file(write_report("causal-mask"));
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  const std::vector<std::string> grids = svgs(html);
  CHECK(grids.size() == 10);  // scores, weights, mask_simple, masked_simple(_norm), mask, masked, weights, 2 bool
  CHECK(static_cast<int>(grids.size()) == expected_grids("causal-mask"));
  for (const std::string& svg : grids) {
    CHECK(data_side(svg) == 6);
    CHECK(count(svg, "<rect") == 36);
    for (const std::string& token : kTokens) CHECK(count(svg, ">" + token + "</text>") == 2);  // row and column
  }
  CHECK(count(html, ">\u00b7 -inf</text>") == 15);    // masked's upper triangle, marked as masked
  CHECK(count(html, "<rect class=\"masked\"") > 15);  // and the 0s a mask left above the diagonal
  CHECK(html.find("<pre class=\"code\" id=\"cell-6\"><span class=\"prompt\">In [6]:</span>\nmask = torch.triu(") !=
        std::string::npos);
  CHECK(html.find("grad_fn=&lt;MaskedFillBackward0&gt;") != std::string::npos);
  CHECK(html.find("<MaskedFillBackward0>") == std::string::npos);
}

TEST_CASE("html report of all: every grid has side x side cells") {
  const std::string html = read_text_file(write_report("all"));
  const std::vector<std::string> grids = svgs(html);
  CHECK(static_cast<int>(grids.size()) == expected_grids("all"));
  std::set<int> sides;
  for (const std::string& svg : grids) {
    const int side = data_side(svg);
    sides.insert(side);
    CHECK(count(svg, "<rect") == side * data_rows(svg));
  }
  CHECK(sides == std::set<int>{3, 6});
  CHECK(html.find("<div class=\"grid-caption\">batch 1, head 1</div>") != std::string::npos);
}

TEST_CASE("html report is self-contained and escapes every text") {
  const std::string html = read_text_file(write_report("causal-mask", "--tokens 'x<y a&b q\"t z'"));
  for (const char* external : {"<script", "<link", "src=", "url(", "@import", "<img"}) {
    CAPTURE(external);
    CHECK(html.find(external) == std::string::npos);
  }
  CHECK(count(html, "href=\"") == count(html, "href=\"#"));  // links only within the page (its contents)
  CHECK(html.find(">x&lt;y</text>") != std::string::npos);
  CHECK(html.find(">a&amp;b</text>") != std::string::npos);
  CHECK(html.find(">q&quot;t</text>") != std::string::npos);
  CHECK(html.find("x<y") == std::string::npos);
  CHECK(html.find("a&b") == std::string::npos);
}

TEST_CASE("html report: an unwritable path is a usage error") {
  expect_usage_error("causal-mask --html /nonexistent-attn-dir/report.html", "--html");
  expect_usage_error("all --html /nonexistent-attn-dir/report.html", "--html");
}

TEST_CASE("html report renders in headless chromium: causal-mask") { check_rendered("causal-mask"); }

TEST_CASE("html report renders in headless chromium: all") { check_rendered("all"); }

TEST_CASE("html report: contents, settings as a table, the command that makes the page") {
  const std::string html = read_text_file(write_report("dropout", "--dropout 0.5 --seed 7"));
  // Contents: each section and each cell, linked to its anchor.
  const size_t nav = html.find("<nav class=\"toc\">");
  REQUIRE(nav != std::string::npos);
  CHECK(html.find("<a href=\"#cell-1\">In [1]</a>", nav) != std::string::npos);
  for (int cell = 1; html.find("id=\"cell-" + std::to_string(cell) + "\"") != std::string::npos; ++cell)
    CHECK(count(html, "href=\"#cell-" + std::to_string(cell) + "\"") == 1);
  CHECK(count(html, "<h2 id=\"item-") == count(html, "<a href=\"#item-"));
  // Settings: one row per option the lesson takes, with its value (tests/test_html_settings.cpp), never the raw JSON.
  CHECK(html.find("<tr><th>dropout</th><td>0.5</td></tr>") != std::string::npos);
  CHECK(html.find("<tr><th>seed</th><td>7</td></tr>") != std::string::npos);
  CHECK(html.find("{&quot;") == std::string::npos);
  CHECK(html.find("<pre class=\"command\">attn-tutor dropout --seed 7 --dropout 0.5 --html ") != std::string::npos);
  // Dropout zeros and masked zeros are told apart.
  CHECK(html.find("<rect class=\"dropped\"") != std::string::npos);
  CHECK(html.find("<rect class=\"masked\"") != std::string::npos);
  CHECK(html.find("<span class=\"dropped-key\">") != std::string::npos);
}

TEST_CASE("html report: bars for 1-D weights and a picture per head inside the wrapper") {
  const std::string softmax = read_text_file(write_report("softmax"));
  CHECK(softmax.find("<figure class=\"heatmap bars\">\n<figcaption>bars of attn_weights_2: one bar per token") !=
        std::string::npos);
  const std::string wrapper = read_text_file(write_report("wrapper"));
  CHECK(wrapper.find("heatmap of attn_weights inside head 0&#39;s forward") != std::string::npos);
  CHECK(wrapper.find("heatmap of attn_weights inside head 1&#39;s forward") != std::string::npos);
}

TEST_CASE("html report: every cell in its own div and every heatmap cell says its tokens, value and state") {
  const std::string html = read_text_file(write_report("dropout", "--seed 7 --dropout 0.5"));
  // One <div class="cell" data-cell="N"> per code cell, each opened before its code and closed.
  CHECK(count(html, "<div class=\"cell\" data-cell=\"") == count(html, "<pre class=\"code\""));
  // Each opens right after a heading or the cell before it (closed), and the last is closed.
  CHECK(count(html, "<div class=\"cell\"") ==
        count(html, "</h2>\n<div class=\"cell\"") + count(html, "</div>\n<div class=\"cell\""));
  CHECK(count(html, "<h2 id=\"item-") == 1 + count(html, "</div>\n<h2 id=\"item-"));
  CHECK(html.find("</div>\n</body>") != std::string::npos);
  CHECK(html.find("<div class=\"cell\" data-cell=\"1\">\n<pre class=\"code\" id=\"cell-1\">") != std::string::npos);
  // The hover box's facts on every grid cell: what each rect's state says agrees with its class.
  const int rects = count(html, "<rect class=\"value\"") + count(html, "<rect class=\"masked\"") +
                    count(html, "<rect class=\"dropped\"");
  CHECK(rects > 100);
  CHECK(count(html, " data-state=\"") == rects);
  CHECK(count(html, "data-state=\"dropped\"") == count(html, "<rect class=\"dropped\""));
  CHECK(count(html, "data-state=\"masked\"") == count(html, "<rect class=\"masked\""));
  CHECK(html.find("data-q=\"journey\" data-k=\"starts\" data-v=\"") != std::string::npos);
  const std::string softmax = read_text_file(write_report("softmax"));
  CHECK(softmax.find("data-k=\"journey\" data-v=\"") != std::string::npos);
  CHECK(count(softmax, "<rect class=\"bar\"") == 18);
  CHECK(count(softmax, "\"><title>journey: ") == 3);  // a title on each of the three pictures' bar for journey
}
