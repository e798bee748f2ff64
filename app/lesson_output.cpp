#include "lesson_output.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "cli_messages.h"
#include "output_file.h"
#include "core/safe_text.h"
#include "core/usage_error.h"
#include "language.h"
#include "notebook/heatmap.h"
#include "notebook/html_report.h"
#include "notebook/json_export.h"
#include "notebook/notebook_text.h"
#include "notebook/py_export.h"
#include "page_command.h"
#include "step_mode.h"
#include "terminal.h"

namespace attn {

namespace {

// The file outputs: each writes one rendering of the notebook; '-' puts it on standard output instead of the text.
struct FileOutput {
  const char* option;
  std::string (*render)(const Notebook&, const CliOptions&, const LessonOptions&);
};

const FileOutput kFileOutputs[] = {
    {"--html",
     [](const Notebook& nb, const CliOptions& cli, const LessonOptions& opt) {
       return html_report(nb, opt.lang, opt.explain, reproducing_command(nb.lesson(), cli, opt.lang));
     }},
    {"--json",
     [](const Notebook& nb, const CliOptions&, const LessonOptions&) { return export_json(nb, ATTN_TUTOR_VERSION); }},
    {"--py", [](const Notebook& nb, const CliOptions&,
                const LessonOptions& opt) { return export_python(nb, opt.lang, opt.explain); }},
    {"--ipynb", [](const Notebook& nb, const CliOptions&,
                   const LessonOptions& opt) { return export_ipynb(nb, opt.lang, opt.explain); }},
};

// The files the lessons read: no output may be one of them.
const char* const kInputOptions[] = {"--inputs"};

// --bernoulli mkl with --py or --ipynb: one line on stderr once the export is written (the script itself says
// it at the top and warns when it runs where it cannot draw these masks).
void note_mkl_export(const Notebook& nb, const CliOptions& cli) {
  if (export_needs_mkl(nb) && (cli.given("--py") || cli.given("--ipynb")))
    std::cerr << "attn-tutor: " << clean_message(tr("app.note.mkl-export")) << "\n";
}

}  // namespace

int write_lesson_outputs(const Notebook& nb, const CliOptions& cli, const LessonOptions& opt, bool color) {
  if (cli.given("--from") && (cli.text("--from").empty() || start_item(nb, cli.text("--from")) < 0))  // before any file
    throw UsageError(from_not_found_message(cli.text("--from"), nb.lesson(), start_sections(nb), cell_count(nb)));
  OutputSet outputs;
  for (const char* input : kInputOptions)
    if (cli.given(input)) outputs.add_input(input, cli.text(input));
  // add_file refuses an empty path before anything is rendered.
  const FileOutput* to_stdout = nullptr;
  for (const FileOutput& out : kFileOutputs) {
    if (!cli.given(out.option)) continue;
    if (cli.text(out.option) == "-") {
      to_stdout = &out;
      continue;
    }
    outputs.add_file(out.option, cli.text(out.option), out.render(nb, cli, opt));
  }
  if (to_stdout) {
    outputs.set_stdout(to_stdout->render(nb, cli, opt));
    outputs.commit();
    note_mkl_export(nb, cli);
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
  if (cli.given("--step") && is_terminal(STDIN_FILENO) && is_terminal(STDOUT_FILENO)) {
    outputs.commit();   // the files first: the terminal session can end any time
    int last_cell = 0;  // the counter's "of N": the notebook's last cell, also when --from starts later
    for (const NotebookItem& item : nb.items())
      if (item.kind == NotebookItem::Kind::Code) last_cell = std::max(last_cell, item.cell);
    note_mkl_export(nb, cli);
    step_through_terminal(split_cells(text), std::cout, opt.lang, last_cell);
    return 0;
  }
  outputs.set_stdout(text);  // --step is ignored unless both ends are a terminal
  outputs.commit();
  note_mkl_export(nb, cli);
  return 0;
}

void require_output_paths(const CliOptions& cli) {
  std::string on_stdout;
  std::vector<NamedPath> files, inputs;
  for (const FileOutput& out : kFileOutputs) {
    const std::string name = out.option;
    if (cli.given(name) && cli.text(name).empty()) throw UsageError(empty_path_message(name, true));
    if (!cli.given(name)) continue;
    if (cli.text(name) != "-") {
      files.push_back({name, cli.text(name)});
      continue;
    }
    if (!on_stdout.empty()) throw UsageError(tr("err.two-stdout", {on_stdout, name}));
    on_stdout = name;
  }
  for (const char* input : kInputOptions)
    if (cli.given(input)) inputs.push_back({input, cli.text(input)});
  check_distinct_files(files, inputs);  // before the lesson runs; the commit compares them again
}

bool exports_anything(const CliOptions& cli) {
  for (const FileOutput& out : kFileOutputs)
    if (cli.given(out.option)) return true;
  return false;
}

}  // namespace attn
