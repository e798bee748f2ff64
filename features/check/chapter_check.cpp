#include "features/check/chapter_check.h"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "features/check/replay.h"
#include "features/check/sections.h"
#include "features/check/trace_export.h"

namespace attn {

namespace {

using nlohmann::json;

// The chapter's lessons run one after the other, as `all` runs them.
struct ChapterRun {
  json config;  // the seed and the inputs; each lesson its own defaults, as in `all`
  LessonOptions opt;
  Notebook all;
  std::vector<std::pair<int, const LessonInfo*>> starts;  // where each lesson's timeline starts
  std::vector<int> base_cell;                             // and the cell after which its cells come
  std::vector<std::set<std::string>> names_of;            // and its names
  std::vector<LessonSpan> spans;                          // each lesson's entries
  int end_of(size_t k) const {
    return k + 1 < starts.size() ? starts[k + 1].first : static_cast<int>(all.timeline().size());
  }
  size_t lesson_of(int entry) const {  // the lesson whose part holds the timeline entry
    size_t k = 0;
    while (k + 1 < starts.size() && starts[k + 1].first <= entry) ++k;
    return k;
  }
};

json chapter_config(const Candidate& best) {
  json config = json::object();
  for (const char* key : {"seed", "inputs_data"})
    if (best.ex.config.contains(key)) config[key] = best.ex.config[key];
  return config;
}

ChapterRun run_chapter(const json& config, const std::string& source) {
  const LessonOptions opt = replay_options(LearnerExport{source, "all", config, {}, {}, true});
  ChapterRun run{config, opt, Notebook("all", {}, opt.config_json(), opt.inputs.tokens), {}, {}, {}, {}};
  for (const LessonInfo& l : lessons())
    if (l.in_chapter()) {
      run.starts.push_back({static_cast<int>(run.all.timeline().size()), &l});
      const Notebook nb = l.run(opt);
      run.names_of.push_back(timeline_names(nb));
      run.all.append(nb);
      run.base_cell.push_back(run.all.appended_after().back());
    }
  for (size_t k = 0; k < run.starts.size(); ++k)
    run.spans.push_back({run.starts[k].second->name, run.starts[k].first, run.end_of(k)});
  return run;
}

// The program's values placed along the chapter: by its sections, or by the cells export_for placed them in.
struct ChapterPlacement {
  LearnerExport ex;
  SectionPlan plan;
  bool in_sections = false;
  std::vector<Prose> section_notes;
  int unlisted = 0;
  CheckReport r;  // compared, not diagnosed
};

// Whether the lesson's own check of `c` stops at the same line of the program as `sections` does (a section
// before it, recomputed under its names, is not what it compares).
bool same_first_difference(const CheckReport& sections, const Candidate& c) {
  const Notebook nb = c.lesson->run(replay_options(c.ex));
  const CheckReport own = check_export(c.ex, nb, nullptr);
  if (own.ok()) return false;
  const auto& a = sections.yours[sections.first_divergence].origin;
  const auto& b = own.yours[own.first_divergence].origin;
  return a && b && a->cell == b->cell && a->line == b->line && a->file == b->file;
}

// Sections when two or more are computed and they place as many of the program's values as the one lesson
// compares (and, for a lesson after the chapter, match more of them).
bool sections_place_more(const SectionPlan& plan, const Candidate& best) {
  int placed = 0, equal = 0;
  for (const Section& s : plan.sections)
    if (s.evidenced()) placed += s.placed, equal += s.equal;
  return plan.evidenced() >= 2 && placed >= best.matched + best.differing &&
         (best.lesson->in_chapter() || equal > best.matched);
}

ChapterPlacement place_in_chapter(const ChapterRun& run, const TraceDocument& trace, const std::string& source,
                                  const Candidate& best) {
  ChapterPlacement p;
  p.ex = export_for(trace, source, "all", timeline_names(run.all), run.config, p.unlisted, &run.all.timeline());
  p.plan = find_sections(run.all.timeline(), run.spans, p.ex.tensors);  // stage "sections" (sections.h)
  p.in_sections = sections_place_more(p.plan, best);
  const std::vector<LearnerTensor> all_tensors = p.ex.tensors;
  const int unlisted_before = p.unlisted;
  if (p.in_sections)
    p.ex.tensors =
        section_tensors(all_tensors, p.plan, run.spans, run.names_of, run.all.timeline(), p.unlisted, p.section_notes);
  p.r = !p.in_sections || p.ex.tensors.empty() ? CheckReport{} : check_export(p.ex, run.all, nullptr);
  // A program the one lesson explains without a difference keeps its report unless its sections find one
  // (a lesson's --py program sets up the section before it; a right §3.4 beside a wrong §3.3 is no ✓).
  if (p.in_sections && best.differing == 0 && p.r.ok()) p.in_sections = false;
  // Nor when the sections' first difference is in that lesson too: its own report says it (its forwards'
  // steps and its diagnosis), the sections before it only the setup it recomputes.
  if (p.in_sections && !p.r.ok() &&
      lesson_at(run.spans, p.r.checks[p.r.first_divergence].expected) == best.lesson->name &&
      same_first_difference(p.r, best))
    p.in_sections = false;
  if (!p.in_sections) {
    p.unlisted = unlisted_before;
    p.ex.tensors = by_cell_sections(all_tensors, run.base_cell, run.names_of, p.unlisted);
    p.r = p.ex.tensors.empty() ? CheckReport{} : check_export(p.ex, run.all, nullptr);
  }
  return p;
}

// The chapter when it explains the program better than one lesson: more matches, in four lessons or more,
// and clean, or twice the matches when that lesson differs too (a chapter's program with a mistake: one
// lesson misplaces the other sections'). Clean here: no value taken at an earlier step with nothing after
// it either (the last value of a lesson's --py program, short of the chapter's later step of its name,
// says nothing of the chapter).
bool chapter_explains(const ChapterPlacement& p, const ChapterRun& run, const ChosenLesson& chosen) {
  int matched = 0;
  std::vector<int> per_lesson(run.starts.size(), 0);  // the matches in each lesson
  for (const TensorCheck& c : p.r.checks) {
    if (c.verdict != TensorCheck::Verdict::Match) continue;
    ++matched;
    ++per_lesson[run.lesson_of(c.expected)];
  }
  const bool chapter =
      matched > chosen.most && std::count_if(per_lesson.begin(), per_lesson.end(), [](int n) { return n >= 3; }) >= 4;
  const bool clean = p.r.ok() && std::none_of(p.r.checks.begin(), p.r.checks.end(), [](const TensorCheck& c) {
                       return c.elsewhere == TensorCheck::Elsewhere::Earlier && c.nothing_after;
                     });
  return chapter && (clean || (matched >= 2 * chosen.most && chosen.best->differing > 0));
}

// The chapter's timeline with lesson k's part rerun with mistake `w`, and the later parts up to lesson m
// rerun with the same mistake (`same[l]`: lesson l's rerun with it, nullptr: none); the other parts as they are.
WhatIf chapter_rerun(const CheckReport& rep, const ChapterRun& run, const WhatIf& w,
                     const std::vector<const WhatIf*>& same, size_t k, size_t m) {
  const auto append = [&](std::vector<Binding>& tl, const std::vector<Binding>& part, size_t l) {
    for (Binding b : part) {
      b.cell += run.base_cell[l];
      tl.push_back(std::move(b));
    }
  };
  WhatIf rerun = w;
  rerun.timeline.assign(rep.tool.begin(), rep.tool.begin() + run.starts[k].first);
  append(rerun.timeline, w.timeline, k);
  for (size_t l = k + 1; l < run.starts.size(); ++l) {
    if (l <= m && same[l])
      append(rerun.timeline, same[l]->timeline, l);
    else
      rerun.timeline.insert(rerun.timeline.end(), rep.tool.begin() + run.starts[l].first,
                            rep.tool.begin() + run.end_of(l));
  }
  return rerun;
}

// The first difference diagnosed with the mistakes of lesson k (the one it is in): the chapter's timeline
// with that lesson's part rerun with each (the others run apart, as in `all`), and also with every later
// lesson that can have the same mistake rerun with it (a class written once and used again: the chapter's
// CausalAttention in the wrapper), whichever gives more of the learner's later values.
std::vector<WhatIf> chapter_what_ifs(const CheckReport& rep, const ChapterRun& run, size_t k) {
  const TensorCheck& c = rep.checks[rep.first_divergence];
  const bool shapes_differ = rep.yours[rep.first_divergence].tensor.shape() != rep.tool[c.expected].tensor.shape();
  std::vector<std::vector<WhatIf>> later(run.starts.size());
  for (size_t l = k + 1; l < run.starts.size(); ++l)
    later[l] = mistake_what_ifs(run.starts[l].second->name, run.opt, shapes_differ);
  std::vector<WhatIf> what_ifs;
  for (const WhatIf& w : mistake_what_ifs(run.starts[k].second->name, run.opt, shapes_differ)) {
    std::vector<const WhatIf*> same(run.starts.size(), nullptr);  // each later lesson's rerun with w's mistake
    for (size_t l = k + 1; l < run.starts.size(); ++l)
      for (const WhatIf& o : later[l])
        if (!same[l] && o.mistake == w.mistake && o.detail.key == w.detail.key) same[l] = &o;
    for (size_t m = k; m < run.starts.size(); ++m)
      if (m == k || same[m]) what_ifs.push_back(chapter_rerun(rep, run, w, same, k, m));
  }
  return what_ifs;
}

}  // namespace

std::optional<CheckReport> check_chapter(const TraceDocument& trace, const std::string& source,
                                         const ChosenLesson& chosen) {
  const ChapterRun run = run_chapter(chapter_config(*chosen.best), source);
  const ChapterPlacement p = place_in_chapter(run, trace, source, *chosen.best);
  if (!p.in_sections && !chapter_explains(p, run, chosen)) return std::nullopt;
  size_t k = 0;  // the lesson of the first difference
  CheckReport report = check_export(p.ex, run.all, [&](const CheckReport& rep) {
    k = run.lesson_of(rep.checks[rep.first_divergence].expected);
    return chapter_what_ifs(rep, run, k);
  });
  report.lesson = "all";
  if (p.in_sections && p.plan.evidenced() < static_cast<int>(run.spans.size()))
    report.notes.push_back(text("check.traced.sections", {sections_text(p.plan, run.spans, true)}));
  else
    report.notes.push_back(text("check.traced.chapter", {std::to_string(run.starts.size())}));
  for (const Prose& n : p.section_notes) report.notes.push_back(n);
  if (!report.ok()) report.notes.push_back(text("check.traced.chapter-lesson", {run.starts[k].second->name}));
  if (p.unlisted > 0) report.notes.push_back(text("check.traced.unlisted", {std::to_string(p.unlisted)}));
  if (trace.truncated || trace.skipped > 0)
    report.notes.push_back(text("check.traced.truncated", {std::to_string(trace.skipped)}));
  return report;
}

}  // namespace attn
