#pragma once
// --step: the notebook one cell at a time, for a learner at a terminal.
#include <iosfwd>
#include <string>
#include <vector>

#include "notebook/notebook.h"

namespace attn {

// Splits rendered notebook text into pages: one per cell, a section heading staying with the cell
// that follows it. Colour escapes are allowed in the text.
std::vector<std::string> split_cells(const std::string& text);

// What a key does: n, space or Enter go on, b goes back, c turns clearing the screen before each
// page on or off, q (or end of input, Ctrl-D) quits; any other key does nothing.
enum class StepKey { Next, Back, Clear, Quit, None };
StepKey step_key(int c);  // c: a byte, or -1 for the end of input

// Shows page after page, reading one line per key from `in` (an empty line is Enter); `can_clear`:
// `out` is a terminal, so c may clear it (ANSI) before each page.
void step_through(const std::vector<std::string>& pages, std::istream& in, std::ostream& out, Lang lang,
                  bool can_clear = false);

// The same on the terminal: single keys without Enter (stdin in non-canonical mode without echo,
// restored on return and on SIGINT, SIGTERM and SIGHUP); line by line when stdin's mode cannot be set.
void step_through_terminal(const std::vector<std::string>& pages, std::ostream& out, Lang lang);

}  // namespace attn
