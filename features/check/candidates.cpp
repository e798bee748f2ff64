#include "features/check/candidates.h"

#include <algorithm>

#include "core/safe_text.h"
#include "core/usage_error.h"
#include "features/check/replay.h"
#include "features/check/trace_export.h"
#include "features/check/trace_settings.h"
#include "lessons/cost_model.h"

namespace attn {

namespace {

using nlohmann::json;

// The lesson replayed with `config` and the program's tensors placed along it and compared.
Candidate evaluate(const LessonInfo& lesson, const TraceDocument& trace, const std::string& source,
                   const TraceChoices& choices, const json& config) {
  Candidate c{&lesson, {}, 0, 0, 0};
  LearnerExport settings{source, lesson.name, config, {}, {}, true};
  const LessonOptions opt = replay_options(settings);
  require_affordable(lesson.name, opt, false, "", 1.0 + static_cast<double>(mistake_rerun_count(lesson.name, opt)),
                     "check " + source);
  const Notebook nb = lesson.run(opt);
  c.ex = export_for(trace, source, lesson.name, timeline_names(nb), config, c.unlisted, &nb.timeline(), &c.furthest);
  if (c.ex.tensors.empty() && !choices.lesson.empty())  // the lesson given: its names, whatever their values
    c.ex = export_for(trace, source, lesson.name, timeline_names(nb), config, c.unlisted);
  if (c.ex.tensors.empty()) return c;
  const CheckReport r = check_export(c.ex, nb, nullptr);
  for (size_t i = 0; i < r.checks.size(); ++i) {
    const TensorCheck& k = r.checks[i];
    c.matched += k.verdict == TensorCheck::Verdict::Match;
    c.differing += k.verdict == TensorCheck::Verdict::Differs;
    c.reshaped += k.verdict == TensorCheck::Verdict::Differs && k.expected >= 0 &&
                  r.yours[i].tensor.shape() != r.tool[k.expected].tensor.shape();
  }
  return c;
}

// `c` replaced by the lesson replayed with `config` less the setting `key`, when that explains as much (no
// fewer matches, no more differences) or, with `more_wins`, when it matches more of the program's values.
void try_without(Candidate& c, const json& config, const std::string& key, const TraceDocument& trace,
                 const std::string& source, const TraceChoices& choices, bool more_wins = false) {
  json without = config;
  without.erase(key);
  Candidate d = evaluate(*c.lesson, trace, source, choices, without);
  if (d.ex.tensors.empty()) return;
  if ((d.differing <= c.differing && d.matched >= c.matched) || (more_wins && d.matched > c.matched)) c = std::move(d);
}

Candidate candidate_for(const LessonInfo& lesson, const TraceDocument& trace, const std::string& source,
                        const TraceChoices& choices, const std::set<std::string>& bound) {
  int unused = 0;
  LearnerExport probe;  // the program's `inputs`, when it binds one
  if (bound.count("inputs")) probe = export_for(trace, source, lesson.name, {"inputs"}, json::object(), unused);
  const json config = settings_for(lesson, trace, probe, choices);
  Candidate c = evaluate(lesson, trace, source, choices, config);
  // A module's dropout of 0 that the lesson's own default explains as well (the dropout lesson shows
  // nn.Dropout(0.5) unless --dropout says otherwise; its CausalAttention takes 0.0). A nonzero rate is
  // kept: the program declared it (a module left in eval mode is a mistake to name).
  if (config.contains("dropout") && config["dropout"].is_number() && config["dropout"].get<double>() == 0.0)
    try_without(c, config, "dropout", trace, source, choices);
  // A seed of the program's own beside the book's (torch.manual_seed(42) before its dropout cells only):
  // the lesson with the book's seeds as well, kept when it explains as much or places more of the program's
  // values (a seed before the call only: its dropouts differ, and with the program's seed its weights do;
  // its masks: own_masks.h).
  const bool book_seed_too = std::any_of(trace.seeds.begin(), trace.seeds.end(),
                                         [](const std::string& s) { return s == "123" || s == "789"; });
  if (!choices.seed && c.ex.config.contains("seed") && book_seed_too)
    try_without(c, c.ex.config, "seed", trace, source, choices, true);
  return c;
}

bool binds_any(const LessonInfo& lesson, const std::set<std::string>& bound) {
  return std::any_of(lesson.exports.begin(), lesson.exports.end(),
                     [&](const std::string& n) { return bound.count(n) > 0; });
}

// "a, b, c" of the names (escaped), "..." past about 200 characters.
std::string names_text(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (out.size() > 200) return out + ", ...";
    out += (out.empty() ? "" : ", ") + echo(n);
  }
  return out;
}

}  // namespace

std::set<std::string> bound_names(const TraceDocument& trace) {
  std::set<std::string> bound;
  for (const TraceEvent& e : trace.events) {
    bound.insert(e.name);
    if (!e.owner.empty() && e.name.size() > e.owner.size()) bound.insert(e.name.substr(e.owner.size() + 1));
  }
  return bound;
}

std::vector<Candidate> lesson_candidates(const TraceDocument& trace, const std::string& source,
                                         const TraceChoices& choices, const std::set<std::string>& bound,
                                         std::optional<UsageError>& refused) {
  std::vector<Candidate> candidates;
  for (const LessonInfo& lesson : lessons()) {
    if (!choices.lesson.empty() && lesson.name != choices.lesson) continue;
    if (choices.lesson.empty() && !binds_any(lesson, bound)) continue;
    try {
      Candidate c = candidate_for(lesson, trace, source, choices, bound);
      if (!c.ex.tensors.empty()) candidates.push_back(std::move(c));
    } catch (const UsageError& e) {
      if (!choices.lesson.empty()) throw;
      if (!refused) refused = e;
    }
  }
  return candidates;
}

void refuse_without_lesson(const TraceDocument& trace, const std::string& source, const TraceChoices& choices,
                           const std::set<std::string>& bound) {
  if (choices.lesson.empty()) {
    // A lesson's names bound only in functions none of whose values a lesson has (not a module's forward the
    // lesson steps through): they are there, but cannot be placed among the lesson's steps.
    std::set<std::string> lesson_names, locals;
    for (const LessonInfo& lesson : lessons()) lesson_names.insert(lesson.exports.begin(), lesson.exports.end());
    for (const TraceEvent& e : trace.events)
      if (e.scope == "local" && lesson_names.count(e.name) && locals.size() < 8) locals.insert(echo(e.name));
    std::string listed;
    for (const std::string& n : locals) listed += (listed.empty() ? "" : ", ") + n;
    if (!listed.empty()) throw UsageError(error_text("check.err.trace-locals", {source, listed}));
  }
  if (bound.empty())  // nothing ran that makes a tensor: a class or function never called
    throw UsageError(error_text("check.err.trace-no-tensors", {source}));
  const std::string names = names_text(bound);
  throw UsageError(error_text(choices.lesson.empty() ? "check.err.trace-no-lesson" : "check.err.trace-no-names",
                              {source, names.empty() ? std::string("-") : names, choices.lesson}));
}

ChosenLesson choose_lesson(const std::vector<Candidate>& candidates) {
  const Candidate* best = &candidates.front();
  for (const Candidate& c : candidates)
    if (c.matched > best->matched || (c.matched == best->matched && c.differing < best->differing) ||
        (c.matched == best->matched && c.differing == best->differing && c.reshaped < best->reshaped))
      best = &c;
  // Of the lessons that place at least a third as many, the one that reaches furthest into the program's
  // module-level results: a lesson that leaves out the program's last result (its shape none of the
  // lesson's) does not explain the program (the wrapper's merged heads after CausalAttention's cells).
  const int most = best->matched;
  for (const Candidate& c : candidates)
    if (3 * c.matched >= most && c.furthest > best->furthest) best = &c;
  return {best, most};
}

}  // namespace attn
