#pragma once
// Where a lesson's notebook goes: its text (or --json -, --html -, --py -, --ipynb -) on standard output,
// --json FILE, --html FILE, --py FILE and --ipynb FILE, written all or none (output_file.h).
#include "lesson_command.h"
#include "notebook/notebook.h"

namespace attn {

// Renders and writes every output the options ask for; `color` for the text on standard output.
// Throws UsageError when any output cannot be written, after removing what it had prepared.
int write_lesson_outputs(const Notebook& nb, const CliOptions& cli, const LessonOptions& opt, bool color);

// --json '', --html '', --py '' or --ipynb '': an empty path is an error, not "no file"; so is '-' for two
// of them, and so are two outputs that are one file or an output that is the --inputs file (by identity).
void require_output_paths(const CliOptions& cli);
// Any file output asked for (--json, --html, --py, --ipynb).
bool exports_anything(const CliOptions& cli);

}  // namespace attn
