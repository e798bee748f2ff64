#pragma once
// Questions about files that the WebAssembly build's C library answers wrongly under node, asked so
// that the operating system answers them. Natively the plain calls.
struct stat;

namespace attn {

// access(2): 0 when the calling user may access `path` with `mode` (R_OK, W_OK, X_OK, F_OK); -1 and
// errno otherwise. (emscripten's access() judges by the owner's permission bits alone; node's
// fs.accessSync asks the OS.)
int file_access(const char* path, int mode);

// fstat(2) of standard descriptor 0, 1 or 2. (emscripten's standard streams are its own, not node's:
// their file is found through /proc/self/fd/N, or /dev/fd/N, stat'ed as any path is.)
int standard_stream_stat(int fd, struct stat* st);

}  // namespace attn
