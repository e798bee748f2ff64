// attn-tutor: the command line. Parsing and dispatch only; the lessons live in lessons/.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "checked_stdout.h"
#include "output_file.h"
#include "core/safe_text.h"
#include "bench_command.h"
#include "kv_memory_command.h"
#include "lessons_command.h"
#include "features/check/check_html.h"
#include "features/check/check_report.h"
#include "cli_messages.h"
#include "language.h"
#include "lessons/cost_model.h"
#include "lessons/lesson.h"
#include "lessons/ui_text.h"
#include "lesson_command.h"
#include "lesson_output.h"
#include "option_rules.h"
#include "parse_errors.h"
#include "notebook/text_width.h"
#include "features/check/replay.h"
#include "features/check/traced_check.h"
#include "fast/cpu_features.h"
#include "fast/kernels.h"
#include "fast/parallel.h"
#include "node_process.h"
#include "step_mode.h"
#include "strict_integer.h"
#include "terminal.h"
#include "core/usage_error.h"
#include "features/verify/verify.h"

namespace {

using namespace attn;

bool use_color(const std::string& mode) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  if (no_color && *no_color) return false;
  if (term && std::string(term) == "dumb") return false;
  return is_terminal(STDOUT_FILENO);
}

Notebook run_all(const LessonOptions& opt) {
  Notebook all("all", {}, opt.config_json(), opt.inputs.tokens, &lesson_text("common"));
  all.set_settings(chapter_settings(opt));  // the HTML report's settings table
  for (const LessonInfo& lesson : lessons())
    if (lesson.in_chapter()) all.append(lesson.run(opt), "all.start");  // a heading where each lesson starts
  return all;
}

int emit(const Notebook& nb, const CliOptions& cli, const LessonOptions& opt) {
  // all outputs or none (app/lesson_output.cpp)
  return write_lesson_outputs(nb, cli, opt, use_color(cli.given("--color") ? cli.text("--color") : "auto"));
}

// verify [LESSON]: the book's tensors; --html OUT the table as an HTML document too ('-': instead of the text).
int run_verify(const std::string& only_lesson, const std::string* html, Lang lang) {
  if (!only_lesson.empty() && !find_lesson(only_lesson)) throw UsageError(tr("err.verify-lesson", {only_lesson}));
  if (html && html->empty()) throw UsageError(empty_path_message("--html", true));
  if (html && *html != "-") check_output_path("--html", *html);  // before the lessons run
  const std::vector<ReferenceEntry> reference = parse_reference(embedded_book_reference());
  const auto results =
      verify_reference(reference, only_lesson, [](const std::string& lesson, const std::string& words) {
        return find_lesson(lesson)->run(parse_lesson_words(lesson, words));
      });
  bool all_ok = !results.empty();
  for (const VerifyResult& r : results) all_ok = all_ok && r.ok;
  OutputSet outputs;
  if (html && *html != "-") outputs.add_file("--html", *html, verify_html(results, lang));
  outputs.set_stdout(html && *html == "-" ? verify_html(results, lang)
                                          : render_verify(results, lang, output_columns()));
  outputs.commit();
  return all_ok ? 0 : 1;
}

// check FILE: the learner's exported tensors against the lesson replayed with the same settings;
// --html OUT the same report as an HTML document too ('-': instead of the text), written all or nothing.
// FILE.py / FILE.ipynb: the learner's program run with --python under the tracer (features/check/traced_check.h).
int run_check(const std::string& path, const std::string& color, const std::string* html, Lang lang,
              const TracedCheckOptions& traced) {
  if (html && html->empty()) throw UsageError(empty_path_message("--html", true));
  if (html && *html != "-") check_distinct_files({{"--html", *html}}, {{"check", path}});  // before the replay
  const CheckReport report = check_any(path, traced);
  const int code = report.ok() ? 0 : 1;
  if (!html) {
    std::cout << render_report(report, use_color(color), lang, output_columns());
    return code;
  }
  OutputSet outputs;
  outputs.add_input("check", path);
  if (*html == "-") {
    outputs.set_stdout(check_html(report, lang));
  } else {
    outputs.add_file("--html", *html, check_html(report, lang));
    outputs.set_stdout(render_report(report, use_color(color), lang, output_columns()));
  }
  outputs.commit();
  return code;
}

// The lessons after the chapter: the book's bonus material (rasbt/LLMs-from-scratch ch03/02_bonus, ch04/03-06).
std::string after_chapter_list() {
  std::string lines;
  for (const LessonInfo& l : lessons()) {
    if (!l.after_chapter()) continue;
    char line[256];
    std::snprintf(line, sizeof line, "  %-14s %-16s %s\n", l.name.c_str(), l.sections.front().c_str(),
                  l.title(help_language()).c_str());
    lines += line;
  }
  char line[256];  // kv-memory: the estimators of ch04/04-06
  std::snprintf(line, sizeof line, "  %-14s %-16s %s\n", "kv-memory", "ch04/04-06",
                tr("app.command.kv-memory").c_str());
  lines += line;
  return tr("app.list.after-chapter") + lines;
}

std::string lesson_list() {
  std::string out = "attn-tutor " ATTN_TUTOR_VERSION + tr("app.list.title");
  size_t width = 16;  // the source column: "§3.3.1, 3.3.2", "d2l.ai §11.5"
  for (const LessonInfo& l : lessons())
    if (!l.after_chapter()) width = std::max(width, display_width(l.source(help_language())) + 1);
  for (const LessonInfo& l : lessons()) {
    if (l.after_chapter()) continue;  // listed below, after the commands
    const std::string where = l.source(help_language());
    out += "  " + l.name + std::string(15 - std::min<size_t>(14, l.name.size()), ' ') + where +
           std::string(width - display_width(where), ' ') + " " + l.title(help_language()) + "\n";
  }
  for (const char* command : {"all", "verify", "check FILE", "bench"}) {
    const std::string name = command;
    out +=
        "  " + name + std::string(15 - name.size(), ' ') + tr("app.command." + name.substr(0, name.find(' '))) + "\n";
  }
  out += after_chapter_list();
  out += tr("app.list.run");
  return out;
}

// The options as the lesson takes them: each value valid, and none without effect (app/option_rules.h).
LessonOptions checked_options(const std::string& lesson, const CliOptions& cli, Lang lang) {
  LessonOptions opt = to_lesson_options(cli, lang);
  reject_no_effect(lesson, cli);
  return opt;
}

// One line for the learner: what is wrong and how to fix it.
int usage_error(const std::string& message) {
  std::cerr << "attn-tutor: error: " << clean_message(message) << "\n";
  return 2;
}

}  // namespace

// --version's second line: which bench kernels run here, in the help language, from lib/fast's facts
// (kernel_summary() is the same in English, for the bench's JSON and tests).
static std::string kernels_text() {
  const attn::KernelSet& k = attn::active_kernels();
  const std::string loop =
      k.fma_lanes > 1 ? attn::tr("app.version.loop-simd", {std::to_string(k.fma_chains), std::to_string(k.fma_lanes)})
                      : attn::tr("app.version.loop-portable", {std::to_string(k.fma_chains)});
  std::string s = attn::tr("app.version.kernels", {attn::isa_name(k.isa), std::to_string(k.mr), std::to_string(k.nr),
                                                   std::to_string(k.flash_br), std::to_string(k.flash_bc), loop});
  std::string others;
  for (attn::Isa isa : attn::supported_isas())
    if (isa != k.isa) others += std::string(others.empty() ? "" : ", ") + attn::isa_name(isa);
  if (!others.empty()) s += attn::tr("app.version.others", {others});
  return s + attn::tr("app.version.threads", {attn::threading_name()});
}

namespace {

// The help's formatter: a lesson's --help ends with its exports, which are computed (by running the lesson)
// only when that help is shown.
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_footer(const CLI::App* app) const override {
    const LessonInfo* lesson = app->get_parent() != nullptr ? find_lesson(app->get_name()) : nullptr;
    return lesson != nullptr ? lesson->exports_help(help_language()) + "\n" : CLI::Formatter::make_footer(app);
  }
};

}  // namespace

namespace {

// Out of memory: one line from a buffer filled while there was memory, whatever ran out of it (the
// parse below, the lessons, a static table before main), then exit 2 instead of an abort.
// (Until then the English of core.out-of-memory, as lib/core/text.txt has it.)
char out_of_memory_line[1024] =
    "attn-tutor: error: out of memory: the system gave attn-tutor no more; free some memory, raise the limit "
    "(ulimit -v unlimited) or choose smaller settings\n";

[[noreturn]] void end_out_of_memory() {
  std::fflush(stdout);
  const ssize_t written = ::write(STDERR_FILENO, out_of_memory_line, std::strlen(out_of_memory_line));
  (void)written;
  std::_Exit(2);
}

// What std::terminate does: out of memory as above, anything else as the runtime does (an abort).
[[noreturn]] void on_terminate() {
  if (const std::exception_ptr e = std::current_exception()) try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
      end_out_of_memory();
    } catch (...) {
    }
  std::abort();
}

// Installed before the other files' static objects are made (their tables may be the first to run out).
struct TerminateHandler {
  TerminateHandler() { std::set_terminate(on_terminate); }
} const terminate_handler __attribute__((init_priority(101)));

// The out-of-memory line in the learner's language, made now while there is memory.
void prepare_out_of_memory_line() {
  const std::string line =
      "attn-tutor: error: " + clean_message(error_message(error_text("core.out-of-memory"), help_language())) + "\n";
  std::snprintf(out_of_memory_line, sizeof out_of_memory_line, "%s", line.c_str());
}

}  // namespace

// The command line's work: everything but the out-of-memory end.
static int run_command(int argc, char** argv);

int main(int argc, char** argv) {
  try {
    return run_command(argc, argv);
  } catch (const std::bad_alloc&) {
    end_out_of_memory();
  }
}

static int run_command(int argc, char** argv) {
  // A write past the shell's file-size limit (ulimit -f) fails with EFBIG, told as such, instead of
  // killing the process without a word and leaving its temporaries.
  ::signal(SIGXFSZ, SIG_IGN);
  argv = adopt_node_process(argc, argv);  // the WebAssembly build: node's umask, the arguments' bytes
  // A full disk or closed stdout is an error, not exit 0.
  check_stdout_at_exit();
  const Lang lang = choose_language(argc, argv);
  set_help_language(lang);
  prepare_out_of_memory_line();
  CLI::App app{tr("app.description"), "attn-tutor"};
  app.formatter(std::make_shared<HelpFormatter>());
  app.option_defaults()->group(tr("app.label.Options"));  // the subcommands copy both
  app.set_help_flag("-h,--help", tr("app.help"));
  for (const char* label : {"Usage", "OPTIONS", "SUBCOMMAND", "SUBCOMMANDS", "POSITIONALS", "Positionals", "REQUIRED"})
    app.get_formatter()->label(label, tr(std::string("app.label.") + label));
  app.set_version_flag("--version", std::string("attn-tutor ") + ATTN_TUTOR_VERSION + "\n" + kernels_text(),
                       tr("app.version"));
  app.require_subcommand(0, 1);
  std::string list_lang;  // `attn-tutor --lang zh` lists the lessons in Chinese
  app.add_option("--lang", list_lang, tr("app.list.lang"))->check(CLI::IsMember({"en", "zh"}));

  CliOptions cli;
  const LessonInfo* chosen = nullptr;
  for (const LessonInfo& lesson : lessons()) {
    CLI::App* sub = app.add_subcommand(
        lesson.name,
        lesson.after_chapter()
            ? tr("app.lesson.bonus", {lesson.source(help_language()), lesson.summary(help_language())})
        : lesson.in_chapter()
            ? tr("app.lesson.chapter", {lesson.source(help_language()).substr(2), lesson.summary(help_language())})
            : tr("app.lesson.beside", {lesson.source(help_language()), lesson.summary(help_language())}));
    add_lesson_options(sub, cli, &lesson);
    sub->callback([&chosen, &lesson] { chosen = &lesson; });
  }
  CLI::App* all = app.add_subcommand("all", tr("app.all"));
  add_lesson_options(all, cli, nullptr);
  CLI::App* verify = app.add_subcommand("verify", tr("app.verify"));
  std::string verify_lesson;
  verify->add_option("LESSON", verify_lesson, tr("app.verify.lesson"));
  std::string sub_lang;  // read before parsing (choose_language); declared so the subcommands accept it
  verify->add_option("--lang", sub_lang, tr("app.lang.report"))->check(CLI::IsMember({"en", "zh"}));
  std::string verify_html_path;
  CLI::Option* verify_html_option =
      verify->add_option("--html", verify_html_path, tr("app.verify.html"))->type_name("FILE|-");
  CLI::App* check = app.add_subcommand("check", tr("app.check"));
  std::string check_path, check_color = "auto";
  check->add_option("FILE", check_path, tr("app.check.file"))->required();
  check->add_option("--color", check_color, tr("app.check.color"))->check(CLI::IsMember({"auto", "always", "never"}));
  check->add_option("--lang", sub_lang, tr("app.lang.report"))->check(CLI::IsMember({"en", "zh"}));
  std::string check_html_path;
  CLI::Option* check_html_option =
      check->add_option("--html", check_html_path, tr("app.check.html"))->type_name("FILE|-");
  TracedCheckOptions traced;
  check->add_option("--python", traced.run.python, tr("app.check.python"))->type_name("PATH");
  int check_timeout = 60;
  check->add_option("--timeout", check_timeout, tr("app.check.timeout"))
      ->transform(strict_integer_check(1, 3600))
      ->check(CLI::Range(1, 3600))
      ->type_name("SECONDS");  // after the range, which would add its own text to it
  check->add_option("--lesson", traced.choices.lesson, tr("app.check.lesson"))->type_name("NAME");
  std::string check_seed;
  CLI::Option* check_seed_option = check->add_option("--seed", check_seed, tr("app.check.seed"))->type_name("N");

  CLI::App* bench = app.add_subcommand("bench", tr("app.bench"));
  BenchCli bench_cli;
  add_bench_options(bench, bench_cli);

  CLI::App* kv_memory = app.add_subcommand("kv-memory", tr("app.kv-memory"));
  KvMemoryCli kv_memory_cli;
  add_kv_memory_options(kv_memory, kv_memory_cli);

  CLI::App* lessons_command = app.add_subcommand("lessons", tr("app.lessons"));
  LessonsCli lessons_cli;
  add_lessons_options(lessons_command, lessons_cli);

  // Each subcommand made its own help flag in the default group: the one group of options, named in the language.
  app.get_help_ptr()->group(tr("app.label.Options"));
  for (CLI::App* sub : app.get_subcommands({})) {
    sub->get_help_ptr()->group(tr("app.label.Options"));
    sub->group(tr("app.label.Subcommands"));
  }

  app.footer(options_after_lesson_help());  // after the subcommands: theirs is their own
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return usage_error(parse_error_message(app, std::vector<std::string>(argv + 1, argv + argc), e));
  } catch (const std::exception& e) {  // what CLI11 lets through, e.g. a switch given "=value"
    return usage_error(parse_error_message(app, std::vector<std::string>(argv + 1, argv + argc), e));
  }

  try {
    require_output_paths(cli);  // --json '', --py '' ... and two outputs on stdout are errors
    if (verify->parsed())
      return run_verify(verify_lesson, verify_html_option->count() > 0 ? &verify_html_path : nullptr, lang);
    if (lessons_command->parsed()) {  // the list, or the catalog the page builds from (docs/lessons-json.md)
      std::cout << (lessons_cli.json ? lessons_json(app, lang) : lesson_list());
      return 0;
    }
    if (check->parsed()) {
      if (check_seed_option->count() > 0) traced.choices.seed = check_seed;
      traced.run.timeout_seconds = check_timeout;
      traced.given = check->get_option("--python")->count() + check->get_option("--timeout")->count() +
                         check->get_option("--lesson")->count() + check_seed_option->count() >
                     0;
      return run_check(check_path, check_color, check_html_option->count() > 0 ? &check_html_path : nullptr, lang,
                       traced);
    }
    if (bench->parsed()) {
      if (bench->get_option("--json")->count() > 0 && bench_cli.json.empty())
        throw UsageError(empty_path_message("--json", true));
      return run_bench(bench_cli, lang);
    }
    if (kv_memory->parsed()) {
      if (kv_memory->get_option("--json")->count() > 0 && kv_memory_cli.json.empty())
        throw UsageError(empty_path_message("--json", true));
      if (kv_memory->get_option("--swa-ratio")->count() > 0 && kv_memory_cli.window == kNotGiven)
        throw UsageError(swa_ratio_without_window_message());  // the ratio splits the sliding-window layers
      return run_kv_memory(kv_memory_cli, lang);
    }
    const bool exporting = exports_anything(cli);
    if (all->parsed()) {
      const LessonOptions opt = require_affordable("all", checked_options("all", cli, lang), exporting);
      return emit(run_all(opt), cli, opt);
    }
    if (!chosen) {
      std::cout << lesson_list();
      return 0;
    }
    const LessonOptions opt = require_affordable(chosen->name, checked_options(chosen->name, cli, lang), exporting);
    return emit(chosen->run(opt), cli, opt);
  } catch (const UsageError& e) {
    return usage_error(error_message(e, help_language()));
  } catch (const std::bad_alloc&) {
    end_out_of_memory();
  } catch (const std::exception& e) {
    return usage_error(tr("err.cannot-run", {e.what()}));
  }
}
