#include "features/check/trace_check.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <vector>

#include "core/safe_text.h"
#include "core/usage_error.h"
#include "features/check/candidates.h"
#include "features/check/chapter_check.h"
#include "features/check/evidence.h"
#include "features/check/forward_check.h"
#include "features/check/own_masks.h"
#include "features/check/replay.h"
#include "features/check/trace_export.h"
#include "features/check/trace_settings.h"
#include "lessons/cost_model.h"
#include "lessons/lesson.h"

namespace attn {

namespace {

using WhatIfs = std::function<std::vector<WhatIf>(const CheckReport&)>;

// The chosen lesson replayed with the program's settings, and its comparisons with the program.
struct LessonReplay {
  const Candidate& best;
  const TraceDocument& trace;
  LessonOptions opt;
  Notebook nb;
  // The known mistakes of the lesson, rerun, with the steps of their forwards.
  std::vector<WhatIf> what_ifs(const CheckReport& r) const {
    const TensorCheck& c = r.checks[r.first_divergence];
    const bool shapes_differ = r.yours[r.first_divergence].tensor.shape() != r.tool[c.expected].tensor.shape();
    return with_forward_steps(mistake_what_ifs(best.lesson->name, opt, shapes_differ));
  }
  // The program against `n`, with the forwards the lesson runs inside a cell (stage "forward").
  CheckReport compare(const Notebook& n, const WhatIfs& w) const {
    const std::vector<LessonForward> forwards = lesson_forwards(n.timeline(), n.inside_values());
    return check_export(with_forward_tensors(best.ex, trace, n.timeline(), forwards), n,
                        with_forward_steps(n.timeline(), forwards), w);
  }
  CheckReport diagnosed() const {
    return compare(nb, [this](const CheckReport& r) { return what_ifs(r); });
  }
};

// Evidence before a verdict: a ✗ only for a program that computes the lesson (evidence.h); else one line.
void require_evidence(const CheckReport& report, const LessonReplay& replay, const std::string& source) {
  if (report.ok() || computes_lesson(report, replay.trace)) return;
  const TensorCheck& c = report.checks[report.first_divergence];
  const LearnerTensor& y = report.yours[report.first_divergence];
  const Shape& theirs = report.tool[c.expected].tensor.shape();
  throw UsageError(
      error_text(theirs == y.tensor.shape() ? "check.err.trace-no-evidence-values" : "check.err.trace-no-evidence",
                 {source, replay.best.lesson->name, echo(y.name), shape_text(y.tensor.shape()), shape_text(theirs)}));
}

// Stage "own masks": a dropout another generator drew is no mistake; compared on under the learner's masks.
void compare_under_own_masks(CheckReport& report, LessonReplay& replay, const std::string& source,
                             std::vector<Prose>& notes) {
  const std::string& lesson = replay.best.lesson->name;
  if (!own_masks_affordable(estimate_lesson_cost(lesson, replay.opt, false).seconds,
                            static_cast<double>(mistake_rerun_count(lesson, replay.opt))))
    return;
  const OwnMasks own = find_own_masks(
      report, replay.opt, [&](const LessonOptions& o) { return replay.compare(replay.best.lesson->run(o), nullptr); });
  if (!own.names.empty()) {
    replay.opt = own.opt;
    replay.nb = replay.best.lesson->run(replay.opt);
    report = replay.diagnosed();
    if (another_mask_of_a_taken_shape(report, replay.opt)) throw several_masks_error(report, source);
    notes.push_back(own_masks_note(report));
  } else if (const int unseen = unseen_dropout_before(report); unseen >= 0) {
    throw unseen_dropout_error(report, unseen, source);
  }
}

// A difference no known mistake explains at a step inside the program's functions (a step the lesson
// does not have: dropout on the scores): its module-level values, as its export holds them, when a
// known mistake explains those. Returns how many of the program's tensors the report leaves out.
int compare_outside_functions(CheckReport& report, const LessonReplay& replay, const std::string& source) {
  const Candidate& best = replay.best;
  int unlisted = 0;
  const LearnerExport outside = export_for(replay.trace, source, best.lesson->name, timeline_names(replay.nb),
                                           best.ex.config, unlisted, &replay.nb.timeline(), nullptr, true);
  if (outside.tensors.empty() || outside.tensors.size() >= best.ex.tensors.size()) return best.unlisted;
  CheckReport r = check_export(outside, replay.nb, [&](const CheckReport& k) { return replay.what_ifs(k); });
  if (r.ok() || r.diagnoses.empty()) return best.unlisted;
  report = std::move(r);
  return unlisted;
}

// The chosen lesson's full check, with the diagnosis (as check_file does for an export).
CheckReport check_lesson(const Candidate& best, const TraceDocument& trace, const std::string& source,
                         const TraceChoices& choices) {
  const LessonOptions opt = replay_options(best.ex);
  LessonReplay replay{best, trace, opt, best.lesson->run(opt)};
  CheckReport report = replay.diagnosed();
  if (choices.lesson.empty()) require_evidence(report, replay, source);
  std::vector<Prose> notes;
  if (!report.ok() && report.diagnoses.empty()) compare_under_own_masks(report, replay, source, notes);
  // A ✓ on the setup alone (the mask, the inputs) while the program's steps are under names of its own says
  // nothing of its attention: one line instead.
  if (report.ok() && choices.lesson.empty() && best.unlisted > 0 && !compares_a_step(report))
    throw UsageError(error_text("check.err.trace-unnamed-steps",
                                {source, best.lesson->name, unnamed_tensors(trace, timeline_names(replay.nb))}));
  int left_out = best.unlisted;
  if (!report.ok() && report.diagnoses.empty() && choices.lesson.empty())
    left_out = compare_outside_functions(report, replay, source);
  const std::string settings = settings_text(best.ex.config);
  report.notes.push_back(
      text(choices.lesson.empty() ? "check.traced.inferred" : "check.traced.given",
           {best.lesson->name, settings.empty() ? text("check.traced.book-settings") : Prose(settings)}));
  for (const Prose& n : notes) report.notes.push_back(n);
  if (left_out > 0) report.notes.push_back(text("check.traced.unlisted", {std::to_string(left_out)}));
  if (trace.truncated || trace.skipped > 0)
    report.notes.push_back(text("check.traced.truncated", {std::to_string(trace.skipped)}));
  return report;
}

}  // namespace

CheckReport check_trace(const TraceDocument& trace, const std::string& source, const TraceChoices& choices) {
  if (!choices.lesson.empty() && !find_lesson(choices.lesson)) {
    std::string names;
    for (const LessonInfo& l : lessons()) names += (names.empty() ? "" : ", ") + l.name;
    throw UsageError(error_text("check.err.trace-lesson", {echo(choices.lesson), names}));
  }
  // 1. lessons: each candidate run with the settings the program used for it (candidates.h).
  const std::set<std::string> bound = bound_names(trace);
  std::optional<UsageError> refused;  // a lesson that refused the program's settings
  const std::vector<Candidate> candidates = lesson_candidates(trace, source, choices, bound, refused);
  if (candidates.empty() && refused) throw *refused;  // what stopped it, not that no lesson has its names
  if (candidates.empty()) refuse_without_lesson(trace, source, choices, bound);
  const ChosenLesson chosen = choose_lesson(candidates);
  // 2. sections: a program that covers the chapter, or several of its sections (chapter_check.h).
  const auto chapter_lessons =
      std::count_if(candidates.begin(), candidates.end(), [](const Candidate& c) { return c.lesson->in_chapter(); });
  if (choices.lesson.empty() && chapter_lessons >= 2)
    if (std::optional<CheckReport> report = check_chapter(trace, source, chosen)) return std::move(*report);
  // 3. the one lesson: compare, diagnose, report.
  return check_lesson(*chosen.best, trace, source, choices);
}

}  // namespace attn
