#pragma once
// `attn-tutor check FILE`: FILE.py and FILE.ipynb run under the tracer, a saved trace ("attn-tutor-trace/1")
// checked as it is, anything else read as an export ("attn-tutor/1", replay.h's check_file).
#include <string>

#include "features/check/check.h"
#include "features/check/python_trace.h"
#include "features/check/trace_check.h"

namespace attn {

struct TracedCheckOptions {
  PythonRun run;         // --python, --timeout
  TraceChoices choices;  // --lesson, --seed
  bool given = false;    // any of the four on the command line (an export refuses them)
};

CheckReport check_any(const std::string& path, const TracedCheckOptions& options);

}  // namespace attn
