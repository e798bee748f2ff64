#pragma once
// `attn-tutor lessons --json` (schema attn-tutor-lessons/1, docs/lessons-json.md): every lesson of the
// registry, the commands the page offers and the page's own words as one JSON document, in one language,
// for the browser page to build its picker and forms from. Pure: the app hands in the options each
// subcommand accepts as its CLI11 parser defines them (app/lessons_command.cpp walks them).
#include <string>

#include <nlohmann/json.hpp>

#include "lessons/lesson.h"

namespace attn {

// One option: what `row` says it takes (kind, value name, choices, range, display), its default
// ("" is null) and its help as the command's --help shows it.
nlohmann::ordered_json option_json(const OptionRow& row, const std::string& default_value, const std::string& help);
// A lesson of the registry: its group ("chapter" or "after"), sections (and their headings when its
// text has a heading.SECTION for each), title, summary, `options` and exports.
nlohmann::ordered_json lesson_json(const LessonInfo& lesson, nlohmann::ordered_json options, Lang lang);
// Every key page.* of the commands' text tables (features/page/text.txt) in `lang`, its {1}, {2} kept
// for the page to fill in.
nlohmann::ordered_json page_words(Lang lang);
// The document: schema, version, lang, groups, `lessons`, `commands`, ui.
nlohmann::ordered_json catalog_json(const std::string& version, Lang lang, nlohmann::ordered_json lessons,
                                    nlohmann::ordered_json commands);

}  // namespace attn
