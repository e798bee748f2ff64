#pragma once
// Standard output whose failure is an error: std::cout writes to descriptor 1 through a buffer that
// remembers the first failed write, and an exit handler reports it.
#include <string>

#include "core/usage_error.h"

namespace attn {

// Registers an exit handler that flushes standard output and, when it cannot be written (a full
// disk, a closed descriptor), prints one line on stderr and exits 2 instead of 0. `render` gives
// that line's text in the learner's language (lib/ holds no prose).
using ErrorRenderer = std::string (*)(const ErrorText&);
void check_stdout_at_exit(ErrorRenderer render);

}  // namespace attn
