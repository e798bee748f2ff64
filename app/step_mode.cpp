#include "step_mode.h"

#include "language.h"

#include <istream>
#include <ostream>
#include <sstream>

namespace attn {
namespace {

std::string strip_escapes(const std::string& line) {
  std::string out;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b') {
      while (i < line.size() && line[i] != 'm') ++i;
      continue;
    }
    out += line[i];
  }
  return out;
}

bool starts_cell(const std::string& plain) { return plain.rfind("In [", 0) == 0; }
bool starts_heading(const std::string& plain) { return plain.rfind("== ", 0) == 0; }

}  // namespace

std::vector<std::string> split_cells(const std::string& text) {
  std::vector<std::string> pages(1);
  std::istringstream lines(text);
  bool heading_pending = false;  // a heading opened the current page; its cell joins it
  for (std::string line; std::getline(lines, line);) {
    const std::string plain = strip_escapes(line);
    const bool boundary = starts_heading(plain) || (starts_cell(plain) && !heading_pending);
    if (boundary && !pages.back().empty()) pages.emplace_back();
    if (starts_heading(plain)) heading_pending = true;
    else if (starts_cell(plain)) heading_pending = false;
    pages.back() += line + "\n";
  }
  // A page that is only blank lines (the text's leading newline) is dropped.
  std::vector<std::string> kept;
  for (const std::string& p : pages)
    if (p.find_first_not_of("\n") != std::string::npos) kept.push_back(p);
  return kept;
}

void step_through(const std::vector<std::string>& pages, std::istream& in, std::ostream& out) {
  size_t k = 0;
  while (k < pages.size()) {
    out << pages[k];
    out << tr("app.step.prompt", {std::to_string(k + 1), std::to_string(pages.size())}) << std::flush;
    std::string answer;
    if (!std::getline(in, answer) || answer == "q") {
      out << "\n";
      return;
    }
    if (answer == "b") k = k == 0 ? 0 : k - 1;
    else ++k;
  }
}

}  // namespace attn
