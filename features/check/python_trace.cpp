#include "features/check/python_trace.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/bounded_read.h"
#include "core/no_copy.h"
#include "core/safe_text.h"
#include "core/usage_error.h"
#include "features/check/process_run.h"
#include "features/check/trace_check.h"  // kMaxTraceBytes

namespace attn {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

#if !defined(__EMSCRIPTEN__)
// The private folder the trace is written to, removed with all that is in it whatever ends the run (the
// program may write there too). `started`: the tracer makes it first, so a run without it never ran the tracer.
struct TraceFolder : NoCopy {
  std::string dir, trace, started;
  TraceFolder() {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/attn-tutor-trace-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data())) {
      templ = "/tmp/attn-tutor-trace-XXXXXX";
      buf.assign(templ.begin(), templ.end());
      buf.push_back('\0');
      if (!::mkdtemp(buf.data()))
        throw UsageError(error_text("check.err.trace-folder", {echo(templ, 60), errno_text(errno)}));
    }
    dir = buf.data();
    trace = dir + "/trace.json";
    started = trace + ".started";
  }
  ~TraceFolder() { remove_tree(dir.c_str()); }
};

std::string last_line(const std::string& text) {
  size_t end = text.find_last_not_of("\r\n \t");
  if (end == std::string::npos) return "";
  const size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end + 1 - (start == std::string::npos ? 0 : start + 1));
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

// A program `check` can run: a readable regular file (a folder, a FIFO, a device is refused by what it is).
void require_program_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw UsageError(error_text("check.err.program-missing", {echo(path, 60), errno_text(errno)}));
  if (S_ISDIR(st.st_mode))
    throw UsageError(error_text("check.err.program-missing", {echo(path, 60), errno_text(EISDIR)}));
  if (!S_ISREG(st.st_mode)) throw UsageError(error_text("check.err.program-not-file", {echo(path, 60)}));
  if (::access(path.c_str(), R_OK) != 0)
    throw UsageError(error_text("check.err.program-missing", {echo(path, 60), errno_text(errno)}));
}

// The errno in the tracer's last word when it could not write the trace ("attn-tutor-tracer: cannot write
// the trace (errno 28)"), 0 when it said something else.
int write_errno(const std::string& said) {
  const std::string mark = "attn-tutor-tracer: cannot write the trace (errno ";
  if (said.compare(0, mark.size(), mark) != 0) return 0;
  return std::atoi(said.c_str() + mark.size());
}

// Why a run left no trace, with its fix: the folder removed, the disk full, the program ending the
// tracer's process itself (os.exec*, a signal), or a Python that never ran the tracer.
ErrorText no_trace_text(const std::string& path, const PythonRun& run, const TraceFolder& folder,
                        const ProcessResult& r) {
  struct stat st {};
  const std::string said = last_line(r.err);
  const std::string shown = said.empty() ? std::string("-") : echo(said, 160);
  if (::lstat(folder.dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return error_text("check.err.trace-folder-gone", {echo(path, 60), echo(folder.dir, 80)});
  if (const int e = write_errno(said))
    return error_text("check.err.trace-write", {echo(path, 60), echo(folder.dir, 80), errno_text(e)});
  const ErrorText how = error_text(
      r.outcome == ProcessResult::Outcome::Exited ? "check.exit-status" : "check.killed-by", {std::to_string(r.code)});
  if (::lstat(folder.started.c_str(), &st) == 0)
    return error_text(
        r.outcome == ProcessResult::Outcome::Exited ? "check.err.program-ended" : "check.err.program-killed",
        {echo(path, 60), how, shown});
  return error_text("check.err.no-trace", {echo(run.python, 60), how, shown});
}
#endif

}  // namespace

bool is_program_path(const std::string& path) { return ends_with(path, ".py") || ends_with(path, ".ipynb"); }

std::string trace_program(const std::string& path, const PythonRun& run) {
#if defined(__EMSCRIPTEN__)
  (void)run;
  throw UsageError(error_text("check.err.trace-wasm", {echo(path, 60)}));
#else
  require_program_file(path);
  char resolved[PATH_MAX];
  if (!::realpath(path.c_str(), resolved))
    throw UsageError(error_text("check.err.program-missing", {echo(path, 60), errno_text(errno)}));
  const std::string program = resolved;
  const std::string dir = program.substr(0, program.rfind('/') == 0 ? 1 : program.rfind('/'));
  if (find_program(run.python).empty())
    throw UsageError(error_text("check.err.python-not-found", {echo(run.python, 60)}));
  const TraceFolder folder;
  ProcessSpec spec;
  spec.argv = {run.python, "-c", embedded_tracer(), program, folder.trace};
  spec.dir = dir;
  spec.timeout_seconds = run.timeout_seconds;
  spec.cleanup_dir = folder.dir;
  spec.env = {{"PYTHONDONTWRITEBYTECODE", "1"}, {"PYTHONIOENCODING", "utf-8"}, {"MPLBACKEND", "Agg"}};
  const ProcessResult r = run_process(spec);
  using Outcome = ProcessResult::Outcome;
  switch (r.outcome) {
    case Outcome::NotFound:
      throw UsageError(error_text("check.err.python-not-found", {echo(run.python, 60)}));
    case Outcome::CannotStart:
      throw UsageError(error_text("check.err.python-cannot-start", {echo(run.python, 60), errno_text(r.error)}));
    case Outcome::TimedOut:
      throw UsageError(error_text("check.err.timeout", {echo(path, 60), seconds_text(run.timeout_seconds)}));
    case Outcome::Flooded:
      throw UsageError(
          error_text("check.err.flood", {echo(path, 60), std::to_string(spec.flood_bytes / (1024 * 1024))}));
    case Outcome::Unsupported:
      throw UsageError(error_text("check.err.trace-wasm", {echo(path, 60)}));
    default:
      break;
  }
  const BoundedRead file = read_bounded(folder.trace, kMaxTraceBytes);
  if (file.problem == BoundedRead::kTooLarge)
    throw UsageError(error_text("check.err.trace-large", {echo(path, 60), std::to_string(kMaxTraceBytes / kMiB)}));
  if (file.problem != BoundedRead::kNone) throw UsageError(no_trace_text(path, run, folder, r));
  return file.text;
#endif
}

}  // namespace attn
