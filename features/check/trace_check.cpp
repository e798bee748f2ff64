#include "features/check/trace_check.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "core/safe_text.h"
#include "core/usage_error.h"
#include "features/check/forward_check.h"
#include "features/check/evidence.h"
#include "features/check/own_masks.h"
#include "features/check/trace_export.h"
#include "features/check/replay.h"
#include "features/check/sections.h"
#include "lessons/cost_model.h"
#include "lessons/lesson.h"

namespace attn {

namespace {

using nlohmann::json;

// The module arguments that are the lesson's settings, by the config key they set.
std::string config_key_of(const std::string& arg) {
  static const std::vector<std::pair<std::string, std::string>> names = {{"d_out", "d_out"},
                                                                         {"num_heads", "num_heads"},
                                                                         {"n_heads", "num_heads"},
                                                                         {"dropout", "dropout"},
                                                                         {"context_length", "context_length"},
                                                                         {"qkv_bias", "qkv_bias"},
                                                                         {"num_kv_groups", "num_kv_groups"},
                                                                         {"n_kv_groups", "num_kv_groups"},
                                                                         {"latent_dim", "latent_dim"},
                                                                         {"window", "window"},
                                                                         {"window_size", "window"},
                                                                         {"sliding_window_size", "window"},
                                                                         {"num_hiddens", "num_hiddens"},
                                                                         {"d_model", "d_model"}};
  for (const auto& [from, to] : names)
    if (arg == from) return to;
  return "";
}

// The option whose config key is `key` (nullptr: none).
const OptionRow* option_of(const std::string& key) {
  for (const OptionRow& row : option_table())
    if (row.config_key() == key) return &row;
  return nullptr;
}

// Whether `lesson` takes the setting `key` (an option's config key).
bool lesson_takes(const LessonInfo& lesson, const std::string& key) {
  const OptionRow* row = option_of(key);
  return row && lesson.takes(*row);
}

// Whether `value` is the lesson's own default for the setting `key`: the lesson's default explains it (and
// says what it means there: d2l-mha's 0.5 is d2l's dropout in eval(), --dropout 0.5 would train).
bool equals_lesson_default(const LessonInfo& lesson, const std::string& key, double value) {
  const OptionRow* row = option_of(key);
  const std::string d = row ? lesson.default_value(row->flag) : "";
  char* end = nullptr;
  const double v = d.empty() ? 0.0 : std::strtod(d.c_str(), &end);
  return !d.empty() && end && *end == '\0' && v == value;
}

// The book's six embeddings, as every lesson's default inputs.
bool book_inputs(const Tensor& t) {
  const Tensor book = LessonOptions{}.inputs.embeddings;
  return tensors_close(t, book, 1e-7);
}

// A construction at Exercise 3.3's GPT-2 size (768 in and out, 12 heads, context 1024): mha's --gpt2 cell.
bool gpt2_exercise(const json& args) {
  const auto is = [&](const char* arg, int64_t v) {
    return args.contains(arg) && args[arg].is_number_integer() && args[arg].get<int64_t>() == v;
  };
  return is("d_in", 768) && is("d_out", 768) && is("context_length", 1024) && is("num_heads", 12);
}

// The settings the program used, for `lesson`: its modules' arguments (the last construction's), its
// seed (the first torch.manual_seed that is not one of the book's own 123 and 789), its `inputs`.
json settings_for(const LessonInfo& lesson, const TraceDocument& trace, const LearnerExport& probe,
                  const TraceChoices& choices) {
  json config = json::object();
  // Globals named as a setting first (code without a module class), then the modules' arguments.
  std::vector<std::pair<std::string, nlohmann::json>> sources = {{"", trace.settings}};
  sources.insert(sources.end(), trace.modules.begin(), trace.modules.end());
  static const json defaults = LessonOptions{}.config_json();  // a global equal to the default says nothing
  for (const auto& [cls, args] : sources) {
    if (!cls.empty() && lesson_takes(lesson, "gpt2") && gpt2_exercise(args)) {  // its own cell, not the settings
      config["gpt2"] = true;
      continue;
    }
    for (const auto& [arg, value] : args.items()) {
      const std::string key = config_key_of(arg);
      if (key.empty() || !lesson_takes(lesson, key) || value.is_null() || value.is_string()) continue;
      if (cls.empty() && defaults.contains(key) && defaults[key] == value) continue;
      if (value.is_number() && equals_lesson_default(lesson, key, value.get<double>())) continue;
      if (key == "dropout" && !value.is_number()) continue;
      config[key] = value;
    }
  }
  if (config.contains("context_length") && config["context_length"].is_number_integer() &&
      config["context_length"].get<int64_t>() < 2)
    config.erase("context_length");
  std::optional<std::string> seed = choices.seed;
  if (!seed)
    for (const std::string& s : trace.seeds)
      if (s != "123" && s != "789") {
        seed = s;
        break;
      }
  if (seed) config["seed"] = *seed;
  for (const LearnerTensor& t : probe.tensors)
    if (t.name == "inputs" && t.tensor.dim() == 2) {
      if (!book_inputs(t.tensor)) {
        json rows = json::array();
        const std::vector<float> v = t.tensor.values();
        const int64_t cols = t.tensor.shape()[1];
        for (int64_t r = 0; r < t.tensor.shape()[0]; ++r)
          rows.push_back(std::vector<float>(v.begin() + r * cols, v.begin() + (r + 1) * cols));
        config["inputs_data"] = rows;
      }
      break;
    }
  return config;
}

// "d_out 4, num_heads 2, seed 5" (or the book's settings).
std::string settings_text(const json& config) {
  std::string out;
  for (const auto& [key, value] : config.items()) {
    if (key == "inputs_data") {
      out += std::string(out.empty() ? "" : ", ") + "inputs " + std::to_string(value.size()) + "x" +
             std::to_string(value.empty() ? 0 : value[0].size());
      continue;
    }
    out += (out.empty() ? "" : ", ") + key + " " + (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return out;
}

// The chapter's values in sections by the cell export_for placed them in: a value placed in a lesson's cell
// starts (or continues) that lesson's section, the values without a place belong to the section they are in;
// a value under a name its section's lesson does not have is not that lesson's (a class's `context_vec` in
// 3.4.2 is not 3.5's).
std::vector<LearnerTensor> by_cell_sections(const std::vector<LearnerTensor>& tensors,
                                            const std::vector<int>& base_cell,
                                            const std::vector<std::set<std::string>>& names_of, int& unlisted) {
  std::vector<LearnerTensor> kept;
  size_t k = 0;
  for (const LearnerTensor& t : tensors) {
    if (t.cell) {
      size_t at = 0;
      while (at + 1 < base_cell.size() && base_cell[at + 1] < *t.cell) ++at;
      k = at;
    }
    if (names_of[k].count(t.name))
      kept.push_back(t);
    else
      ++unlisted;
  }
  return kept;
}

// The lesson whose span holds the timeline entry `entry` ("" : none).
std::string lesson_at(const std::vector<LessonSpan>& spans, int entry) {
  for (const LessonSpan& s : spans)
    if (entry >= s.begin && entry < s.end) return s.lesson;
  return "";
}

// "naive-scores (§3.3.1, 3.3.2), trainable (§3.4.1, 3.4.2)": the plan's sections the program computes
// (`evidenced`) or those it does not.
std::string sections_text(const SectionPlan& plan, const std::vector<LessonSpan>& spans, bool evidenced) {
  std::string out;
  for (const Section& s : plan.sections) {
    if (s.evidenced() != evidenced) continue;
    const LessonInfo* l = find_lesson(spans[s.span].lesson);
    std::string where;
    for (const std::string& sec : l->sections) where += (where.empty() ? "§" : ", ") + sec;
    out += (out.empty() ? "" : ", ") + l->name + (where.empty() ? "" : " (" + where + ")");
  }
  return out;
}

// The chapter's values by the plan's sections: each where the plan placed it (its entry, its cell), kept when
// its section is one the program computes and its lesson has its name; the sections found but not computed
// told in `notes` with the names they hold.
std::vector<LearnerTensor> section_tensors(const std::vector<LearnerTensor>& tensors, const SectionPlan& plan,
                                           const std::vector<LessonSpan>& spans,
                                           const std::vector<std::set<std::string>>& names_of,
                                           const std::vector<Binding>& timeline, int& unlisted,
                                           std::vector<Prose>& notes) {
  std::vector<LearnerTensor> kept;
  std::vector<std::set<std::string>> unchecked(plan.sections.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const int s = plan.section_of[i];
    if (s < 0 || !names_of[plan.sections[s].span].count(tensors[i].name)) {
      ++unlisted;
      continue;
    }
    if (!plan.sections[s].evidenced()) {
      if (unchecked[s].size() < 6) unchecked[s].insert(echo(tensors[i].name));
      continue;
    }
    kept.push_back(tensors[i]);
    if (plan.entry[i] >= 0) {
      kept.back().point = plan.entry[i];
      kept.back().cell = timeline[plan.entry[i]].cell;
    }
  }
  for (size_t s = 0; s < plan.sections.size(); ++s) {
    if (plan.sections[s].evidenced() || unchecked[s].empty()) continue;
    std::string names;
    for (const std::string& n : unchecked[s]) names += (names.empty() ? "" : ", ") + n;
    notes.push_back(text("check.traced.section-unchecked", {spans[plan.sections[s].span].lesson, names}));
  }
  return kept;
}

struct Candidate {
  const LessonInfo* lesson = nullptr;
  LearnerExport ex;
  int matched = 0, differing = 0, unlisted = 0;
  int reshaped = 0;   // differing tensors whose shape is not the lesson's
  int furthest = -1;  // the program's last module-level tensor the lesson places (an index into the trace's events)
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

}  // namespace

CheckReport check_trace(const TraceDocument& trace, const std::string& source, const TraceChoices& choices) {
  std::set<std::string> bound;
  for (const TraceEvent& e : trace.events) {
    bound.insert(e.name);
    if (!e.owner.empty() && e.name.size() > e.owner.size()) bound.insert(e.name.substr(e.owner.size() + 1));
  }
  if (!choices.lesson.empty() && !find_lesson(choices.lesson)) {
    std::string names;
    for (const LessonInfo& l : lessons()) names += (names.empty() ? "" : ", ") + l.name;
    throw UsageError(error_text("check.err.trace-lesson", {echo(choices.lesson), names}));
  }
  // Each candidate lesson run once with the settings the program used for it; the one whose replay
  // matches the most of the program's tensors is the lesson (fewer differences, then the registry's order).
  std::vector<Candidate> candidates;
  std::optional<UsageError> given_failed;
  for (const LessonInfo& lesson : lessons()) {
    if (!choices.lesson.empty() && lesson.name != choices.lesson) continue;
    bool any = false;
    for (const std::string& n : lesson.exports) any = any || bound.count(n);
    if (!any && choices.lesson.empty()) continue;
    try {
      int unused = 0;
      LearnerExport probe;  // the program's `inputs`, when it binds one
      if (bound.count("inputs")) probe = export_for(trace, source, lesson.name, {"inputs"}, json::object(), unused);
      auto evaluate = [&](const json& config) {
        Candidate c{&lesson, {}, 0, 0, 0};
        LearnerExport settings{source, lesson.name, config, {}, {}};
        const LessonOptions opt = replay_options(settings);
        require_affordable(lesson.name, opt, false, "config.",
                           1.0 + static_cast<double>(mistake_rerun_count(lesson.name, opt)), "check " + source);
        const Notebook nb = lesson.run(opt);
        c.ex =
            export_for(trace, source, lesson.name, timeline_names(nb), config, c.unlisted, &nb.timeline(), &c.furthest);
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
      };
      const json config = settings_for(lesson, trace, probe, choices);
      Candidate c = evaluate(config);
      // A module's dropout of 0 that the lesson's own default explains as well (the dropout lesson shows
      // nn.Dropout(0.5) unless --dropout says otherwise; its CausalAttention takes 0.0). A nonzero rate is
      // kept: the program declared it (a module left in eval mode is a mistake to name).
      if (config.contains("dropout") && config["dropout"].is_number() && config["dropout"].get<double>() == 0.0) {
        json without = config;
        without.erase("dropout");
        Candidate d = evaluate(without);
        if (!d.ex.tensors.empty() && d.differing <= c.differing && d.matched >= c.matched) c = std::move(d);
      }
      // A seed of the program's own beside the book's (torch.manual_seed(42) before its dropout cells only):
      // the lesson with the book's seeds as well, kept when it explains as much (its masks: own_masks.h).
      const bool book_seed_too = std::any_of(trace.seeds.begin(), trace.seeds.end(),
                                             [](const std::string& s) { return s == "123" || s == "789"; });
      if (!choices.seed && c.ex.config.contains("seed") && book_seed_too) {
        json without = c.ex.config;
        without.erase("seed");
        Candidate d = evaluate(without);
        if (!d.ex.tensors.empty() && d.differing <= c.differing && d.matched >= c.matched) c = std::move(d);
      }
      if (c.ex.tensors.empty()) continue;
      candidates.push_back(std::move(c));
    } catch (const UsageError& e) {
      if (!choices.lesson.empty()) throw;
    }
  }
  if (candidates.empty() && choices.lesson.empty()) {
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
  if (candidates.empty() && bound.empty())  // nothing ran that makes a tensor: a class or function never called
    throw UsageError(error_text("check.err.trace-no-tensors", {source}));
  if (candidates.empty()) {
    std::string names;
    for (const std::string& n : bound) {
      if (names.size() > 200) {
        names += ", ...";
        break;
      }
      names += (names.empty() ? "" : ", ") + echo(n);
    }
    throw UsageError(error_text(choices.lesson.empty() ? "check.err.trace-no-lesson" : "check.err.trace-no-names",
                                {source, names.empty() ? std::string("-") : names, choices.lesson}));
  }
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
  std::vector<Prose> notes;
  // A program that covers the chapter (a whole ch03 notebook): the chapter's lessons one after the other, as
  // `all` runs them, when that matches more of its tensors; a difference is then checked (and diagnosed)
  // against the lesson it is in.
  int chapter_lessons = 0;
  for (const Candidate& c : candidates) chapter_lessons += c.lesson->in_chapter();
  if (choices.lesson.empty() && chapter_lessons >= 2) {
    json config = json::object();  // the seed and the inputs; each lesson its own defaults, as in `all`
    for (const char* key : {"seed", "inputs_data"})
      if (best->ex.config.contains(key)) config[key] = best->ex.config[key];
    const LessonOptions opt = replay_options(LearnerExport{source, "all", config, {}, {}});
    Notebook all("all", {}, opt.config_json(), opt.inputs.tokens);
    std::vector<std::pair<int, const LessonInfo*>> starts;  // where each lesson's timeline starts
    std::vector<int> base_cell;                             // and the cell after which its cells come
    std::vector<std::set<std::string>> names_of;            // and its names
    for (const LessonInfo& l : lessons())
      if (l.in_chapter()) {
        starts.push_back({static_cast<int>(all.timeline().size()), &l});
        const Notebook nb = l.run(opt);
        names_of.push_back(timeline_names(nb));
        all.append(nb);
        base_cell.push_back(all.appended_after().back());
      }
    int unlisted = 0;
    LearnerExport ex = export_for(trace, source, "all", timeline_names(all), config, unlisted, &all.timeline());
    // Stage "sections": the lessons the program computes, its values placed along them (sections.h).
    std::vector<LessonSpan> spans;
    for (size_t k = 0; k < starts.size(); ++k)
      spans.push_back({starts[k].second->name, starts[k].first,
                       k + 1 < starts.size() ? starts[k + 1].first : static_cast<int>(all.timeline().size())});
    const SectionPlan plan = find_sections(all.timeline(), spans, ex.tensors);
    // Sections when two or more are computed, they place as many of the program's values as the one lesson
    // compares (and, for a lesson after the chapter, match more of them).
    int placed = 0, equal = 0;
    for (const Section& s : plan.sections)
      if (s.evidenced()) placed += s.placed, equal += s.equal;
    bool in_sections = plan.evidenced() >= 2 && placed >= best->matched + best->differing &&
                       (best->lesson->in_chapter() || equal > best->matched);
    std::vector<Prose> section_notes;
    const std::vector<LearnerTensor> all_tensors = ex.tensors;
    const int unlisted_before = unlisted;
    if (in_sections)
      ex.tensors = section_tensors(all_tensors, plan, spans, names_of, all.timeline(), unlisted, section_notes);
    CheckReport r = !in_sections || ex.tensors.empty() ? CheckReport{} : check_export(ex, all, nullptr);
    // A program the one lesson explains without a difference keeps its report unless its sections find one
    // (a lesson's --py program sets up the section before it; a right §3.4 beside a wrong §3.3 is no ✓).
    if (in_sections && best->differing == 0 && r.ok()) in_sections = false;
    // Nor when the sections' first difference is in that lesson too: its own report says it (its forwards'
    // steps and its diagnosis), the sections before it only the setup it recomputes.
    if (in_sections && !r.ok() && lesson_at(spans, r.checks[r.first_divergence].expected) == best->lesson->name &&
        same_first_difference(r, *best))
      in_sections = false;
    if (!in_sections) {
      unlisted = unlisted_before;
      ex.tensors = by_cell_sections(all_tensors, base_cell, names_of, unlisted);
      r = ex.tensors.empty() ? CheckReport{} : check_export(ex, all, nullptr);
    }
    int matched = 0;
    std::vector<int> per_lesson(starts.size(), 0);  // the matches in each lesson
    for (const TensorCheck& c : r.checks) {
      if (c.verdict != TensorCheck::Verdict::Match) continue;
      ++matched;
      size_t k = 0;
      while (k + 1 < starts.size() && starts[k + 1].first <= c.expected) ++k;
      ++per_lesson[k];
    }
    // More matches than one lesson, and in four lessons or more: the program is about the chapter.
    const bool chapter =
        matched > most && std::count_if(per_lesson.begin(), per_lesson.end(), [](int n) { return n >= 3; }) >= 4;
    // The chapter when it explains the program better than one lesson: clean, or twice the matches when
    // that lesson differs too (a chapter's program with a mistake: one lesson misplaces the other sections').
    // Clean here: no value taken at an earlier step with nothing after it either (the last value of a
    // lesson's --py program, short of the chapter's later step of its name, says nothing of the chapter).
    const bool clean = r.ok() && std::none_of(r.checks.begin(), r.checks.end(), [](const TensorCheck& c) {
                         return c.elsewhere == TensorCheck::Elsewhere::Earlier && c.nothing_after;
                       });
    if (in_sections || (chapter && (clean || (matched >= 2 * most && best->differing > 0)))) {
      // Its first difference diagnosed with the mistakes of the lesson it is in: the chapter's timeline
      // with that lesson's part rerun with each (the others run apart, as in `all`), and also with every
      // later lesson that can have the same mistake rerun with it (a class written once and used again:
      // the chapter's CausalAttention in the wrapper), whichever gives more of the learner's later values.
      size_t k = 0;
      CheckReport report = check_export(ex, all, [&](const CheckReport& rep) {
        const TensorCheck& c = rep.checks[rep.first_divergence];
        while (k + 1 < starts.size() && starts[k + 1].first <= c.expected) ++k;
        const auto end_of = [&](size_t l) {
          return l + 1 < starts.size() ? starts[l + 1].first : static_cast<int>(rep.tool.size());
        };
        const bool shapes_differ =
            rep.yours[rep.first_divergence].tensor.shape() != rep.tool[c.expected].tensor.shape();
        const auto append = [&](std::vector<Binding>& tl, const std::vector<Binding>& part, size_t l) {
          for (Binding b : part) {
            b.cell += base_cell[l];
            tl.push_back(std::move(b));
          }
        };
        std::vector<std::vector<WhatIf>> later(starts.size());
        for (size_t l = k + 1; l < starts.size(); ++l)
          later[l] = mistake_what_ifs(starts[l].second->name, opt, shapes_differ);
        std::vector<WhatIf> what_ifs;
        for (const WhatIf& w : mistake_what_ifs(starts[k].second->name, opt, shapes_differ)) {
          // Each later lesson's rerun with the same mistake (none: the lesson as it is).
          std::vector<const WhatIf*> same(starts.size(), nullptr);
          for (size_t l = k + 1; l < starts.size(); ++l)
            for (const WhatIf& o : later[l])
              if (!same[l] && o.mistake == w.mistake && o.detail.key == w.detail.key) same[l] = &o;
          // The mistake in lesson k's part, and in the later parts up to lesson m that can have it, for each m.
          for (size_t m = k; m < starts.size(); ++m) {
            if (m > k && !same[m]) continue;
            WhatIf rerun = w;
            rerun.timeline.assign(rep.tool.begin(), rep.tool.begin() + starts[k].first);
            append(rerun.timeline, w.timeline, k);
            for (size_t l = k + 1; l < starts.size(); ++l) {
              if (l <= m && same[l])
                append(rerun.timeline, same[l]->timeline, l);
              else
                rerun.timeline.insert(rerun.timeline.end(), rep.tool.begin() + starts[l].first,
                                      rep.tool.begin() + end_of(l));
            }
            what_ifs.push_back(std::move(rerun));
          }
        }
        return what_ifs;
      });
      report.lesson = "all";
      if (in_sections && plan.evidenced() < static_cast<int>(spans.size())) {
        report.notes.push_back(text("check.traced.sections", {sections_text(plan, spans, true)}));
        for (const Prose& n : section_notes) report.notes.push_back(n);
      } else {
        report.notes.push_back(text("check.traced.chapter", {std::to_string(starts.size())}));
        for (const Prose& n : section_notes) report.notes.push_back(n);
      }
      if (!report.ok()) report.notes.push_back(text("check.traced.chapter-lesson", {starts[k].second->name}));
      if (unlisted > 0) report.notes.push_back(text("check.traced.unlisted", {std::to_string(unlisted)}));
      if (trace.truncated || trace.skipped > 0)
        report.notes.push_back(text("check.traced.truncated", {std::to_string(trace.skipped)}));
      return report;
    }
  }
  // The chosen lesson's full check: with the diagnosis (as check_file does for an export).
  LessonOptions opt = replay_options(best->ex);
  Notebook nb = best->lesson->run(opt);
  const auto what_ifs = [&](const CheckReport& r) {
    const TensorCheck& c = r.checks[r.first_divergence];
    const bool shapes_differ = r.yours[r.first_divergence].tensor.shape() != r.tool[c.expected].tensor.shape();
    return with_forward_steps(mistake_what_ifs(best->lesson->name, opt, shapes_differ));
  };
  // The forwards the lesson runs inside a cell, with the program's calls of them (stage "forward").
  const auto compare_with = [&](const Notebook& n, const std::function<std::vector<WhatIf>(const CheckReport&)>& w) {
    const std::vector<LessonForward> forwards = lesson_forwards(n.timeline(), n.inside_values());
    return check_export(with_forward_tensors(best->ex, trace, n.timeline(), forwards), n,
                        with_forward_steps(n.timeline(), forwards), w);
  };
  CheckReport report = compare_with(nb, what_ifs);
  // Evidence before a verdict: a ✗ only for a program that computes the lesson.
  if (!report.ok() && choices.lesson.empty() && !computes_lesson(report, trace)) {
    const TensorCheck& c = report.checks[report.first_divergence];
    const LearnerTensor& y = report.yours[report.first_divergence];
    const Shape& theirs = report.tool[c.expected].tensor.shape();
    throw UsageError(
        error_text(theirs == y.tensor.shape() ? "check.err.trace-no-evidence-values" : "check.err.trace-no-evidence",
                   {source, best->lesson->name, echo(y.name), shape_text(y.tensor.shape()), shape_text(theirs)}));
  }
  // Stage "own masks": a dropout another generator drew is no mistake; compared on under the learner's masks.
  if (!report.ok() && report.diagnoses.empty() &&
      own_masks_affordable(estimate_lesson_cost(best->lesson->name, opt, false).seconds,
                           static_cast<double>(mistake_rerun_count(best->lesson->name, opt)))) {
    const OwnMasks own = find_own_masks(
        report, opt, [&](const LessonOptions& o) { return compare_with(best->lesson->run(o), nullptr); });
    if (!own.names.empty()) {
      opt = own.opt;
      nb = best->lesson->run(opt);
      report = compare_with(nb, what_ifs);
      notes.push_back(own_masks_note(report));
    } else if (const int unseen = unseen_dropout_before(report); unseen >= 0) {
      throw unseen_dropout_error(report, unseen, source);
    }
  }
  // A ✓ on the setup alone (the mask, the inputs) while the program's steps are under names of its own says
  // nothing of its attention: one line instead.
  if (report.ok() && choices.lesson.empty() && best->unlisted > 0 && !compares_a_step(report))
    throw UsageError(error_text("check.err.trace-unnamed-steps",
                                {source, best->lesson->name, unnamed_tensors(trace, timeline_names(nb))}));
  int left_out = best->unlisted;
  // A difference no known mistake explains at a step inside the program's functions (a step the lesson
  // does not have: dropout on the scores): its module-level values, as its export holds them, when a
  // known mistake explains those.
  if (!report.ok() && report.diagnoses.empty() && choices.lesson.empty()) {
    int unlisted = 0;
    const LearnerExport outside = export_for(trace, source, best->lesson->name, timeline_names(nb), best->ex.config,
                                             unlisted, &nb.timeline(), nullptr, true);
    if (!outside.tensors.empty() && outside.tensors.size() < best->ex.tensors.size()) {
      CheckReport r = check_export(outside, nb, what_ifs);
      if (!r.ok() && !r.diagnoses.empty()) {
        report = std::move(r);
        left_out = unlisted;
      }
    }
  }
  const std::string settings = settings_text(best->ex.config);
  report.notes.push_back(
      text(choices.lesson.empty() ? "check.traced.inferred" : "check.traced.given",
           {best->lesson->name, settings.empty() ? text("check.traced.book-settings") : Prose(settings)}));
  for (const Prose& n : notes) report.notes.push_back(n);
  if (left_out > 0) report.notes.push_back(text("check.traced.unlisted", {std::to_string(left_out)}));
  if (trace.truncated || trace.skipped > 0)
    report.notes.push_back(text("check.traced.truncated", {std::to_string(trace.skipped)}));
  return report;
}

}  // namespace attn
