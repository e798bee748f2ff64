#include "features/check/traced_check.h"

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
  // A saved trace, told from its start (a pipe, read once, is an export): each kind read within its own limit.
  if (is_trace_document(read_start(path, kTraceStartBytes)))
    return check_trace(load_trace(path, options.run.python), path, options.choices);
  if (options.given) throw UsageError(error_text("check.err.option-export", {echo(path, 60)}));
  return check_file(path);
}

}  // namespace attn
