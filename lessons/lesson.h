#pragma once
// What every lesson takes (the CLI's options, already validated) and the list of lessons.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inputs.h"
#include "notebook.h"
#include "random_ops.h"

namespace attn {

enum class Init { Rand, Randn };

struct LessonOptions {
  std::optional<uint64_t> seed;   // replaces every torch.manual_seed(k) of the lesson
  std::string seed_text;          // as the learner wrote it (for the JSON config)
  Inputs inputs = book_inputs();
  bool custom_inputs = false;
  std::string inputs_source;      // file name, or "book"
  int64_t d_out = 2;
  bool qkv_bias = false;
  Init init = Init::Rand;
  int64_t num_heads = 2;
  double dropout = 0.5;           // the §3.5.2 rate
  std::optional<int64_t> context_length;
  BernoulliPath bernoulli = BernoulliPath::Default;
  bool no_reseed = false;         // wrapper: generator carried over from the CausalAttention cell
  bool gpt2 = false;              // mha: exercise 3.3

  uint64_t seed_or(uint64_t book_seed) const { return seed ? *seed : book_seed; }
  // The config object of the JSON export: every option in force.
  nlohmann::json config_json() const;
};

struct LessonInfo {
  std::string name;                   // the subcommand
  std::vector<std::string> sections;  // book sections it replays
  std::string title;
  std::string summary;                // one line for --help
  Notebook (*run)(const LessonOptions&);
};

const std::vector<LessonInfo>& lessons();
const LessonInfo* find_lesson(const std::string& name);

// The lessons, one per file.
Notebook naive_scores_lesson(const LessonOptions& opt);
Notebook softmax_lesson(const LessonOptions& opt);
Notebook trainable_lesson(const LessonOptions& opt);

}  // namespace attn
