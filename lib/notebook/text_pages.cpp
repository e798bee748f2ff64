#include "notebook/text_pages.h"

#include <sstream>

#include "notebook/text_width.h"

namespace attn {

size_t terminal_dimension(const char* value) {
  if (!value || !*value) return 0;
  size_t n = 0;
  for (const char* p = value; *p; ++p) {
    if (*p < '0' || *p > '9' || p - value >= 5) return 0;  // digits only, at most 5 of them
    n = n * 10 + static_cast<size_t>(*p - '0');
  }
  return n >= 1 && n <= 10000 ? n : 0;
}

size_t screen_rows(const std::string& line, size_t columns) {
  if (columns == 0) return 1;
  size_t rows = 1, column = 0;
  for (const auto& character : display_characters(strip_escapes(line))) {
    if (column + character.second > columns) {  // the terminal moves it to the next row, whole
      ++rows;
      column = 0;
    }
    column += character.second;
  }
  return rows;
}

std::vector<std::string> screen_pages(const std::string& text, size_t rows, size_t columns) {
  if (rows == 0) rows = 1;
  std::vector<std::string> pages(1);
  size_t used = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const size_t need = screen_rows(line, columns);
    if (used > 0 && used + need > rows) {
      pages.emplace_back();
      used = 0;
    }
    pages.back() += line + "\n";
    used += need;
  }
  return pages;
}

}  // namespace attn
