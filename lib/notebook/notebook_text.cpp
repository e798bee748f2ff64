#include "notebook/notebook_text.h"

#include <sstream>
#include <stdexcept>
#include <vector>

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

bool blank(const std::string& line) { return line.find_first_not_of(' ') == std::string::npos; }

// Inside a statement begun above: an indented line, or a closing bracket of a call split over lines.
bool continues(const std::string& line) {
  return !line.empty() && (line[0] == ' ' || line[0] == ')' || line[0] == ']' || line[0] == '}');
}

// `line` without its comment: from the first '#' outside a string literal on.
std::string without_comment(const std::string& line) { return line.substr(0, python_comment_start(line)); }

// A compound statement's header (class, def, for, if, with ...): its body follows, indented. The
// colon ends the code, a comment may follow it ("class A(nn.Module):  # plus a cache").
bool opens_block(const std::string& line) {
  const std::string code = without_comment(line);
  const size_t end = code.find_last_not_of(" \t");
  return end != std::string::npos && code[end] == ':';
}

// The cell as a Python session that pastes into the REPL: ">>> " starts a statement, "... "
// continues one, and a bare "..." ends a block (the empty line the REPL needs before the next
// statement) or stands for a blank line inside one (a blank line followed by an indented line is inside
// a block: a class's blank line between its methods). A blank line between statements is a bare ">>>".
std::string code_block(const std::string& code, int cell) {
  std::string out = "In [" + std::to_string(cell) + "]:\n";
  std::vector<std::string> lines;
  std::istringstream in(code);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  bool in_block = false;  // a compound statement is open: the REPL waits for its end
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (blank(line)) {
      size_t next = i + 1;
      while (next < lines.size() && blank(lines[next])) ++next;
      const bool body_goes_on = next < lines.size() && continues(lines[next]);
      if (!in_block && !body_goes_on) {
        out += ">>>\n";
        continue;
      }
      out += "...\n";
      in_block = body_goes_on;  // a blank line before the next statement ends the block
      continue;
    }
    if (continues(line)) {
      out += "... " + line + "\n";
      if (opens_block(line)) in_block = true;  // a header split over lines: "def f(a,\n      b):"
      continue;
    }
    if (in_block) out += "...\n";
    out += ">>> " + line + "\n";
    in_block = opens_block(line);
  }
  if (in_block) out += "...\n";
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

size_t python_comment_start(const std::string& line) {
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == '\\')
        ++i;  // an escaped character, the quote too
      else if (c == quote)
        quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '#') {
      return i;
    }
  }
  return std::string::npos;
}

}  // namespace attn
