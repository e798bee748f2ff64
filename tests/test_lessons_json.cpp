// `attn-tutor lessons --json` (docs/lessons-json.md): the document the browser page builds its lesson
// picker and options forms from. Every option it lists must be one the command's --help lists, in the
// same order, with the same default and the option table's ranges and choices; every page word in both
// languages.
#include <doctest/doctest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "features/check/learner_export.h"
#include "lessons/lesson.h"
#include "lessons/options.h"
#include "lessons/ui_text.h"
#include "run_cli.h"

using namespace attn;
using nlohmann::ordered_json;

namespace {

ordered_json catalog(const std::string& lang) {
  const CliResult r = run_cli("lessons --json --lang " + lang);
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.err.empty());
  return ordered_json::parse(r.out);
}

const ordered_json& english() {
  static const ordered_json doc = catalog("en");
  return doc;
}

const ordered_json& chinese() {
  static const ordered_json doc = catalog("zh");
  return doc;
}

// The options `command --help` lists, in order: positionals ("FILE") first, then "--flag" (not --help).
struct HelpOption {
  std::string name;
  std::string line;  // its line(s): the name, the value name and the help text
};

std::vector<HelpOption> help_listing(const std::string& command) {
  const CliResult r = run_cli(command + " --help --lang en");
  REQUIRE(r.exit_code == 0);
  std::vector<HelpOption> out;
  std::istringstream lines(r.out);
  bool positionals = false;
  for (std::string line; std::getline(lines, line);) {
    if (line == "Positionals:" || line == "Options:") positionals = line == "Positionals:";
    if (line.rfind("  ", 0) != 0 || line.size() < 3) continue;
    if (line[2] == ' ') {  // the help text of a long option name, on a line of its own
      if (!out.empty()) out.back().line += line;
      continue;
    }
    const std::string name = line.substr(2, line.find_first_of(" :", 2) - 2);
    if (name == "-h,--help" || (!positionals && name.rfind("--", 0) != 0)) continue;
    out.push_back({name, line});
  }
  return out;
}

std::vector<std::string> flags_of(const ordered_json& options) {
  std::vector<std::string> out;
  for (const ordered_json& o : options) out.push_back(o.at("flag").get<std::string>());
  return out;
}

// Each option of `entry` is one `command --help` lists, in its order, with its help text and its default.
void expect_same_as_help(const ordered_json& entry) {
  const std::string command = entry.at("name").get<std::string>();
  CAPTURE(command);
  const std::vector<HelpOption> help = help_listing(command);
  std::vector<std::string> listed;
  for (const HelpOption& h : help) listed.push_back(h.name);
  CHECK(flags_of(entry.at("options")) == listed);
  for (size_t i = 0; i < help.size() && i < entry.at("options").size(); ++i) {
    const ordered_json& o = entry.at("options")[i];
    CAPTURE(help[i].line);
    CHECK(help[i].line.find(o.at("help").get<std::string>()) != std::string::npos);
    if (o.at("default").is_null()) continue;
    // "(default 4)", "(default bf16, 2 bytes ...)", "(default 32768; the scripts' ...)"
    const std::string said = "(default " + o.at("default").get<std::string>();
    const size_t at = help[i].line.find(said);
    REQUIRE_MESSAGE(at != std::string::npos, o.at("flag") << ": --help says no " << said);
    const char after = help[i].line[at + said.size()];
    CHECK((after == ')' || after == ',' || after == ';'));
  }
}

const ordered_json& command_entry(const ordered_json& doc, const std::string& name) {
  for (const ordered_json& c : doc.at("commands"))
    if (c.at("name") == name) return c;
  FAIL("no command " << name << " in lessons --json");
  static const ordered_json none;
  return none;
}

const ordered_json& option_entry(const ordered_json& options, const std::string& flag) {
  for (const ordered_json& o : options)
    if (o.at("flag") == flag) return o;
  FAIL("no option " << flag);
  static const ordered_json none;
  return none;
}

std::set<std::string> page_keys() {
  std::set<std::string> keys;
  for (const TextTable* table : ui_tables())
    for (const std::string& key : table->keys())
      if (key.rfind("page.", 0) == 0) keys.insert(key);
  return keys;
}

}  // namespace

TEST_CASE("lessons json: the document's keys in order, and every lesson of the registry once, in its order") {
  const ordered_json& doc = english();
  std::vector<std::string> keys;
  for (const auto& item : doc.items()) keys.push_back(item.key());
  CHECK(keys ==
        std::vector<std::string>{"schema", "version", "lang", "groups", "lessons", "commands", "ui", "subcommands"});
  CHECK(doc.at("schema") == "attn-tutor-lessons/1");
  CHECK(doc.at("version") == ATTN_TUTOR_VERSION);
  CHECK(doc.at("lang") == "en");
  CHECK(chinese().at("lang") == "zh");
  std::vector<std::string> groups;
  for (const ordered_json& g : doc.at("groups")) groups.push_back(g.at("id").get<std::string>());
  CHECK(groups == std::vector<std::string>{"chapter", "after", "tools"});
  REQUIRE(doc.at("lessons").size() == lessons().size());
  for (size_t i = 0; i < lessons().size(); ++i) {
    const LessonInfo& l = lessons()[i];
    const ordered_json& entry = doc.at("lessons")[i];
    CAPTURE(l.name);
    CHECK(entry.at("name") == l.name);
    CHECK(entry.at("group") == (l.after_chapter() ? "after" : "chapter"));
    CHECK(entry.at("sections").get<std::vector<std::string>>() == l.sections);
    CHECK(entry.at("exports").get<std::vector<std::string>>() == l.exports.list());
    CHECK(entry.at("title") == l.title(Lang::En));
    CHECK(entry.at("summary") == l.summary(Lang::En));
    if (l.in_chapter()) CHECK(entry.at("section_titles").size() == l.sections.size());  // the book's lessons have them
  }
  CHECK(doc.at("lessons")[3].at("section_titles")[0] == "Applying a causal attention mask");  // causal-mask: §3.5.1
}

TEST_CASE("lessons json: every subcommand of the parser, and the largest file check reads") {
  std::vector<std::string> names;
  for (const LessonInfo& l : lessons()) names.push_back(l.name);
  for (const char* c : {"all", "verify", "check", "bench", "kv-memory", "lessons"}) names.push_back(c);
  CHECK(english().at("subcommands").get<std::vector<std::string>>() == names);
  CHECK(chinese().at("subcommands") == english().at("subcommands"));
  for (const std::string& name : {std::string("bench"), std::string("lessons")})
    CHECK(run_cli(name + " --help").exit_code == 0);
  CHECK(run_cli("mah").exit_code == 2);
  for (const ordered_json& c : english().at("commands")) {
    CAPTURE(c.at("name").get<std::string>());
    if (c.at("name") == "check")
      CHECK(c.at("file_bytes_max") == kMaxExportBytes);
    else
      CHECK_FALSE(c.contains("file_bytes_max"));
  }
}

TEST_CASE("lessons json: each lesson's options are exactly what its --help lists, with its defaults") {
  for (const ordered_json& entry : english().at("lessons")) expect_same_as_help(entry);
}

TEST_CASE("lessons json: verify, check, kv-memory and all list what their --help lists, with their defaults") {
  for (const std::string command : {"verify", "check", "kv-memory", "all"})
    expect_same_as_help(command_entry(english(), command));
  CHECK(command_entry(english(), "all").at("page") == false);
  CHECK(command_entry(english(), "kv-memory").at("page") == true);
  const ordered_json& file = command_entry(english(), "check").at("options")[0];
  CHECK(file.at("flag") == "FILE");
  CHECK(file.at("positional") == true);
  CHECK(file.at("required") == true);
}

TEST_CASE("lessons json: kinds, value names, ranges, choices and display flags are the option table's") {
  for (const ordered_json& entry : english().at("lessons")) {
    CAPTURE(entry.at("name"));
    const LessonInfo* lesson = find_lesson(entry.at("name").get<std::string>());
    REQUIRE(lesson);
    for (const ordered_json& o : entry.at("options")) {
      const OptionRow& row = option_row(o.at("flag").get<std::string>());
      CAPTURE(row.flag);
      CHECK(lesson->takes(row));
      CHECK(o.at("kind") == kind_name(row.kind));
      CHECK(o.at("value_name") == (row.value_name.empty() ? ordered_json(nullptr) : ordered_json(row.value_name)));
      CHECK(o.at("display") == row.display);
      CHECK(o.contains("choices") == (row.kind == OptionKind::Choice));
      if (o.contains("choices")) CHECK(o.at("choices").get<std::vector<std::string>>() == row.choices);
      const bool ranged = row.parser_range();
      CHECK(o.contains("min") == ranged);
      if (ranged) {
        CHECK(o.at("min") == row.min);
        CHECK(o.at("max") == row.max);
      }
      const std::string value = lesson->default_value(row.flag);
      CHECK(o.at("default") == (value.empty() ? ordered_json(nullptr) : ordered_json(value)));
    }
  }
  // A lesson's own default beats the table's: gqa's --d-out 8, the table's 2.
  CHECK(option_entry(english().at("lessons")[10].at("options"), "--d-out").at("default") == "8");
}

TEST_CASE("lessons json: kv-memory's options come from its parser, --dtype with its choices") {
  const ordered_json& options = command_entry(english(), "kv-memory").at("options");
  const ordered_json& dtype = option_entry(options, "--dtype");
  CHECK(dtype.at("kind") == "choice");
  CHECK(dtype.at("choices").get<std::vector<std::string>>() ==
        std::vector<std::string>{"fp32", "bf16", "fp16", "fp8", "int8"});
  CHECK(dtype.at("default") == "bf16");
  CHECK(option_entry(options, "--emb-dim").at("kind") == "integer");
  CHECK(option_entry(options, "--emb-dim").at("default") == "4096");
  CHECK(option_entry(options, "--window").at("default").is_null());  // not given: no sliding window
  CHECK(option_entry(options, "--swa-ratio").at("kind") == "text");
  CHECK(option_entry(options, "--json").at("display") == true);
}

TEST_CASE("lessons json: every page word, in English and in Chinese, its values kept for the page") {
  const std::set<std::string> keys = page_keys();
  REQUIRE(keys.count("page.title") == 1);
  for (const ordered_json* doc : {&english(), &chinese()}) {
    std::set<std::string> listed;
    for (const auto& item : doc->at("ui").items()) listed.insert(item.key());
    CHECK(listed == keys);
  }
  for (const std::string& key : keys) {
    CAPTURE(key);
    const std::string en = english().at("ui").at(key), zh = chinese().at("ui").at(key);
    CHECK(en == ui(key, Lang::En, {"{1}", "{2}", "{3}", "{4}", "{5}", "{6}", "{7}", "{8}", "{9}"}));
    CHECK(en != zh);
    CHECK(en.find("{?}") == std::string::npos);
    CHECK(zh.find("[no text") == std::string::npos);
  }
  CHECK(chinese().at("ui").at("page.cell_of") == "In [{1}]，共 {2} 个");
  CHECK(english().at("groups")[1].at("title") == english().at("ui").at("page.group.after"));
}

TEST_CASE("lessons json: --lang zh translates every title, summary, section heading and help text") {
  const auto differ = [](const ordered_json& en, const ordered_json& zh, const std::string& what) {
    CAPTURE(what);
    CAPTURE(en.dump());
    CHECK(en != zh);
  };
  for (const char* list : {"lessons", "commands"}) {
    const ordered_json& en = english().at(list);
    const ordered_json& zh = chinese().at(list);
    REQUIRE(en.size() == zh.size());
    for (size_t i = 0; i < en.size(); ++i) {
      const std::string name = en[i].at("name");
      differ(en[i].at("title"), zh[i].at("title"), name + " title");
      differ(en[i].at("summary"), zh[i].at("summary"), name + " summary");
      if (en[i].contains("section_titles"))
        for (size_t s = 0; s < en[i].at("section_titles").size(); ++s)
          differ(en[i].at("section_titles")[s], zh[i].at("section_titles")[s], name + " section");
      REQUIRE(en[i].at("options").size() == zh[i].at("options").size());
      for (size_t o = 0; o < en[i].at("options").size(); ++o) {
        const ordered_json& eo = en[i].at("options")[o];
        const ordered_json& zo = zh[i].at("options")[o];
        differ(eo.at("help"), zo.at("help"), name + " " + eo.at("flag").get<std::string>());
        ordered_json same_en = eo, same_zh = zo;  // everything but the words is the same in both languages
        same_en.erase("help");
        same_zh.erase("help");
        CHECK(same_en == same_zh);
      }
    }
  }
}

TEST_CASE("lessons: the list as bare attn-tutor prints it, the language from the environment, errors in one line") {
  CHECK(run_cli("lessons").out == run_cli("").out);
  CHECK(run_cli("lessons --lang zh").out == run_cli("--lang zh").out);
  CHECK(run_cli_env("LANG=zh_CN.UTF-8", "lessons --json").out == run_cli("lessons --json --lang zh").out);
  CHECK(run_cli_env("LANG=zh_CN.UTF-8", "lessons --json --lang en").out == run_cli("lessons --json").out);
  CHECK(run_cli("lessons --json").out == run_cli("lessons --json --lang en").out);
  expect_usage_error("lessons --bogus", "--bogus");
  expect_usage_error("lessons --lang fr", "--lang fr");
  expect_usage_error("lessons --json extra", "extra");
  expect_usage_error("lessons --json=yes", "--json");
  expect_usage_error("lessons --json --lang zh --lang en", "--lang");
}
