#pragma once
// --step: the notebook one cell at a time, for a learner at a terminal.
#include <iosfwd>
#include <string>
#include <vector>

namespace attn {

// Splits rendered notebook text into pages: one per cell, a section heading staying with the cell
// that follows it. Colour escapes are allowed in the text.
std::vector<std::string> split_cells(const std::string& text);

// Shows page after page: Enter goes on, b goes back, q quits. Reads `in`, writes `out`.
void step_through(const std::vector<std::string>& pages, std::istream& in, std::ostream& out);

}  // namespace attn
