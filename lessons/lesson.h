#pragma once
// What every lesson takes (the CLI's options, already validated) and the list of lessons.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/inputs.h"
#include "lessons/options.h"
#include "notebook/notebook.h"
#include "core/random_ops.h"
#include "nn/variant.h"
#include "lessons/cell_variant.h"

namespace attn {

enum class Init { Rand, Randn };
struct LessonWork;  // lessons/lesson_work.h
struct Reruns;      // lessons/diagnosis.h

struct LessonOptions {
  std::optional<uint64_t> seed;  // replaces every torch.manual_seed(k) of the lesson
  std::string seed_text;         // as the learner wrote it (for the JSON config)
  Inputs inputs = book_inputs();
  bool custom_inputs = false;
  std::string inputs_source;  // file name, or "book"
  int64_t d_out = 2;
  bool d_out_given = false;  // --d-out given (the bonus lessons default to their own size otherwise)
  bool qkv_bias = false;
  Init init = Init::Rand;
  std::optional<int64_t> num_heads;  // the lesson's default when absent (book: 2)
  std::optional<double> dropout;     // dropout: the §3.5.2 rate (book 0.5); wrapper/mha: the modules' (book 0.0)
  std::optional<int64_t> context_length;
  BernoulliPath bernoulli = BernoulliPath::Default;
  bool no_reseed = false;  // wrapper: generator carried over from the CausalAttention cell
  bool gpt2 = false;       // mha: exercise 3.3
  // The seeds' other attention systems.
  std::string preset = "small";  // course-mha: "small" (chapter embeddings) or "post" (the course write-up's settings)
  std::optional<int64_t> d_model;         // course-mha: model width
  std::optional<int64_t> num_hiddens;     // d2l-mha: model width
  std::optional<std::string> valid_lens;  // d2l-mha: "3,2" (one per sequence) or "[[..],[..]]" (one per query)
  // After the chapter (the bonus lessons): absent unless given; each lesson writes its default into its config.
  std::optional<int64_t> num_kv_groups;  // gqa: key/value heads
  std::optional<int64_t> latent_dim;     // mla: the cached latent's size
  std::optional<int64_t> window;         // swa: the sliding window
  Lang lang = Lang::En;                  // annotations and titles: English or Chinese (the Chinese edition's terms)
  bool explain = false;                  // the longer explanation of each cell
  Variant variant;                       // not an option: `check` runs the lesson with a learner's mistake

  uint64_t seed_or(uint64_t book_seed) const { return seed ? *seed : book_seed; }
  int64_t heads_or(int64_t lesson_default) const { return num_heads ? *num_heads : lesson_default; }
  int64_t d_out_or(int64_t lesson_default) const { return d_out_given ? d_out : lesson_default; }
  int64_t num_tokens() const { return inputs.embeddings.size(0); }
  int64_t d_in() const { return inputs.embeddings.size(1); }
  int64_t context_length_or_tokens() const { return context_length ? *context_length : num_tokens(); }
  // The config object of the JSON export: every option in force.
  nlohmann::json config_json() const;
  CellVariant cells;  // not an option: `check` reruns the lesson with a mistake in its own cells
};

// A lesson's prose: lessons/FOLDER/text.txt, with lessons/common/text.txt behind it.
const TextTable& lesson_text(const std::string& folder);
// A Python listing a cell shows: "@@ NAME" in lessons/FOLDER/listings.txt, line by line.
std::vector<std::string> listing(const std::string& folder, const std::string& name);
// A lesson's notebook, its prose from lesson_text(lesson).
// Its sections come from the lesson's row in lessons/registry.cpp.
Notebook lesson_notebook(const std::string& lesson, const LessonOptions& opt);
struct LessonInfo;
// The settings `info` takes (its option table rows that change what it computes) with the values `opt`
// gives or the lesson's defaults: the HTML report's settings table.
std::vector<Setting> lesson_settings(const LessonInfo& info, const LessonOptions& opt);
// The same for `all`: the options a chapter lesson takes, unsaid ones at the chapter's default when the
// lessons agree, else "each lesson's own".
std::vector<Setting> chapter_settings(const LessonOptions& opt);

// A lesson's own default for an option: one entry of its row's `defaults`.
struct OptionDefault {
  std::string flag;   // "--num-heads"
  std::string value;  // "4"; "" when it follows from other options (text key "default.num_heads" says how)
};

// The tensor names a lesson's --json export holds with the default options: each name once, in order of
// first appearance. Computed the first time they are asked for (--help, `lessons --json`, check) by
// running the lesson with LessonOptions{}, a few milliseconds; lessons() binds each row's to its `run`.
class ExportNames {
 public:
  const std::vector<std::string>& list() const;
  operator const std::vector<std::string>&() const { return list(); }
  std::vector<std::string>::const_iterator begin() const { return list().begin(); }
  std::vector<std::string>::const_iterator end() const { return list().end(); }
  void bind(Notebook (*run)(const LessonOptions&)) { run_ = run; }

 private:
  Notebook (*run_)(const LessonOptions&) = nullptr;
  mutable std::shared_ptr<const std::vector<std::string>> names_;  // once computed
};

// A lesson's descriptor: its row in lessons/registry.cpp with its lessons/NAME/lesson.txt. Its title and summary are the keys
// lesson.title and lesson.summary of lessons/NAME/text.txt.
struct LessonInfo {
  std::string name;                     // the subcommand, and its folder lessons/NAME/
  std::vector<std::string> sections;    // the book sections it replays, else its source ("d2l 11.5")
  std::vector<std::string> options;     // the options it takes beyond the common ones (lessons/options.h)
  std::vector<OptionDefault> defaults;  // its own defaults, where the option table's (or none) is not its
  Notebook (*run)(const LessonOptions&) = nullptr;
  // What it does that grows with the options (lessons/NAME/cost.cpp), for lessons/cost_model.cpp's
  // estimate before it runs; tests/test_hostile_cost.cpp fails for a lesson without one.
  LessonWork (*work)(const LessonOptions&) = nullptr;
  // Its diagnoses for `check` (lessons/NAME/mistakes.cpp, lessons/diagnosis.h): the known mistakes that apply
  // to it, each as a rerun, in the order they are tried; nullptr: none.
  void (*diagnoses)(Reruns&) = nullptr;
  // Whether it can run with the other settings `check` tries (its heads dividing its width, as its class
  // requires); nullptr: always.
  bool (*settings_exist)(const LessonOptions&) = nullptr;
  // Its module runs in eval() mode unless --dropout is given, so its default rate draws no mask (d2l.ai's
  // MultiHeadAttention: dropout 0.5 in eval()).
  bool eval_unless_dropout = false;

  std::string title(Lang lang) const;
  std::string summary(Lang lang) const;  // one line for --help ({1}, {2}, ...: its defaults)
  std::string source(Lang lang) const;   // where it comes from: "§3.5.1", "d2l.ai §11.5"
  bool in_chapter() const;               // a section of chapter 3 (what `all` runs)
  bool after_chapter() const;            // the book's bonus material (sections "ch03/..." and "ch04/...")
  bool takes(const OptionRow& row) const;
  // It takes no option beyond the common ones: its cells use the embeddings directly, with no weights to
  // draw (so --qkv-bias changes nothing, nor --seed without --tokens).
  bool without_weights() const { return options.empty(); }
  // Its default for `flag`: its row's, else the option table's; "" when it follows from other options
  // or neither states one.
  std::string default_value(const std::string& flag) const;
  // The help text of `row` for this lesson: the table's, then "(default V)" when it has one.
  std::string option_help(const OptionRow& row, Lang lang) const;
  std::string exports_help(Lang lang) const;  // "Exports (--json, default options): x, queries, ..." for --help

  // The tensors its --json export holds with the default options, computed from `run` (no row states
  // them): it stays after every member a row initialises.
  ExportNames exports{};
};

const std::vector<LessonInfo>& lessons();
const LessonInfo* find_lesson(const std::string& name);
// The lessons a command runs: a lesson itself, `all` the chapter's lessons, anything else none.
std::vector<const LessonInfo*> lessons_run_by(const std::string& command);
// A lesson's default for a numeric option, as its cells use it when the option is not given: the one
// place it is stated is the lesson's row (else the option table). std::logic_error when it states none.
double lesson_default(const std::string& lesson, const std::string& flag);
int64_t lesson_default_count(const std::string& lesson, const std::string& flag);
// The rate at which a lesson's dropout draws masks: --dropout (`given`), else its default; 0 in a lesson
// without dropout and in d2l-mha without --dropout (its module then runs in eval() mode).
double dropout_rate(const std::string& lesson, std::optional<double> given);
// The default `all` runs the chapter lessons with: theirs when they agree, else "" (each its own).
std::string chapter_default(const OptionRow& row);
// The help text of `row` for `all`: the table's, then the chapter lessons' defaults (one value when they agree).
std::string chapter_option_help(const OptionRow& row, Lang lang);

}  // namespace attn
