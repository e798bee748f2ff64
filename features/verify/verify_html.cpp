// `attn-tutor verify --html`: the text's table as an HTML table, the same rows, marks and summary.
#include <algorithm>

#include "features/verify/verify.h"
#include "lessons/ui_text.h"
#include "notebook/html_document.h"
#include "notebook/html_escape.h"

namespace attn {

namespace {

const char* kVerifyStyle = R"css(
.table-box { overflow-x: auto; }
table.verify { border-collapse: collapse; font-size: .9em; }
table.verify th, table.verify td { border: 1px solid #ddd; padding: .2em .6em; text-align: left; vertical-align: top; }
table.verify td.shape, table.verify td.max-diff { font-family: "DejaVu Sans Mono", monospace; white-space: nowrap; }
table.verify tr.differ { background: #fdf0e6; }
section.failures pre.expected { background: #eef6fb; border-left: 4px solid #2b7bb9; }
section.failures pre.printed { background: #fdf0e6; border-left: 4px solid #c24e00; }
)css";

std::string esc(const std::string& text) { return html_escape(text); }

std::string trimmed(const std::string& label) {
  return label.substr(std::min(label.size(), label.find_first_not_of(' ')));
}

}  // namespace

std::string verify_html(const std::vector<VerifyResult>& results, Lang lang) {
  std::string body = "<main class=\"verify\">\n<h1>" + esc(ui("verify.html.title", lang)) + "</h1>\n";
  body += "<div class=\"table-box\">\n<table class=\"verify\">\n<thead><tr>";
  for (const char* column : {"result", "lesson", "tensor", "shape", "max-diff", "source"})
    body += "<th>" + esc(ui(std::string("verify.col.") + column, lang)) + "</th>";
  body += "</tr></thead>\n<tbody>\n";
  int passed = 0, failed = 0;
  std::string failures;
  for (const VerifyResult& r : results) {
    const ReferenceEntry& e = *r.entry;
    body += std::string("<tr class=\"") + (r.ok ? "match" : "differ") + "\"><td class=\"result\"><span class=\"" +
            (r.ok ? "mark-ok\">\u2713" : "mark-bad\">\u2717") + "</span></td><td class=\"lesson\">" + esc(e.lesson) +
            "</td><td class=\"tensor\"><code>" + esc(e.name) + "</code></td><td class=\"shape\">" + esc(r.shape) +
            "</td><td class=\"max-diff\">" + esc(max_diff_text(r, lang)) + "</td><td class=\"source\">" +
            esc(entry_source(e, lang)) + "</td></tr>\n";
    (r.ok ? passed : failed)++;
    if (r.ok) continue;
    const std::string actual = r.missing ? ui("verify.missing", lang, {e.name}) : r.actual;
    failures += "<h3>\u2717 " + esc(e.lesson) + " <code>" + esc(e.name) + "</code></h3>\n<p>" +
                esc(trimmed(ui("verify.expected", lang))) + "</p>\n<pre class=\"expected\">" + esc(e.text) +
                "</pre>\n<p>" + esc(trimmed(ui("verify.printed", lang))) + "</p>\n<pre class=\"printed\">" +
                esc(actual) + "</pre>\n";
  }
  body += "</tbody>\n</table>\n</div>\n";
  const bool all_ok = failed == 0 && passed > 0;
  body += std::string("<div class=\"verdict ") + (all_ok ? "match" : "differ") + "\">\n<p class=\"summary\">" +
          esc(ui("verify.summary", lang, {std::to_string(passed), std::to_string(failed)})) + "</p>\n</div>\n";
  if (!failures.empty())
    body += "<section class=\"failures\">\n<h2>" + esc(ui("verify.html.failures", lang)) + "</h2>\n" + failures +
            "</section>\n";
  return html_document(lang, ui("verify.html.title", lang), kVerifyStyle, body + "</main>\n");
}

}  // namespace attn
