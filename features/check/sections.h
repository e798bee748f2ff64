#pragma once
// Stage "sections" of a traced program's check: which of the chapter's lessons (the book's sections) the
// program computes. Its values, in the program's order, are placed along the chapter's lessons one after the
// other (a value equal to the lesson's value of its name weighs most, one of its name and shape less, each
// change of lesson costs), so that a §3.3 loop and a §3.4 cell under the same names are two sections.
#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "features/check/learner_export.h"
#include "notebook/notebook.h"

namespace attn {

// One lesson's part of a chapter timeline: its entries [begin, end).
struct LessonSpan {
  std::string lesson;
  int begin = 0, end = 0;
};

struct Section {
  size_t span = 0;             // index into the spans
  std::vector<size_t> values;  // the program's values in it (indices), in the program's order
  int placed = 0;              // placed at an entry of their name and shape (equal or not)
  // Of the program's own values (not a step inside a call it made): those equal to the lesson's value where
  // they are placed, and of those the values the lesson computes (not its given `inputs` or `batch`); those
  // placed that the lesson computes.
  int equal = 0, equal_steps = 0, placed_steps = 0;
  // The program computes this lesson: a value it computes equals the lesson's, or its given input does and
  // a step of the lesson's follows under the lesson's name and shape.
  bool evidenced() const { return equal_steps > 0 || (equal > 0 && placed_steps > 0); }
};

struct SectionPlan {
  std::vector<int> entry;         // per value: the timeline entry it is placed at (-1: none)
  std::vector<int> section_of;    // per value: its section (an index into sections; -1: before the first)
  std::vector<Section> sections;  // in the program's order (a lesson met again is a section again)
  int evidenced() const;          // how many sections are
};

// Whether `name` is a lesson's given input rather than a step it computes.
bool is_given_input(const std::string& name);

// The plan of `values` (the program's tensors with the chapter's names, in its order) over `timeline` (the
// chapter's lessons one after the other, each lesson's entries one of `spans`).
SectionPlan find_sections(const std::vector<Binding>& timeline, const std::vector<LessonSpan>& spans,
                          const std::vector<LearnerTensor>& values);

// The chapter's values in sections by the cell export_for placed them in (`base_cell`: the cell after which
// each lesson's cells come; `names_of`: each lesson's names); the values under a name their section's
// lesson does not have counted in `unlisted`.
std::vector<LearnerTensor> by_cell_sections(const std::vector<LearnerTensor>& tensors,
                                            const std::vector<int>& base_cell,
                                            const std::vector<std::set<std::string>>& names_of, int& unlisted);

// The lesson whose span holds the timeline entry `entry` ("" : none).
std::string lesson_at(const std::vector<LessonSpan>& spans, int entry);

// "naive-scores (§3.3.1, 3.3.2), trainable (§3.4.1, 3.4.2)": the plan's sections the program computes
// (`evidenced`) or those it does not.
std::string sections_text(const SectionPlan& plan, const std::vector<LessonSpan>& spans, bool evidenced);

// The chapter's values by the plan's sections, each placed where the plan put it; the sections found but
// not computed told in `notes` with the names they hold.
std::vector<LearnerTensor> section_tensors(const std::vector<LearnerTensor>& tensors, const SectionPlan& plan,
                                           const std::vector<LessonSpan>& spans,
                                           const std::vector<std::set<std::string>>& names_of,
                                           const std::vector<Binding>& timeline, int& unlisted,
                                           std::vector<Prose>& notes);

}  // namespace attn
