#pragma once
// `check FILE.py` / `check FILE.ipynb`: the learner's program run with their own Python under the tracer
// compiled into the binary (python/tracer.py), in the program's folder, with a time limit.
#include <string>

namespace attn {

struct PythonRun {
  std::string python = "python3";  // --python
  double timeout_seconds = 60;     // --timeout
};

// True for a path `check` runs as a program: it ends in .py or .ipynb.
bool is_program_path(const std::string& path);

// The tracer's source (generated from python/tracer.py).
const std::string& embedded_tracer();

// Runs `path` under the tracer and returns its "attn-tutor-trace/1" document. The trace is written to a
// private temporary folder, always removed (on SIGINT/SIGTERM/SIGHUP too). Throws UsageError with one line
// for: a missing program, no such Python, a Python that does not run the tracer, a time-out, a flood of
// output, a trace too large; and in the WebAssembly build, always (no processes there).
std::string trace_program(const std::string& path, const PythonRun& run);

}  // namespace attn
