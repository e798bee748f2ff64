#include "lessons_command.h"

#include <algorithm>

#include "features/check/learner_export.h"
#include "language.h"
#include "lesson_command.h"
#include "lessons/catalog.h"

namespace attn {

using nlohmann::ordered_json;

void add_lessons_options(CLI::App* sub, LessonsCli& l) {
  sub->add_flag("--json", l.json, tr("app.lessons.json"))->disable_flag_override();
  sub->add_option("--lang", l.lang, tr("app.lessons.lang"))->check(CLI::IsMember({"en", "zh"}));
}

namespace {

// The commands the page offers besides the lessons (`page`: false for those it does not run itself).
// bench is left out: its help names this machine's threads and kernels.
struct PageCommand {
  const char* name;
  bool page;
  bool lesson_options;         // it takes the lessons' options (listed as the option table's rows)
  std::size_t file_bytes_max;  // the largest FILE it reads (0: none); the page hands it at most one byte more
};
constexpr PageCommand kCommands[] = {{"all", false, true, 0},
                                     {"verify", true, false, 0},
                                     {"check", true, false, kMaxExportBytes},
                                     {"kv-memory", true, false, 0}};

// The row of the option table with this flag, if any (its display flag holds for the same flag elsewhere).
const OptionRow* table_row(const std::string& flag) {
  for (const OptionRow& row : option_table())
    if (row.flag == flag) return &row;
  return nullptr;
}

// An option CLI11 alone defines (kv-memory, check, verify) as a row: a switch is a flag, an IsMember
// check a choice (its "{a,b}" description), strict_integer_check() an integer, anything else text.
OptionRow row_of(CLI::Option* opt, const std::string& flag) {
  OptionRow row;
  row.flag = flag;
  row.kind = opt->get_type_size_max() == 0 ? OptionKind::Flag : OptionKind::Text;
  for (int i = 0; row.kind != OptionKind::Flag; ++i) {
    CLI::Validator* v = nullptr;
    try {
      v = opt->get_validator(i);
    } catch (const CLI::OptionNotFound&) {
      break;
    }
    const std::string set = v->get_description();
    if (v->get_name() == "strict integer") row.kind = OptionKind::Integer;
    if (set.size() < 2 || set.front() != '{' || set.back() != '}') continue;
    row.kind = OptionKind::Choice;
    for (size_t start = 1, comma; start < set.size(); start = comma + 1) {
      comma = set.find(',', start);
      if (comma == std::string::npos) comma = set.size() - 1;
      row.choices.push_back(set.substr(start, comma - start));
    }
  }
  if (opt->get_positional())
    row.value_name = flag;
  else if (row.kind == OptionKind::Text || row.kind == OptionKind::Integer)
    row.value_name = opt->get_type_name();
  const OptionRow* same = table_row(flag);
  row.display = same && same->display;  // --json FILE|-, --color: where or how the output is shown
  return row;
}

// The value an option CLI11 alone defines starts with: its variable's, before parsing ("" for none).
std::string cli_default(CLI::Option* opt) {
  const std::string value = opt->capture_default_str()->get_default_str();
  return value == std::to_string(kNotGiven) ? "" : value;
}

// The options `sub` accepts, in --help order (its positionals first). A lesson's (and all's) are rows of
// the option table with the lesson's defaults (all's: the chapter's, lessons/lesson.h); the others are read from CLI11.
ordered_json options_of(CLI::App* sub, const LessonInfo* lesson, bool table) {
  ordered_json out = ordered_json::array();
  std::vector<CLI::Option*> options = sub->get_options();
  std::stable_partition(options.begin(), options.end(), [](const CLI::Option* o) { return o->get_positional(); });
  for (CLI::Option* opt : options) {
    if (opt == sub->get_help_ptr()) continue;
    const std::string flag = opt->get_positional() ? opt->get_name(true) : opt->get_name();
    ordered_json j;
    if (table) {
      const OptionRow& row = option_row(flag);  // std::logic_error: a lesson option not in the table
      j = option_json(row, lesson ? lesson->default_value(flag) : chapter_default(row), opt->get_description());
    } else {
      j = option_json(row_of(opt, flag), cli_default(opt), opt->get_description());
    }
    if (opt->get_positional()) {
      j["positional"] = true;
      j["required"] = opt->get_required();
    }
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

std::string lessons_json(CLI::App& app, Lang lang) {
  ordered_json lesson_list = ordered_json::array();
  for (const LessonInfo& lesson : lessons())
    lesson_list.push_back(lesson_json(lesson, options_of(app.get_subcommand(lesson.name), &lesson, true), lang));
  ordered_json commands = ordered_json::array();
  for (const PageCommand& c : kCommands) {
    CLI::App* sub = app.get_subcommand(c.name);
    ordered_json j;
    j["name"] = c.name;
    j["group"] = "tools";
    j["page"] = c.page;
    j["title"] = tr(std::string("app.command.") + c.name);
    j["summary"] = sub->get_description();
    j["options"] = options_of(sub, nullptr, c.lesson_options);
    if (c.file_bytes_max) j["file_bytes_max"] = c.file_bytes_max;
    commands.push_back(std::move(j));
  }
  ordered_json doc = catalog_json(ATTN_TUTOR_VERSION, lang, std::move(lesson_list), std::move(commands));
  // Every subcommand of the command line, so that the page can tell a word it does not run from a mistyped one.
  ordered_json names = ordered_json::array();
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  doc["subcommands"] = std::move(names);
  return doc.dump(2) + "\n";
}

}  // namespace attn
