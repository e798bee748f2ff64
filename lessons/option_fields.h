#pragma once
// Each row of lessons/options.txt bound once to its LessonOptions field: how the field reads and writes
// the option's value. The three conversions walk this table: the command line's (app/lesson_command.cpp),
// the JSON export's config (LessonOptions::config_json) and `check`'s replay of a learner's config
// (features/check/replay.cpp). The value is a JSON value of the row's kind: an integer, a number, a bool
// for a flag, a string for a choice or a text; null when the option is not given.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lessons/lesson.h"

namespace attn {

struct OptionField {
  const OptionRow* row = nullptr;
  nlohmann::json (*get)(const LessonOptions&) = nullptr;  // what the config writes (null: not given)
  void (*set)(LessonOptions&, const nlohmann::json&) = nullptr;
  bool written_when_given = false;  // the config holds its key only when it is given (the bonus lessons' options)
  bool learner_setting = true;      // false: how the page is written (its language, its explanations), not a
                                    // setting of what it computes: `check` reads it but the replay does not set it
  // The lowest value the config or the command line takes, when the row's range says less: the number of
  // tokens for the mask buffer.
  int64_t (*least)(const LessonOptions&) = nullptr;
  int64_t min(const LessonOptions& opt) const { return least ? least(opt) : row->min; }
};

// Every option that sets a field, in the option table's order (not the inputs' own: --seed, --inputs,
// --tokens, --d-in, nor the display options, which set none).
const std::vector<OptionField>& option_fields();

}  // namespace attn
