#include "option_rules.h"

#include <cstdlib>

#include "cli_messages.h"
#include "core/usage_error.h"

namespace attn {
namespace {

// The lessons whose cells use the embeddings directly: no projections, nothing random to draw.
bool without_weights(const std::string& lesson) { return lesson == "naive-scores" || lesson == "softmax"; }

// Whether a lesson draws a dropout mask (so --bernoulli changes something) at the rate given or its
// own default: torch draws no mask at a rate of 0 or 1, nor in d2l-mha's eval mode (no --dropout).
bool draws_mask(const std::string& lesson, const CliOptions& o) {
  double rate = 0.0;
  if (lesson == "dropout") rate = 0.5;
  else if (lesson == "course-mha") rate = 0.1;
  else if (lesson != "wrapper" && lesson != "mha" && lesson != "d2l-mha") return false;
  if (o.given("--dropout")) rate = std::strtod(o.text("--dropout").c_str(), nullptr);
  return rate > 0.0 && rate < 1.0;
}

}  // namespace

void reject_no_effect(const std::string& lesson, const CliOptions& o) {
  if (o.given("--from") && o.text("--json") == "-") throw UsageError(from_with_json_message());
  if (without_weights(lesson)) {
    for (const char* option : {"--d-out", "--qkv-bias"})
      if (o.given(option)) throw UsageError(no_weights_message(option, lesson));
    if (o.given("--seed") && !o.given("--tokens")) throw UsageError(no_random_message(lesson));
  }
  if (o.given("--bernoulli")) {
    bool draws = draws_mask(lesson, o);
    if (lesson == "all")  // what `all` runs: the chapter's lessons
      for (const LessonInfo& l : lessons()) draws = draws || (l.in_chapter() && draws_mask(l.name, o));
    if (!draws) throw UsageError(no_dropout_mask_message(lesson));
  }
}

}  // namespace attn
