#pragma once
// Text fitted to a terminal: its size as $COLUMNS and $LINES give it, and a tall text cut into screens.
#include <string>
#include <vector>

namespace attn {

// A terminal dimension as an environment variable writes it ("80"): a whole number from 1 to 10000,
// nothing else (no sign, space or unit); 0 for anything else (unset, empty, "abc", "-5", "1e3", "99999").
size_t terminal_dimension(const char* value);

// Screen rows `line` takes on a terminal `columns` wide (at least 1; colour escapes take none, a Chinese
// character two columns).
size_t screen_rows(const std::string& line, size_t columns);

// `text` cut into screens of at most `rows` rows each on a terminal `columns` wide, at line ends
// (a line taller than a screen is a screen of its own). Every screen ends with '\n'; at least one screen.
std::vector<std::string> screen_pages(const std::string& text, size_t rows, size_t columns);

}  // namespace attn
