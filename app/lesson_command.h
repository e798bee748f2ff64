#pragma once
// The options every lesson subcommand takes: their CLI11 definitions, and their conversion into
// the lessons' LessonOptions (validated: bad values throw UsageError with one line).
#include <cstdint>
#include <limits>
#include <string>

#include <CLI/CLI.hpp>

#include "lessons/lesson.h"

namespace attn {

constexpr int64_t kNotGiven = std::numeric_limits<int64_t>::min();

struct CliOptions {
  std::string seed;
  std::string inputs;
  int64_t d_out = 2;
  bool qkv_bias = false;
  std::string init = "rand";
  std::string json;
  std::string color = "auto";
  bool heatmap = false;         // --heatmap: attention matrices as coloured grids
  std::string html;             // --html FILE: a self-contained report
  int64_t num_heads = kNotGiven;
  std::string dropout;          // empty: the lesson's book value
  int64_t context_length = 0;   // 0: the number of tokens
  std::string bernoulli = "default";
  bool no_reseed = false;
  bool gpt2 = false;
  bool step = false;
  std::string lang;  // empty: from the environment
  bool explain = false;
  std::string tokens;           // --tokens "a sentence"
  bool tokens_given = false;
  int64_t d_in = 3;
  std::string preset = "small";
  int64_t d_model = 0;
  int64_t num_hiddens = 0;
  std::string valid_lens;
};

// Which options a subcommand offers beyond the common ones.
struct OptionSet {
  bool init = false, heads = false, dropout = false, context = false, bernoulli = false, no_reseed = false,
       gpt2 = false, course = false, d2l = false;
};

OptionSet options_for(const std::string& lesson);
void add_lesson_options(CLI::App* sub, CliOptions& o, const OptionSet& set);
LessonOptions to_lesson_options(const CliOptions& o, Lang env_lang);
// A lesson's options from command-line words (verify's reference entries carry them as text).
LessonOptions parse_lesson_words(const std::string& lesson, const std::string& words);

}  // namespace attn
