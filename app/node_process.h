#pragma once
// The WebAssembly build runs under node, whose process the C library does not see: what it needs of it
// is copied in once, before anything else runs. Natively this does nothing.
namespace attn {

// Copies in node's file-creation mask (new files get 0666 & ~umask; the C library's own starts at
// 0777) and returns the command's arguments as the bytes the shell passed: node hands over strings,
// with every byte that is not UTF-8 already replaced by U+FFFD, so they are read back from
// /proc/self/cmdline where there is one and it agrees with node's. Otherwise (natively, in the page,
// on other systems) `argv` itself.
char** adopt_node_process(int argc, char** argv);

}  // namespace attn
