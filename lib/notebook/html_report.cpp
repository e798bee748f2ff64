#include "notebook/html_report.h"

#include "notebook/attention_matrix.h"
#include "notebook/html_document.h"
#include "notebook/picture_text.h"

namespace attn {
namespace {

const char* kStyle = R"css(
body { font-family: "DejaVu Sans", "Noto Sans CJK SC", sans-serif; max-width: 1150px; margin: 1.5em auto;
       padding: 0 1em; color: #1d1d1f; background: #fff; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: .2em; }
h2 { font-size: 1.25em; border-bottom: 2px solid #7b3fa0; padding-bottom: .2em; margin-top: 2em; }
.meta { color: #555; font-size: .9em; overflow-wrap: anywhere; }
nav.toc { font-size: .9em; border: 1px solid #ddd; padding: .4em 1em; margin: 1em 0; }
nav.toc ul { margin: .2em 0; padding-left: 1.2em; }
nav.toc .cells a { margin-right: .6em; }
table.settings { border-collapse: collapse; font-size: .9em; margin: .4em 0 1em; display: block; max-width: 100%;
                 overflow-x: auto; }
table.settings th, table.settings td { border: 1px solid #ddd; padding: .15em .6em; text-align: left;
                                       overflow-wrap: anywhere; }
table.settings td { font-family: "DejaVu Sans Mono", monospace; overflow-wrap: anywhere; }
pre { font-family: "DejaVu Sans Mono", "Noto Sans Mono CJK SC", monospace; font-size: 13px; padding: .6em .8em;
      overflow-x: auto; border-radius: 4px; margin: .4em 0; }
pre.code { background: #eef6fb; border-left: 4px solid #2b7bb9; }
pre.out { background: #f7f7f7; border-left: 4px solid #bbb; }
pre.command { background: #f4f0f8; border-left: 4px solid #7b3fa0; white-space: pre-wrap; }
.prompt { color: #2b7bb9; font-weight: bold; }
.shape { font-family: "DejaVu Sans Mono", monospace; font-size: 12px; color: #777; margin: .2em 0; }
.note { color: #22663a; margin: .3em 0 .8em; overflow-wrap: anywhere; }
h1, h2, .shape { overflow-wrap: anywhere; }
figure.heatmap { margin: .6em 0 1em; max-width: 100%; overflow-x: auto; }
/* a phone's width: the page fits it, a wide heatmap scrolls inside its figure (overflow-x above) */
figure.heatmap figcaption { font-size: .9em; color: #333; margin-bottom: .3em; }
.grids { display: flex; flex-wrap: wrap; gap: 1.2em; }
.grid-caption { font-size: .85em; color: #555; }
svg text { font-family: "DejaVu Sans Mono", monospace; font-size: 11px; }
svg .label { fill: #333; }
.legend { font-size: .85em; color: #444; margin-top: .3em; }
.ramp { display: inline-block; width: 160px; height: 12px; vertical-align: middle; margin: 0 .4em;
        background: linear-gradient(to right, #440154, #3b528b, #21918c, #5ec962, #fde725); }
.masked-key, .dropped-key { display: inline-block; padding: 0 .4em; font-family: "DejaVu Sans Mono", monospace;
                            margin-left: 1em; }
.masked-key { background: #3a3a3a; color: #bcbcbc; }
.dropped-key { background: #b22234; color: #ffffff; }
)css";

std::string joined(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

// The tokens as pictures name them (label_text); the full text is in the input cell.
std::string token_labels(const std::vector<std::string>& tokens) {
  std::string out;
  for (const std::string& t : tokens) out += (out.empty() ? "" : " ") + label_text(t);
  return out;
}

std::string setting_value(const nlohmann::json& v, Lang lang) {
  if (v.is_null()) return picture_say("html.default", lang);
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::string settings_table(const Notebook& nb, Lang lang) {
  std::string out = "<table class=\"settings\">\n<tr><th>" + html_escape(picture_say("html.setting", lang)) +
                    "</th><th>" + html_escape(picture_say("html.value", lang)) + "</th></tr>\n";
  if (!nb.settings().empty() && nb.text_table()) {
    for (const Setting& s : nb.settings())
      out += "<tr><th>" + html_escape(s.name) + "</th><td>" + html_escape(nb.text_table()->render(s.value, lang)) +
             "</td></tr>\n";
    return out + "</table>\n";
  }
  for (const auto& [key, value] : nb.config().items())
    out += "<tr><th>" + html_escape(key) + "</th><td>" + html_escape(setting_value(value, lang)) + "</td></tr>\n";
  return out + "</table>\n";
}

// The sections (headings) with their cells, each a link to its anchor.
std::string contents(const Notebook& nb, Lang lang) {
  std::string out =
      "<nav class=\"toc\"><strong>" + html_escape(picture_say("html.contents", lang)) + "</strong>\n<ul>\n";
  bool open = false;
  for (size_t i = 0; i < nb.items().size(); ++i) {
    const NotebookItem& item = nb.items()[i];
    if (item.kind == NotebookItem::Kind::Heading) {
      if (open) out += "</span></li>\n";
      out += "<li><a href=\"#item-" + std::to_string(i) + "\">" + html_escape(item_text(item, lang)) +
             "</a><br><span class=\"cells\">";
      open = true;
    } else if (item.kind == NotebookItem::Kind::Code) {
      if (!open) {
        out += "<li><span class=\"cells\">";
        open = true;
      }
      out += "<a href=\"#cell-" + std::to_string(item.cell) + "\">" +
             html_escape(picture_say("html.cell", lang, {std::to_string(item.cell)})) + "</a> ";
    }
  }
  if (open) out += "</span></li>\n";
  return out + "</ul>\n</nav>\n";
}

}  // namespace

std::string html_report(const Notebook& nb, Lang lang, bool explain, const std::string& command) {
  const std::string title = "attn-tutor: " + nb.lesson();
  std::string out =
      "<h1>" + html_escape(title) + "</h1>\n<p class=\"meta\">" + html_escape(picture_say("html.sections", lang)) +
      " " + html_escape(joined(nb.sections(), ", ")) + " &middot; " +
      (nb.uses_tokens()
           ? html_escape(picture_say("html.tokens", lang)) + " " + html_escape(token_labels(nb.tokens())) + " &middot; "
           : std::string()) +
      "attn-tutor " ATTN_TUTOR_VERSION "</p>\n";
  out += contents(nb, lang);
  out += "<h2>" + html_escape(picture_say("html.settings", lang)) + "</h2>\n" + settings_table(nb, lang);
  if (!command.empty())
    out += "<p class=\"meta\">" + html_escape(picture_say("html.command", lang)) + "</p>\n<pre class=\"command\">" +
           html_escape(command) + "</pre>\n";
  // Each cell (its code and everything up to the next cell or heading) in one <div class="cell">: the page
  // steps through them.
  bool in_cell = false;
  const auto close_cell = [&] {
    if (in_cell) out += "</div>\n";
    in_cell = false;
  };
  for (size_t i = 0; i < nb.items().size(); ++i) {
    const NotebookItem& item = nb.items()[i];
    switch (item.kind) {
      case NotebookItem::Kind::Heading:
        close_cell();
        out += "<h2 id=\"item-" + std::to_string(i) + "\">" + html_escape(item_text(item, lang)) + "</h2>\n";
        break;
      case NotebookItem::Kind::Code:
        close_cell();
        out += "<div class=\"cell\" data-cell=\"" + std::to_string(item.cell) + "\">\n";
        in_cell = true;
        out += "<pre class=\"code\" id=\"cell-" + std::to_string(item.cell) + "\"><span class=\"prompt\">In [" +
               std::to_string(item.cell) + "]:</span>\n" + html_escape(item.text) + "</pre>\n";
        break;
      case NotebookItem::Kind::Output:
        out += "<pre class=\"out\">" + html_escape(item.text) + "</pre>\n";
        for (const MapSource& m : maps_after(nb, i)) out += html_map_figure(m, map_tokens(nb, m), lang);
        break;
      case NotebookItem::Kind::Shape:
        out += "<p class=\"shape\"># " + html_escape(item.text) + "</p>\n";
        break;
      case NotebookItem::Kind::Explanation:
        if (!explain) break;
        [[fallthrough]];
      case NotebookItem::Kind::Note:
      case NotebookItem::Kind::Confusion:
        out += "<p class=\"note\">" + html_escape(item_text(item, lang)) + "</p>\n";
        break;
    }
  }
  close_cell();
  return html_shell(lang, title, kStyle, out);
}

}  // namespace attn
