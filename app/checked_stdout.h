#pragma once
// Standard output whose failure is an error: std::cout writes to descriptor 1 through a buffer that
// remembers the first failed write, and an exit handler reports it.
namespace attn {

// Registers an exit handler that flushes standard output and, when it cannot be written (a full
// disk, a closed descriptor), prints one line on stderr in the help language and exits 2 instead of 0.
void check_stdout_at_exit();

}  // namespace attn
