#pragma once
// The options every lesson subcommand takes: their CLI11 definitions, and their conversion into
// the lessons' LessonOptions (validated: bad values throw UsageError with one line).
#include <cstdint>
#include <limits>
#include <map>
#include <string>

#include <CLI/CLI.hpp>

#include "lessons/lesson.h"

namespace attn {

// "Not given" for integer options that have no natural default (bench --threads).
constexpr int64_t kNotGiven = std::numeric_limits<int64_t>::min();

// The options as given on the command line, by flag ("--num-heads" -> "4"; a flag -> "true").
struct CliOptions {
  std::map<std::string, std::string> values;
  bool given(const std::string& flag) const { return values.count(flag) != 0; }
  const std::string& text(const std::string& flag) const {
    static const std::string none;
    const auto it = values.find(flag);
    return it == values.end() ? none : it->second;
  }
};

// The rows of lessons/options.h that `lesson` takes (nullptr: `all`) as CLI11 options, with their help.
void add_lesson_options(CLI::App* sub, CliOptions& o, const LessonInfo* lesson);
LessonOptions to_lesson_options(const CliOptions& o, Lang env_lang);
// A lesson's options from command-line words (verify's reference entries carry them as text).
LessonOptions parse_lesson_words(const std::string& lesson, const std::string& words);

}  // namespace attn
