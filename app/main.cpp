// attn-tutor: the command line. Parsing and dispatch only; the lessons live in lessons/.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

#include "core/atomic_file.h"
#include "core/output_file.h"
#include "core/safe_text.h"
#include "bench_command.h"
#include "kv_memory_command.h"
#include "features/check/check_report.h"
#include "cli_messages.h"
#include "notebook/html_report.h"
#include "notebook/json_export.h"
#include "language.h"
#include "lessons/cost_model.h"
#include "lessons/lesson.h"
#include "lesson_command.h"
#include "lesson_output.h"
#include "option_rules.h"
#include "parse_errors.h"
#include "notebook/notebook_text.h"
#include "notebook/text_width.h"
#include "features/check/replay.h"
#include "step_mode.h"
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
  return isatty(STDOUT_FILENO) == 1;
}

Notebook run_all(const LessonOptions& opt) {
  Notebook all("all", {}, opt.config_json(), opt.inputs.tokens);
  for (const LessonInfo& lesson : lessons())
    if (lesson.in_chapter()) all.append(lesson.run(opt));
  return all;
}

int emit(const Notebook& nb, const CliOptions& cli, const LessonOptions& opt) {
  // all outputs or none (app/lesson_output.cpp)
  return write_lesson_outputs(nb, cli, opt, use_color(cli.given("--color") ? cli.text("--color") : "auto"));
}


int run_verify(const std::string& only_lesson) {
  if (!only_lesson.empty() && !find_lesson(only_lesson))
    throw UsageError("verify " + only_lesson + ": no such lesson; run 'attn-tutor' to list them");
  const std::vector<ReferenceEntry> reference = parse_reference(embedded_book_reference());
  const auto results = verify_reference(reference, only_lesson, [](const std::string& lesson, const std::string& words) {
    return find_lesson(lesson)->run(parse_lesson_words(lesson, words));
  });
  int passed = 0, failed = 0;
  for (const VerifyResult& r : results) {
    char diff[32];
    if (r.max_diff < 0) std::snprintf(diff, sizeof diff, "n/a");
    else std::snprintf(diff, sizeof diff, "%.4g", r.max_diff);
    std::cout << (r.ok ? "\u2713 " : "\u2717 ") << r.entry->lesson << "  " << r.entry->name << "  " << r.shape
              << "  max|diff| " << diff << "  [" << r.entry->source
              << (r.entry->options.empty() ? "" : ", " + r.entry->options) << "]\n";
    if (!r.ok) std::cout << "    expected:\n" << r.entry->text << "\n    attn-tutor printed:\n" << r.actual << "\n";
    (r.ok ? passed : failed)++;
  }
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed == 0 && passed > 0 ? 0 : 1;
}

// check FILE: the learner's exported tensors against the lesson replayed with the same settings.
int run_check(const std::string& path, const std::string& color) {
  const CheckReport report = check_file(path);
  std::cout << render_report(report, use_color(color));
  return report.ok() ? 0 : 1;
}

// The lessons after the chapter: the book's bonus material (rasbt/LLMs-from-scratch ch04/03-06).
std::string after_chapter_list() {
  std::string lines;
  for (const LessonInfo& l : lessons()) {
    if (!l.after_chapter()) continue;
    char line[256];
    std::snprintf(line, sizeof line, "  %-14s %-16s %s\n", l.name.c_str(), l.sections.front().c_str(),
                  l.title(help_language()).c_str());
    lines += line;
  }
  lines += tr("  kv-memory      ch04/04-06       KV-cache memory of MHA, GQA, SWA and MLA, by the estimators\n",
              "  kv-memory      ch04/04-06       用估算脚本计算 MHA、GQA、SWA 和 MLA 的 KV 缓存内存\n");
  return tr("\nAfter the chapter (the book's bonus material, ch04 of rasbt/LLMs-from-scratch):\n",
            "\n本章之后（本书的附加材料，rasbt/LLMs-from-scratch 的 ch04）：\n") + lines;
}

std::string lesson_list() {
  std::string out = "attn-tutor " ATTN_TUTOR_VERSION +
                    tr(": Chapter 3 of \"Build a Large Language Model (From Scratch)\", cell by cell.\n\nLessons:\n",
                       "：逐个单元格重现《从零构建大模型》第 3 章。\n\n课程：\n");
  size_t width = 16;  // the source column: "§3.3.1, 3.3.2", "d2l.ai §11.5"
  for (const LessonInfo& l : lessons())
    if (!l.after_chapter()) width = std::max(width, display_width(l.source(help_language())) + 1);
  for (const LessonInfo& l : lessons()) {
    if (l.after_chapter()) continue;  // listed below, after the commands
    const std::string where = l.source(help_language());
    out += "  " + l.name + std::string(15 - std::min<size_t>(14, l.name.size()), ' ') + where +
           std::string(width - display_width(where), ' ') + " " + l.title(help_language()) + "\n";
  }
  out += tr("  all            every lesson in book order\n  verify         compare with every tensor the book prints\n",
            "  all            按本书顺序运行全部课程\n  verify         与书中打印的每个张量逐一比对\n");
  out += tr("  check FILE     compare your own PyTorch tensors (tools/export_pytorch.py) with a lesson\n",
            "  check FILE     将你自己的 PyTorch 张量（tools/export_pytorch.py 导出）与课程逐一比对\n");
  out += tr("  bench          time the wrapper, MultiHeadAttention, fused qkv and flash attention at GPT-2 size\n",
            "  bench          在 GPT-2 规模上为封装类、MultiHeadAttention、合并 qkv 和 flash 注意力计时\n");
  out += after_chapter_list();
  out += tr("\nRun 'attn-tutor LESSON' to replay one, 'attn-tutor LESSON --help' for its options.\n",
            "\n运行 'attn-tutor 课程名' 重现一节，'attn-tutor 课程名 --help' 查看其选项。\n");
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

int main(int argc, char** argv) {
  check_stdout_at_exit();  // a full disk or closed stdout is an error, not exit 0
  const Lang lang = choose_language(argc, argv);
  set_help_language(lang);
  CLI::App app{"attn-tutor: Chapter 3 of \"Build a Large Language Model (From Scratch)\", step by step, "
               "with PyTorch's exact numbers", "attn-tutor"};
  app.set_version_flag("--version", std::string("attn-tutor ") + ATTN_TUTOR_VERSION + "\n" + kernel_summary());
  app.require_subcommand(0, 1);
  std::string list_lang;  // `attn-tutor --lang zh` lists the lessons in Chinese
  app.add_option("--lang", list_lang, tr("Language of the lesson list: en or zh", "课程列表的语言：en 或 zh"))
      ->check(CLI::IsMember({"en", "zh"}));

  CliOptions cli;
  const LessonInfo* chosen = nullptr;
  for (const LessonInfo& lesson : lessons()) {
    CLI::App* sub = app.add_subcommand(
        lesson.name,
        lesson.after_chapter()
            ? tr("Replays the book's bonus material " + lesson.source(Lang::En) + " (after the chapter): " +
                     lesson.summary(Lang::En),
                 "重现本书的附加材料 " + lesson.source(Lang::Zh) + "（本章之后）：" + lesson.summary(Lang::Zh))
        : lesson.in_chapter()
            ? tr("Replays " + lesson.source(Lang::En) + " of the book: " + lesson.summary(Lang::En),
                 "重现本书第 " + lesson.source(Lang::Zh).substr(2) + " 节：" + lesson.summary(Lang::Zh))
            : tr("Replays " + lesson.source(Lang::En) + ", beside the book: " + lesson.summary(Lang::En),
                 "重现" + lesson.source(Lang::Zh) + "（本书之外）：" + lesson.summary(Lang::Zh)));
    add_lesson_options(sub, cli, &lesson);
    sub->footer(lesson.exports_help(help_language()));
    sub->callback([&chosen, &lesson] { chosen = &lesson; });
  }
  CLI::App* all = app.add_subcommand("all", "Replays every lesson in book order (§3.3-3.6), one after another");
  add_lesson_options(all, cli, nullptr);
  CLI::App* verify = app.add_subcommand(
      "verify", "Compares every tensor the book prints (§3.3-3.6, and a reader's run on Intel/Windows for --init randn and "
                "--bernoulli mkl) with the tool's own output; exit 1 on any mismatch");
  std::string verify_lesson;
  verify->add_option("LESSON", verify_lesson, "Only this lesson's tensors");
  CLI::App* check = app.add_subcommand(
      "check", "Compares your own PyTorch tensors (exported with tools/export_pytorch.py) with the lesson replayed "
               "with the same settings, and names the known mistake behind the first difference; exit 1 on any "
               "difference");
  std::string check_path, check_color = "auto";
  check->add_option("FILE", check_path, "The export: {\"schema\": \"attn-tutor/1\", \"lesson\": ..., \"tensors\": [...]}")
      ->required();
  check->add_option("--color", check_color, "auto (a terminal without NO_COLOR), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));

  CLI::App* bench = app.add_subcommand(
      "bench", tr("Times causal self-attention four ways (the chapter's wrapper, MultiHeadAttention as written, one "
                  "fused qkv projection, flash-style tiles) on the same seeded weights and input, at GPT-2-small size "
                  "by default, against this machine's measured FP32 peak",
                  "在相同的带种子权重和输入上，用四种写法（本章的封装类、原样的 MultiHeadAttention、合并的 qkv 投影、"
                  "flash 式分块）为因果自注意力计时，默认 GPT-2 small 规模，并与本机实测的 FP32 峰值比较"));
  BenchCli bench_cli;
  add_bench_options(bench, bench_cli);

  CLI::App* kv_memory = app.add_subcommand(
      "kv-memory", tr("After the chapter: the bonus material's KV-cache estimators (ch04/04_gqa, 05_mla, 06_swa) for "
                      "MHA, GQA, SWA with a SWA:full layer ratio, GQA + SWA and MLA, with their conventions; a table "
                      "and a plot against the context length",
                      "本章之后：附加材料中的 KV 缓存估算脚本（ch04/04_gqa、05_mla、06_swa），计算 MHA、GQA、按 SWA:完整层比例"
                      "混合的 SWA、GQA + SWA 和 MLA，沿用脚本的约定；并给出随上下文长度变化的表格和图"));
  KvMemoryCli kv_memory_cli;
  add_kv_memory_options(kv_memory, kv_memory_cli);

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
    if (verify->parsed()) return run_verify(verify_lesson);
    if (check->parsed()) return run_check(check_path, check_color);
    if (bench->parsed()) {
      if (bench->get_option("--json")->count() > 0 && bench_cli.json.empty())
        throw UsageError(empty_path_message("--json", true));
      return run_bench(bench_cli, lang);
    }
    if (kv_memory->parsed()) {
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
    return usage_error(e.what());
  } catch (const std::exception& e) {
    return usage_error(std::string("cannot run this lesson with these options: ") + e.what());
  }
}
