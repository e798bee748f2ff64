#include "lessons/catalog.h"

#include <algorithm>
#include <set>

#include "lessons/ui_text.h"

namespace attn {

using nlohmann::ordered_json;

ordered_json option_json(const OptionRow& row, const std::string& default_value, const std::string& help) {
  ordered_json j;
  j["flag"] = row.flag;
  j["kind"] = kind_name(row.kind);
  j["value_name"] = row.value_name.empty() ? ordered_json(nullptr) : ordered_json(row.value_name);
  if (row.kind == OptionKind::Choice) j["choices"] = row.choices;
  if (row.parser_range()) {
    j["min"] = row.min;
    j["max"] = row.max;
  }
  j["default"] = default_value.empty() ? ordered_json(nullptr) : ordered_json(default_value);
  j["display"] = row.display;
  j["help"] = help;
  return j;
}

ordered_json lesson_json(const LessonInfo& lesson, ordered_json options, Lang lang) {
  ordered_json j;
  j["name"] = lesson.name;
  j["group"] = lesson.after_chapter() ? "after" : "chapter";
  j["sections"] = lesson.sections;
  const TextTable& words = lesson_text(lesson.name);
  ordered_json headings = ordered_json::array();  // the headings its table of contents shows for them
  const std::vector<std::string> titled = words.cases("lesson.section_title");
  for (const std::string& section : lesson.sections)
    if (std::find(titled.begin(), titled.end(), section) != titled.end())
      headings.push_back(words.render(text_case("lesson.section_title", section), lang));
  if (headings.size() == lesson.sections.size()) j["section_titles"] = headings;
  j["title"] = lesson.title(lang);
  j["summary"] = lesson.summary(lang);
  j["options"] = std::move(options);
  j["exports"] = lesson.exports.list();
  return j;
}

ordered_json page_words(Lang lang) {
  std::set<std::string> keys;
  for (const TextTable* table : ui_tables())
    for (const std::string& key : table->keys())
      if (key.rfind("page.", 0) == 0) keys.insert(key);
  const std::vector<Prose> kept = {"{1}", "{2}", "{3}", "{4}", "{5}", "{6}", "{7}", "{8}", "{9}"};
  ordered_json j = ordered_json::object();
  for (const std::string& key : keys) j[key] = ui(key, lang, kept);
  return j;
}

ordered_json catalog_json(const std::string& version, Lang lang, ordered_json lessons, ordered_json commands) {
  ordered_json j;
  j["schema"] = "attn-tutor-lessons/1";
  j["version"] = version;
  j["lang"] = lang == Lang::Zh ? "zh" : "en";
  ordered_json groups = ordered_json::array();
  for (const char* id : {"chapter", "after", "tools"})
    groups.push_back({{"id", id}, {"title", ui(std::string("page.group.") + id, lang)}});
  j["groups"] = std::move(groups);
  j["lessons"] = std::move(lessons);
  j["commands"] = std::move(commands);
  j["ui"] = page_words(lang);
  return j;
}

}  // namespace attn
