#pragma once
// Stage "forward" of a traced program's check: the forwards a lesson runs inside one printed output
// (print(sa_v2(inputs)): SelfAttention_v1's and _v2's steps, Notebook::inside_values()) have no name in
// the lesson's timeline, so the program's calls of them are compared here. A call of the program's
// `forward` whose locals hold the lesson's keys, queries and values of one such forward (whatever their
// names) is that forward; each of its later steps is checked as "STEP in OUTPUT" ("attn_weights in
// sa_v2(inputs)"), placed in the timeline checked just before the cell that shows the output.
#include <string>
#include <vector>

#include "features/check/learner_export.h"
#include "features/check/trace_check.h"
#include "notebook/notebook.h"

namespace attn {

// One forward the lesson runs inside a cell: its steps in compute order and the output that cell shows.
struct LessonForward {
  int cell = 0;
  std::string output;  // "sa_v2(inputs)"
  std::vector<Binding> steps;
};

// The lesson's inside forwards: `inside` in runs of one cell, each named by the value `timeline` shows there.
std::vector<LessonForward> lesson_forwards(const std::vector<Binding>& timeline, const std::vector<Binding>& inside);

// `timeline` with each forward's steps put in before the first entry of its cell or a later one, each named
// "STEP in OUTPUT"; `moved`, when given, gets each old entry's new index.
std::vector<Binding> with_forward_steps(const std::vector<Binding>& timeline,
                                        const std::vector<LessonForward>& forwards, std::vector<int>* moved = nullptr);

// The program's calls matched to `forwards` (in the program's order, each forward at most once, never an
// earlier one than the last matched): their steps as learner tensors with their points in
// with_forward_steps(timeline, forwards) and their origins, and the lines of the calls' locals. A step of
// which the call holds several values, none the lesson's, is an intermediate form: not checked.
struct ForwardMatch {
  std::vector<LearnerTensor> tensors;
  std::vector<TensorOrigin> locals;  // every local of a matched call: checked here, not as a name of the timeline
};
ForwardMatch forward_tensors(const TraceDocument& trace, const std::string& source,
                             const std::vector<Binding>& timeline, const std::vector<LessonForward>& forwards);

// The export checked with the forwards: `ex`'s points moved to with_forward_steps(timeline, forwards), its
// tensors bound by a matched call's locals left out (sa_v1's keys equal 3.4.1's keys, but they are sa_v1's),
// the forward_tensors() put in among them by their points.
LearnerExport with_forward_tensors(const LearnerExport& ex, const TraceDocument& trace,
                                   const std::vector<Binding>& timeline, const std::vector<LessonForward>& forwards);

// Each rerun's timeline with its own forwards' steps put in the same way.
std::vector<WhatIf> with_forward_steps(std::vector<WhatIf> what_ifs);

}  // namespace attn
