#pragma once
// access(2) as the operating system answers it. In the WebAssembly build under node the C library's
// access() judges by the owner's permission bits alone (as if every file were the caller's), so the
// question goes to node's fs.accessSync instead.
namespace attn {

// 0 when the calling user may access `path` with `mode` (R_OK, W_OK, X_OK, F_OK); -1 and errno otherwise.
int file_access(const char* path, int mode);

}  // namespace attn
