// attn-tutor: the command line. Parsing and dispatch only; the lessons live in lessons/.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "atomic_file.h"
#include "json_export.h"
#include "lesson.h"
#include "notebook_text.h"
#include "usage_error.h"

namespace {

using namespace attn;

struct CliOptions {
  std::string seed;
  std::string inputs;
  int64_t d_out = 2;
  bool qkv_bias = false;
  std::string init = "rand";
  std::string json;
  std::string color = "auto";
};

void add_lesson_options(CLI::App* sub, CliOptions& o) {
  sub->add_option("--seed", o.seed,
                  "Use N instead of every torch.manual_seed(k) of the lesson (any integer torch accepts, "
                  "-2^63 .. 2^64-1)");
  sub->add_option("--inputs", o.inputs,
                  "JSON file of token embeddings: [[...], ...] or {\"tokens\": [...], \"inputs\": [[...], ...]}; "
                  "at least 2 rows of equal length (default: the book's six 3-d embeddings)");
  sub->add_option("--d-out", o.d_out, "Output embedding size d_out (default 2)")->check(CLI::Range(1, 4096));
  sub->add_flag("--qkv-bias", o.qkv_bias, "Give the query/key/value nn.Linear layers a bias (qkv_bias=True)");
  sub->add_option("--init", o.init, "trainable: how W_query/W_key/W_value are drawn in 3.4.1 (default rand, as in the book)")
      ->check(CLI::IsMember({"rand", "randn"}));
  sub->add_option("--json", o.json, "Write every intermediate tensor as JSON to FILE (atomically); '-' writes the JSON "
                                    "to stdout instead of the notebook text");
  sub->add_option("--color", o.color, "auto (a terminal without NO_COLOR), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
}

LessonOptions to_lesson_options(const CliOptions& o) {
  LessonOptions opt;
  if (!o.seed.empty()) {
    opt.seed = parse_torch_seed(o.seed);
    if (!opt.seed)
      throw UsageError("--seed " + o.seed + ": not an integer torch.manual_seed accepts; use a whole number "
                                            "from -9223372036854775808 to 18446744073709551615");
    opt.seed_text = o.seed;
  }
  if (!o.inputs.empty()) {
    opt.inputs = load_inputs(o.inputs);
    opt.custom_inputs = true;
    opt.inputs_source = o.inputs;
    if (opt.inputs.embeddings.size(0) > 16 || opt.inputs.embeddings.size(1) > 16)
      throw UsageError("--inputs " + o.inputs + ": at most 16 tokens of at most 16 numbers each, so every tensor "
                                                "stays readable; shorten the sentence or the embeddings");
  }
  opt.d_out = o.d_out;
  opt.qkv_bias = o.qkv_bias;
  opt.init = o.init == "randn" ? Init::Randn : Init::Rand;
  return opt;
}

bool use_color(const std::string& mode) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  if (no_color && *no_color) return false;
  if (term && std::string(term) == "dumb") return false;
  return isatty(STDOUT_FILENO) == 1;
}

int run_lesson(const LessonInfo& lesson, const CliOptions& cli) {
  const LessonOptions opt = to_lesson_options(cli);
  const Notebook nb = lesson.run(opt);
  if (cli.json == "-") {
    std::cout << export_json(nb, ATTN_TUTOR_VERSION);
    return 0;
  }
  if (!cli.json.empty()) {
    const std::string error = write_file_atomically(cli.json, export_json(nb, ATTN_TUTOR_VERSION));
    if (!error.empty()) throw UsageError("--json " + error + "; choose a path in a writable directory");
  }
  std::cout << render_text(nb, use_color(cli.color));
  return 0;
}

std::string lesson_list() {
  std::string out = "attn-tutor " ATTN_TUTOR_VERSION
                    ": Chapter 3 of \"Build a Large Language Model (From Scratch)\", cell by cell.\n\nLessons:\n";
  for (const LessonInfo& l : lessons()) {
    std::string sections;
    for (const std::string& s : l.sections) sections += (sections.empty() ? "" : ", ") + s;
    char line[256];
    std::snprintf(line, sizeof line, "  %-14s §%-14s %s\n", l.name.c_str(), sections.c_str(), l.title.c_str());
    out += line;
  }
  out += "\nRun 'attn-tutor LESSON' to replay one, 'attn-tutor LESSON --help' for its options.\n";
  return out;
}

// One line for the learner: what is wrong and how to fix it.
int usage_error(const std::string& message) {
  std::cerr << "attn-tutor: error: " << message << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"attn-tutor: Chapter 3 of \"Build a Large Language Model (From Scratch)\", step by step, "
               "with PyTorch's exact numbers", "attn-tutor"};
  app.set_version_flag("--version", std::string("attn-tutor ") + ATTN_TUTOR_VERSION);
  app.require_subcommand(0, 1);

  CliOptions cli;
  const LessonInfo* chosen = nullptr;
  for (const LessonInfo& lesson : lessons()) {
    std::string sections;
    for (const std::string& s : lesson.sections) sections += (sections.empty() ? "" : ", ") + s;
    CLI::App* sub = app.add_subcommand(lesson.name, "Replays §" + sections + " of the book: " + lesson.summary);
    add_lesson_options(sub, cli);
    sub->callback([&chosen, &lesson] { chosen = &lesson; });
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    if (what.empty()) what = e.get_name();
    return usage_error(what + "; run 'attn-tutor --help' or 'attn-tutor LESSON --help'");
  }

  try {
    if (!chosen) {
      std::cout << lesson_list();
      return 0;
    }
    return run_lesson(*chosen, cli);
  } catch (const UsageError& e) {
    return usage_error(e.what());
  } catch (const std::exception& e) {
    return usage_error(std::string("cannot run this lesson with these options: ") + e.what());
  }
}
