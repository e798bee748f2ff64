#include "lesson_output.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "cli_messages.h"
#include "core/output_file.h"
#include "core/usage_error.h"
#include "notebook/heatmap.h"
#include "notebook/html_report.h"
#include "notebook/json_export.h"
#include "notebook/notebook_text.h"
#include "page_command.h"
#include "step_mode.h"

namespace attn {

int write_lesson_outputs(const Notebook& nb, const CliOptions& cli, const LessonOptions& opt, bool color) {
  if (cli.given("--from") && (cli.text("--from").empty() || start_item(nb, cli.text("--from")) < 0))  // before any file
    throw UsageError(from_not_found_message(cli.text("--from"), nb.lesson(), start_sections(nb), cell_count(nb)));
  OutputSet outputs;
  // add_file refuses an empty path before anything is rendered.
  const std::string& json = cli.text("--json");
  if (cli.given("--html")) outputs.add_file("--html", cli.text("--html"), html_report(nb, opt.lang, opt.explain, reproducing_command(nb.lesson(), cli, opt.lang)));
  if (cli.given("--json") && json != "-") outputs.add_file("--json", json, export_json(nb, ATTN_TUTOR_VERSION));
  if (json == "-") {
    outputs.set_stdout(export_json(nb, ATTN_TUTOR_VERSION));
    outputs.commit();
    return 0;
  }
  TextOptions options;
  options.color = color;
  options.heatmap = cli.given("--heatmap");
  options.palette = palette_for(options.color, std::getenv("COLORTERM"));
  options.lang = opt.lang;
  options.explain = opt.explain;
  options.from = cli.text("--from");  // the text only: --json and --html keep the whole lesson
  const std::string text = render_text(nb, options);
  if (cli.given("--step") && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1) {
    outputs.commit();  // the files first: the terminal session can end any time
    step_through_terminal(split_cells(text), std::cout, opt.lang);
    return 0;
  }
  outputs.set_stdout(text);  // --step is ignored unless both ends are a terminal
  outputs.commit();
  return 0;
}

void require_output_paths(const CliOptions& cli) {
  for (const char* name : {"--json", "--html"})
    if (cli.given(name) && cli.text(name).empty()) throw UsageError(empty_path_message(name, std::string(name) == "--json"));
}

}  // namespace attn
