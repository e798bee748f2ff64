#pragma once
// One child process for `check FILE.py`: the learner's Python, run without a shell (the arguments as a
// vector), in a given directory, with a time limit and its output captured with a cap. On Linux a small
// guard process (a child subreaper in its own process group) runs it and, when it ends, times out, or we
// die, kills every process it left (a new session, a double fork) and, when we died, removes
// cleanup_dir. Other POSIX systems: its process group is killed. The WebAssembly build has no processes
// (run_process reports `unsupported`).
#include <cstddef>
#include <string>
#include <vector>

#include "features/check/folder_removal.h"  // remove_tree, which the runner uses on its folder

namespace attn {

struct ProcessSpec {
  std::vector<std::string> argv;               // argv[0]: a path (with '/') or a name looked up in PATH
  std::string dir;                             // the child's working directory ("" : ours)
  double timeout_seconds = 60;                 // then every process of the program is killed
  std::size_t keep_bytes = 64 * 1024;          // of stdout (its start) and of stderr (its end)
  std::size_t flood_bytes = 16 * 1024 * 1024;  // more output than this in all: killed as a flood
  // Removed with all in it when SIGINT, SIGTERM or SIGHUP end us while the child runs, or when we die
  // (SIGKILL): the guard removes it then.
  std::string cleanup_dir;
  std::vector<std::pair<std::string, std::string>> env;  // set in the child, besides ours
};

struct ProcessResult {
  enum class Outcome { Exited, Signalled, TimedOut, Flooded, NotFound, CannotStart, Unsupported };
  Outcome outcome = Outcome::CannotStart;
  int code = -1;        // the exit status (Exited) or the signal (Signalled)
  int error = 0;        // errno when it could not start
  std::string program;  // argv[0] as found in PATH
  std::string out;      // the first keep_bytes of stdout
  std::string err;      // the last keep_bytes of stderr
  bool out_cut = false, err_cut = false;
};

// The path PATH gives `name` (a name with '/' as it is), "" when none is an executable file.
std::string find_program(const std::string& name);

ProcessResult run_process(const ProcessSpec& spec);

}  // namespace attn
