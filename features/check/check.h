#pragma once
// `attn-tutor check`: a learner's tensors against the values the lesson's names take, each at its point
// in the program, and a diagnosis when a known mistake, rerun, gives the learner's numbers.
#include <functional>
#include <string>
#include <vector>

#include "features/check/equivalent_forms.h"
#include "features/check/learner_export.h"
#include "lessons/mistakes.h"
#include "notebook/notebook.h"

namespace attn {

// The mistakes it can name: one table, lessons/mistakes.h (known_mistakes(), mistake(id), find_mistake(name)).

// The lesson rerun with one mistake (or other settings): every value its names take.
struct WhatIf {
  MistakeId mistake;
  Prose detail;  // what exactly was rerun: a key check.detail.* of features/check/mistakes.txt with its values
  std::vector<Binding> timeline;
  std::vector<Binding> inside;  // the steps of the forwards it runs inside a cell (Notebook::inside_values())
};

// Within 1e-5 (relative above 1): the learner's PyTorch may sum in another order. Equal infinities
// and NaN against NaN match. A diagnosis asks for 1e-6.
bool values_close(float learner, float tool, double tolerance = 1e-5);
bool tensors_close(const Tensor& learner, const Tensor& tool, double tolerance = 1e-5);

// The timeline entry each learner tensor is compared with: the value its name has at the tensor's point.
// The file's order is the program's: going back from the last tensor, each takes the latest binding of its
// name (of its shape, when one has it) not after the next tensor's; an in-place change of that binding's
// object is part of its value, as it is of an exported reference. A tensor's "cell" overrides its order.
// -1 for a name the timeline does not have.
std::vector<int> learner_points(const std::vector<LearnerTensor>& yours, const std::vector<Binding>& timeline);

// Whether a timeline entry's code is a print(...) line (indented or not) or a whole cell: where the lesson
// records a value, not a step that computes it.
bool is_print_line(const std::string& code);

struct TensorCheck {
  enum class Verdict { Match, Differs, NotInLesson };
  // When the tensor is another value of its name than the one at its point: a later one (it was exported
  // later than its place in the file: a match); an earlier one with nothing exported after it saying
  // otherwise (no later tensor differs: taken there on purpose, a match); or an earlier one, the entry
  // just before its point, with the next tensor differing (stale: the step after it never reached it) or
  // matching while a later one differs (unsure). Stale and unsure are claimed only of a step that changes
  // the name (not a print line) and that no known mistake gives the value at (else a plain difference).
  enum class Elsewhere { None, Later, Earlier, Stale, Unsure };
  Verdict verdict = Verdict::NotInLesson;
  Elsewhere elsewhere = Elsewhere::None;
  int expected = -1;           // the timeline entry at the tensor's point
  int other = -1;              // the timeline entry of the same name it equals, when not `expected`
  bool next_step = false;      // `other` earlier, and `expected` the next entry of the name after it
  bool nothing_after = false;  // Earlier: no tensor exported after its point
  int64_t differing = 0;       // values that differ (all of them when the shapes differ)
  int64_t first_diff = -1;     // row-major index of the first
  double max_diff = 0.0;       // largest |yours - lesson's| (inf when one side is inf or nan)
  Form form = Form::Same;      // a match in another form of the step (equivalent_forms.h)
};

struct Diagnosis {
  const Mistake* mistake = nullptr;
  Prose detail;           // the WhatIf's
  bool at_point = false;  // its rerun gives the first difference at the tensor's own point
};

struct CheckReport {
  std::string source, lesson;
  std::vector<LearnerTensor> yours;
  std::vector<Binding> tool;         // the lesson's timeline, replayed with the export's settings
  std::vector<std::string> cells;    // the lesson's code by cell: cells[n] is In [n]
  std::vector<TensorCheck> checks;   // one per learner tensor, in the file's order
  int first_divergence = -1;         // the differing tensor first in compute order (index into checks)
  std::vector<Diagnosis> diagnoses;  // the known mistakes that give it (more than one: several fit)
  std::vector<int> not_reproduced;   // later differing tensors the first diagnosis does not give
  std::vector<Prose> notes;          // under the header: what a traced program's check inferred (trace_check.h)
  bool ok() const { return first_divergence < 0; }
};

// Compares every learner tensor with the lesson's value at its point. On a difference, `what_ifs`
// (called once, with the report so far) supplies the lesson rerun with each known mistake. Throws
// UsageError when no name is one of the lesson's.
CheckReport check_export(const LearnerExport& ex, const Notebook& tool,
                         const std::function<std::vector<WhatIf>(const CheckReport&)>& what_ifs);
// The same against `timeline` in place of the lesson's own (its cells and code still the lesson's): the
// lesson's timeline with more of its steps in it (features/check/forward_check.h).
CheckReport check_export(const LearnerExport& ex, const Notebook& tool, const std::vector<Binding>& timeline,
                         const std::function<std::vector<WhatIf>(const CheckReport&)>& what_ifs);

}  // namespace attn
