#include "notebook/notebook_text.h"

#include <sstream>
#include <stdexcept>

#include "notebook/text_width.h"

namespace attn {
namespace {

const char* kReset = "\x1b[0m";
const char* kHeading = "\x1b[1;35m";
const char* kCode = "\x1b[36m";
const char* kShape = "\x1b[2m";
const char* kNote = "\x1b[32m";

std::string paint(const std::string& text, const char* style, bool color) {
  if (!color) return text;
  std::string out, line;
  std::istringstream lines(text);
  bool first = true;
  while (std::getline(lines, line)) {
    out += (first ? "" : "\n") + std::string(style) + line + kReset;
    first = false;
  }
  return out;
}

std::string code_block(const std::string& code, int cell) {
  std::string out = "In [" + std::to_string(cell) + "]:\n";
  std::istringstream lines(code);
  std::string line;
  while (std::getline(lines, line)) {
    const bool continuation = !line.empty() && (line[0] == ' ' || line[0] == ')' || line[0] == ']');
    out += (continuation ? "... " : ">>> ") + line + "\n";
  }
  return out;
}

}  // namespace

std::string render_text(const Notebook& nb, const TextOptions& options) {
  const bool color = options.color;
  const int start = start_item(nb, options.from);
  if (start < 0) throw std::invalid_argument("no section or cell '" + options.from + "' in " + nb.lesson());
  std::string out;
  for (size_t index = static_cast<size_t>(start); index < nb.items().size(); ++index) {
    const NotebookItem& item = nb.items()[index];
    switch (item.kind) {
      case NotebookItem::Kind::Heading: {
        const std::string title = item_text(item, options.lang);
        const std::string rule(std::min<size_t>(78, display_width(title) + 3), '=');
        out += "\n" + paint("== " + title + "\n" + rule, kHeading, color) + "\n";
        break;
      }
      case NotebookItem::Kind::Code:
        out += "\n" + paint(code_block(item.text, item.cell), kCode, color);
        if (!color && out.back() != '\n') out += "\n";
        if (color) out += "\n";
        break;
      case NotebookItem::Kind::Output:
        out += item.text + "\n";
        if (options.heatmap) out += output_heatmaps(nb, item, options.palette, options.lang);
        break;
      case NotebookItem::Kind::Shape:
        out += paint("# " + item.text, kShape, color) + "\n";
        break;
      case NotebookItem::Kind::Explanation:
        if (!options.explain) break;
        [[fallthrough]];
      case NotebookItem::Kind::Note:
      case NotebookItem::Kind::Confusion: {
        std::string wrapped = wrap_text(item_text(item, options.lang), "# ", 80);
        if (!wrapped.empty()) wrapped.pop_back();
        out += paint(wrapped, kNote, color) + "\n";
        break;
      }
    }
  }
  return out;
}

}  // namespace attn
