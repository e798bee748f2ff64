// --html: a self-contained page with one SVG per attention grid (side*side cells, tokens on both
// axes), escaped text, and a real render in headless Chromium (its DOM and a non-blank screenshot).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "notebook/attention_matrix.h"
#include "lessons/lesson.h"
#include "png_image.h"
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

// The grids the rule gives, counted on the notebook itself ("all": the chapter's lessons).
int expected_grids(const std::string& lesson) {
  int n = 0;
  for (const attn::LessonInfo& l : attn::lessons()) {
    if (lesson == "all" ? l.sections.front().rfind("3.", 0) != 0 : l.name != lesson) continue;
    const attn::Notebook nb = l.run(attn::LessonOptions{});
    for (const attn::NotebookItem& item : nb.items())
      if (item.tensor >= 0 && attn::is_attention_matrix(nb.tensors()[item.tensor]))
        n += static_cast<int>(attn::attention_grids(nb.tensors()[item.tensor].tensor).size());
  }
  return n;
}

std::string write_report(const std::string& lesson, const std::string& extra = "") {
  const std::string path = temp_dir() + "/" + lesson + ".html";
  const CliResult r = run_cli(lesson + " --color never " + extra + " --html " + path);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  return path;
}

struct Render {
  int status = -1;
  std::string dom;
  RgbImage shot;
  size_t png_bytes = 0;
};

// One headless Chromium run with a fresh profile: the DOM after load and a 1200x3000 screenshot.
Render render(const std::string& html_path) {
  const std::string dir = temp_dir();
  const std::string png = dir + "/shot.png", dom = dir + "/dom.html";
  const std::string cmd =
      "timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
      "--disable-background-networking --disable-component-update --disable-sync --user-data-dir='" + dir +
      "/profile' --screenshot='" + png + "' --window-size=1200,3000 --dump-dom 'file://" + html_path + "' >'" + dom +
      "' 2>'" + dir + "/chromium.err'";
  Render r;
  r.status = std::system(cmd.c_str());
  r.dom = read_text_file(dom);
  const std::string bytes = read_text_file(png);
  r.png_bytes = bytes.size();
  r.shot = read_png(bytes);
  std::error_code ignored;
  std::filesystem::remove_all(dir + "/profile", ignored);
  return r;
}

bool near(const uint8_t* p, int r, int g, int b) {
  return std::abs(p[0] - r) <= 8 && std::abs(p[1] - g) <= 8 && std::abs(p[2] - b) <= 8;
}

void check_rendered(const std::string& lesson) {
  REQUIRE_MESSAGE(std::system("command -v chromium >/dev/null 2>&1") == 0,
                  "chromium is not installed: run sh tools/install-deps.sh (make test does)");
  const std::string path = write_report(lesson);
  const Render r = render(path);
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
  CHECK(count(html, ">-inf</text>") == 15);  // masked's upper triangle
  CHECK(html.find("<pre class=\"code\"><span class=\"prompt\">In [6]:</span>\nmask = torch.triu(") != std::string::npos);
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
    CHECK(count(svg, "<rect") == side * side);
  }
  CHECK(sides == std::set<int>{3, 6});
  CHECK(html.find("<div class=\"grid-caption\">batch 1, head 1</div>") != std::string::npos);
}

TEST_CASE("html report is self-contained and escapes every text") {
  const std::string html = read_text_file(write_report("causal-mask", "--tokens 'x<y a&b q\"t z'"));
  for (const char* external : {"<script", "<link", "src=", "href=", "url(", "@import", "<img"}) {
    CAPTURE(external);
    CHECK(html.find(external) == std::string::npos);
  }
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
