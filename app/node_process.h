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

// Under node (the npm command), from the first temporary of a commit to the end of the process (or
// until --step puts the terminal in raw mode): SIGINT, SIGTERM and SIGHUP wait until the command is
// done and then end it of that signal (web/node/node_process.js), since node could not run a
// handler while the program runs. Elsewhere
// (natively, where the commit's own handlers act at once; in the page) it does nothing.
void hold_signals_until_exit();

}  // namespace attn
