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
// The private folder the trace is written to, removed with what is in it whatever ends the run.
struct TraceFolder : NoCopy {
  std::string dir, trace, part;
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
    part = trace + ".part";
  }
  ~TraceFolder() {
    ::unlink(trace.c_str());
    ::unlink(part.c_str());
    ::rmdir(dir.c_str());
  }
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
#endif

}  // namespace

bool is_program_path(const std::string& path) { return ends_with(path, ".py") || ends_with(path, ".ipynb"); }

std::string trace_program(const std::string& path, const PythonRun& run) {
#if defined(__EMSCRIPTEN__)
  (void)run;
  throw UsageError(error_text("check.err.trace-wasm", {echo(path, 60)}));
#else
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || ::access(path.c_str(), R_OK) != 0)
    throw UsageError(
        error_text("check.err.program-missing", {echo(path, 60), errno_text(S_ISDIR(st.st_mode) ? EISDIR : errno)}));
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
  spec.remove_on_signal = {folder.trace, folder.part, folder.dir};
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
  if (file.problem != BoundedRead::kNone) {
    const ErrorText how =
        error_text(r.outcome == Outcome::Exited ? "check.exit-status" : "check.killed-by", {std::to_string(r.code)});
    const std::string said = last_line(r.err);
    throw UsageError(error_text("check.err.no-trace",
                                {echo(run.python, 60), how, said.empty() ? std::string("-") : echo(said, 160)}));
  }
  return file.text;
#endif
}

}  // namespace attn
