#include "lesson_output.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "core/output_file.h"
#include "core/usage_error.h"
#include "notebook/heatmap.h"
#include "notebook/html_report.h"
#include "notebook/json_export.h"
#include "notebook/notebook_text.h"
#include "step_mode.h"

namespace attn {

int write_lesson_outputs(const Notebook& nb, const CliOptions& cli, bool color) {
  OutputSet outputs;
  // add_file refuses an empty path before anything is rendered.
  const bool html = !cli.html.empty(), json_file = !cli.json.empty() && cli.json != "-";
  if (html) outputs.add_file("--html", cli.html, html_report(nb));
  if (json_file) outputs.add_file("--json", cli.json, export_json(nb, ATTN_TUTOR_VERSION));
  if (cli.json == "-") {
    outputs.set_stdout(export_json(nb, ATTN_TUTOR_VERSION));
    outputs.commit();
    return 0;
  }
  TextOptions options;
  options.color = color;
  options.heatmap = cli.heatmap;
  options.palette = palette_for(options.color, std::getenv("COLORTERM"));
  const std::string text = render_text(nb, options);
  if (cli.step && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1) {
    outputs.commit();  // the files first: the terminal session can end any time
    step_through(split_cells(text), std::cin, std::cout);
    return 0;
  }
  outputs.set_stdout(text);  // --step is ignored unless both ends are a terminal
  outputs.commit();
  return 0;
}

void require_output_paths(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands())
    for (const char* name : {"--json", "--html"}) {
      const CLI::Option* option = sub->get_option_no_throw(name);
      if (option && option->count() > 0 && option->as<std::string>().empty())
        throw UsageError(empty_path_message(name));
    }
}

}  // namespace attn
