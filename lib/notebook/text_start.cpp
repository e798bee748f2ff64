// --from: where the rendered text of a notebook starts (declared in notebook/notebook_text.h).
#include <algorithm>

#include "notebook/notebook_text.h"

namespace attn {
namespace {

bool all_digits(const std::string& s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace

int start_item(const Notebook& nb, const std::string& from) {
  if (from.empty()) return 0;
  const std::vector<NotebookItem>& items = nb.items();
  if (all_digits(from)) {
    const int cell = std::stoi(from);
    for (size_t i = 0; i < items.size(); ++i) {
      if (items[i].kind != NotebookItem::Kind::Code || items[i].cell != cell) continue;
      const bool headed = i > 0 && items[i - 1].kind == NotebookItem::Kind::Heading;
      return static_cast<int>(headed ? i - 1 : i);
    }
    return -1;
  }
  const std::string section = from.rfind("\xC2\xA7", 0) == 0 ? from.substr(2) : from;  // "§3.5.2"
  for (const bool prefix : {false, true})
    for (size_t i = 0; i < items.size(); ++i) {
      if (items[i].kind != NotebookItem::Kind::Heading) continue;
      const std::string& name = items[i].text;
      if (prefix ? name.rfind(section + ".", 0) == 0 : name == section) return static_cast<int>(i);
    }
  return -1;
}

std::vector<std::string> start_sections(const Notebook& nb) {
  std::vector<std::string> sections;
  for (const NotebookItem& item : nb.items())
    if (item.kind == NotebookItem::Kind::Heading &&
        std::find(sections.begin(), sections.end(), item.text) == sections.end())
      sections.push_back(item.text);
  return sections;
}

int cell_count(const Notebook& nb) {
  int cells = 0;
  for (const NotebookItem& item : nb.items())
    if (item.kind == NotebookItem::Kind::Code) cells = std::max(cells, item.cell);
  return cells;
}

}  // namespace attn
