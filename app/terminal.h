#pragma once
// The terminal, natively through the C library and in the WebAssembly build through node (whose C
// library answers isatty() with 1 for every stream and cannot set a terminal's mode).
#include <cstddef>

#include "core/no_copy.h"

namespace attn {

// Whether standard stream `fd` (0, 1, 2) is a terminal.
bool is_terminal(int fd);

// The columns text output fits (check's and verify's side-by-side tensors): $COLUMNS when it is a
// whole number from 1 to 10000; else the terminal's width when stdout is a terminal; else 80.
size_t output_columns();
// The rows of the terminal on stdout (step mode's pages): $LINES when valid, else the terminal's, else 24.
size_t output_rows();

// Single keys from the terminal on stdin, unechoed, for the life of the object (non-canonical mode),
// restored when it ends and on SIGINT, SIGTERM and SIGHUP. Under node Ctrl-C arrives as a key and ends
// the stepping like q.
class TerminalKeys : NoCopy {
 public:
  TerminalKeys();
  ~TerminalKeys();
  bool active() const { return active_; }  // false: stdin's mode could not be set
  int read_key();                          // one byte, or -1 at the end of input

 private:
  bool active_ = false;
};

}  // namespace attn
