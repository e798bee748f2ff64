#pragma once
// --step: the notebook one cell at a time, for a learner at a terminal, a tall cell page by page.
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "notebook/notebook.h"

namespace attn {

// Splits rendered notebook text into pages: one per cell, a section heading staying with the cell
// that follows it. Colour escapes are allowed in the text.
std::vector<std::string> split_cells(const std::string& text);

// What a key does: space, PgDn or Enter show the next page of the cell (its last page: the next cell),
// n the next cell, PgUp the previous page (the first page: the previous cell's last), b the previous
// cell from its top, c turns clearing the screen before each page on or off, q (or end of input,
// Ctrl-D) quits; any other key does nothing.
enum class StepKey { Forward, Next, PageBack, Back, Clear, Quit, None };
StepKey step_key(int c);  // c: a byte, or -1 for the end of input
// The next key from a stream of bytes (`read_byte`: a byte, or -1 at the end of input): a byte as
// step_key reads it, or the terminal's escape sequence for PgUp (ESC [ 5 ~) or PgDn (ESC [ 6 ~).
StepKey read_step_key(const std::function<int()>& read_byte);

// The terminal the pages are shown on: its size, asked again before every page (it can change).
struct StepScreen {
  std::function<size_t()> rows, columns;
  bool can_clear = false;  // `out` is a terminal: the screen can be cleared (ANSI)
};

// Shows page after page, reading one line per key from `in` (an empty line is Enter). `last_cell`: the
// number of the notebook's last cell (In [N]), for the counter "cell 6/13".
void step_through(const std::vector<std::string>& cells, std::istream& in, std::ostream& out, Lang lang,
                  const StepScreen& screen, int last_cell);

// The same on the terminal: single keys without Enter (stdin in non-canonical mode without echo,
// restored on return and on SIGINT, SIGTERM and SIGHUP); line by line when stdin's mode cannot be set.
void step_through_terminal(const std::vector<std::string>& cells, std::ostream& out, Lang lang, int last_cell);

}  // namespace attn
