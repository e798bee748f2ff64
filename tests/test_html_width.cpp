// A lesson's --html page at a phone's width (390 px) and a laptop's (1280 px), in headless Chromium:
// the document is no wider than the viewport (nothing scrolls the whole page sideways), and every
// heatmap cell lies inside its own scroll box (the figure scrolls, the page does not), so a 6-column
// heatmap keeps all 6 columns. Headless Chromium's window is at least 500 px wide, so the page is
// shown in an iframe of the width (srcdoc: the same origin as its parent), whose script measures the
// page after layout and writes the numbers into the DOM that --dump-dom returns.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "chromium_render.h"
#include "run_cli.h"

namespace {

const char* kMeasure = R"js(<script>
window.addEventListener('load', () => {
  const frame = document.getElementById('page');
  const doc = frame.contentDocument, d = doc.documentElement;
  const lines = ['doc ' + d.scrollWidth + ' ' + d.clientWidth];
  let cells = 0, outside = 0, figures = 0, wideFigures = 0;
  for (const fig of doc.querySelectorAll('figure.heatmap')) {
    ++figures;
    const box = fig.getBoundingClientRect();
    if (box.left < -0.5 || box.right > d.clientWidth + 0.5) ++wideFigures;
    // Where the figure's content reaches when scrolled: its left edge plus its scrollWidth.
    const reach = box.left + fig.scrollWidth + 0.5;
    for (const rect of fig.querySelectorAll('svg rect')) {
      const r = rect.getBoundingClientRect();
      ++cells;
      if (r.width <= 0 || r.left < box.left - 0.5 || r.right > reach) ++outside;
    }
    const style = frame.contentWindow.getComputedStyle(fig);
    if (fig.scrollWidth > fig.clientWidth + 0.5 && style.overflowX !== 'auto' && style.overflowX !== 'scroll') ++outside;
  }
  lines.push('figures ' + figures + ' ' + wideFigures);
  lines.push('cells ' + cells + ' ' + outside);
  const pre = document.createElement('pre');
  pre.id = 'measure';
  pre.textContent = lines.join('\n');
  document.body.appendChild(pre);
});
</script>)js";

std::string attribute(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '&' ? "&amp;" : c == '"' ? "&quot;" : std::string(1, c);
  return out;
}

struct Measure {
  long doc_scroll = -1, doc_client = -1, figures = -1, wide_figures = -1, cells = -1, outside = -1;
};

Measure measure(const std::string& lesson_args, int width) {
  const std::string dir = temp_dir(), page = dir + "/page.html";
  const CliResult r = run_cli(lesson_args + " --color never --html " + page);
  REQUIRE(r.exit_code == 0);
  const std::string html = read_text_file(page), frame = dir + "/frame.html";
  {
    std::ofstream out(frame, std::ios::binary | std::ios::trunc);
    out << "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body style=\"margin:0\">"
        << "<iframe id=\"page\" style=\"border:0;width:" << width << "px;height:900px\" srcdoc=\"" << attribute(html)
        << "\"></iframe>" << kMeasure << "</body></html>";
  }
  const Render rendered = render_in_chromium(frame, std::max(width, 600) + 40, 1000);
  REQUIRE(rendered.status == 0);
  const size_t at = rendered.dom.find("<pre id=\"measure\">");
  REQUIRE_MESSAGE(at != std::string::npos, "the measuring script did not run");
  std::istringstream in(rendered.dom.substr(at + 18, rendered.dom.find("</pre>", at) - at - 18));
  Measure m;
  std::string word;
  while (in >> word) {
    if (word == "doc")
      in >> m.doc_scroll >> m.doc_client;
    else if (word == "figures")
      in >> m.figures >> m.wide_figures;
    else if (word == "cells")
      in >> m.cells >> m.outside;
  }
  return m;
}

}  // namespace

TEST_CASE("html report fits a 390 px phone and a 1280 px screen: wide heatmaps scroll in their own box") {
  if (!chromium_installed()) {
    MESSAGE("chromium is not installed: the width test is skipped (sh tools/install-deps.sh installs it)");
    return;
  }
  // d2l-mha: 6-column heatmaps of (2, 4, 6) weights; wrapper --num-heads 4: several grids side by side;
  // causal-mask with 12 tokens: 12x12 grids.
  for (const char* args :
       {"d2l-mha", "wrapper --num-heads 4", "causal-mask --tokens 'a b c d e f g h i j k l'", "gqa"}) {
    for (int width : {390, 1280}) {
      CAPTURE(args);
      CAPTURE(width);
      const Measure m = measure(args, width);
      CHECK(m.doc_client > 0);
      CHECK(m.doc_client <= width);
      CHECK(m.doc_scroll <= m.doc_client);  // the page itself never scrolls sideways
      CHECK(m.figures > 0);
      CHECK(m.wide_figures == 0);  // each figure (the scroll box) is inside the viewport
      CHECK(m.cells > 0);
      CHECK(m.outside == 0);  // every cell inside its figure's scrollable width
    }
  }
}
