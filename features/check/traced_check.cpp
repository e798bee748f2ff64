#include "features/check/traced_check.h"

#include <sys/stat.h>

#include "core/bounded_read.h"
#include "core/generator.h"
#include "core/safe_text.h"
#include "core/usage_error.h"
#include "features/check/replay.h"

namespace attn {

CheckReport check_any(const std::string& path, const TracedCheckOptions& options) {
  if (options.choices.seed) {
    const std::string& s = *options.choices.seed;
    const bool canonical = !s.empty() && s != "-0" && s[0] != '+' && !(s.size() > 1 && s[0] == '0') &&
                           !(s.size() > 2 && s.rfind("-0", 0) == 0);
    if (!canonical || !parse_torch_seed(s)) throw UsageError(error_text("check.err.seed-option", {echo(s)}));
  }
  if (is_program_path(path)) {
    const std::string trace = trace_program(path, options.run);
    return check_trace(parse_trace(trace, path, options.run.python), path, options.choices);
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {  // a saved trace (a pipe is read once: an export)
    const BoundedRead file = read_bounded(path, 64 * kMiB);
    if (file.problem == BoundedRead::kNone && is_trace_document(file.text))
      return check_trace(parse_trace(file.text, path, options.run.python), path, options.choices);
  }
  if (options.given) throw UsageError(error_text("check.err.option-export", {echo(path, 60)}));
  return check_file(path);
}

}  // namespace attn
