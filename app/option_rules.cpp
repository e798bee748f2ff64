#include "option_rules.h"

#include <cstdlib>
#include <optional>

#include "cli_messages.h"
#include "core/usage_error.h"

namespace attn {
namespace {

// Whether a lesson draws a dropout mask (so --bernoulli changes something) at the rate given or its
// own default: torch draws no mask at a rate of 0 or 1.
bool draws_mask(const std::string& lesson, const CliOptions& o) {
  std::optional<double> given;
  if (o.given("--dropout")) given = std::strtod(o.text("--dropout").c_str(), nullptr);
  const double rate = dropout_rate(lesson, given);
  return rate > 0.0 && rate < 1.0;
}

}  // namespace

void reject_no_effect(const std::string& lesson, const CliOptions& o) {
  for (const std::string to_stdout :
       {"--json", "--html", "--py", "--ipynb"}) {  // an export on stdout: no notebook text
    if (!o.given(to_stdout) || o.text(to_stdout) != "-") continue;
    if (o.given("--from")) throw UsageError(from_with_export_message(to_stdout));
    for (const char* option : {"--heatmap", "--step"})
      if (o.given(option)) throw UsageError(text_only_with_export_message(option, to_stdout));
    // The page, the script and the notebook hold the explanations; the JSON does not.
    if (to_stdout == "--json" && o.given("--explain"))
      throw UsageError(text_only_with_export_message("--explain", to_stdout));
  }
  const LessonInfo* info = find_lesson(lesson);
  if (info && info->without_weights()) {
    if (o.given("--qkv-bias")) throw UsageError(no_weights_message("--qkv-bias", lesson));
    if (o.given("--seed") && !o.given("--tokens")) throw UsageError(no_random_message(lesson));
  }
  if (o.given("--bernoulli")) {
    bool draws = false;  // by any lesson the command runs (`all`: the chapter's)
    for (const LessonInfo* l : lessons_run_by(lesson)) draws = draws || draws_mask(l->name, o);
    if (!draws) throw UsageError(no_dropout_mask_message(lesson));
  }
}

}  // namespace attn
