#pragma once
// `attn-tutor check`: a learner's tensors against the lesson's own, name by name, and a diagnosis when
// a known mistake, recomputed, gives the learner's numbers.
#include <functional>
#include <string>
#include <vector>

#include "features/check/learner_export.h"
#include "notebook/notebook.h"

namespace attn {

// A mistake learners make in chapter 3: what it does and the fix.
struct Mistake {
  std::string id;     // also the fixture's name: tests/fixtures/mistakes/<id>.json
  std::string title;
  std::string explanation;
  std::string fix;
};
const std::vector<Mistake>& known_mistakes();
const Mistake* find_mistake(const std::string& id);

// A lesson's tensors recomputed with one mistake, named as the lesson names them.
struct WhatIf {
  std::string mistake;  // a known_mistakes() id
  std::string detail;   // what exactly was recomputed, e.g. "softmax(..., dim=1)"
  std::vector<NamedTensor> tensors;
};

// Within 1e-5 (relative above 1): the learner's PyTorch may sum in another order. Equal infinities
// and NaN against NaN match.
bool values_close(float learner, float tool);
bool tensors_close(const Tensor& learner, const Tensor& tool);

struct TensorCheck {
  enum class Verdict { Match, Differs, NotInLesson };
  Verdict verdict = Verdict::NotInLesson;
  int tool_index = -1;     // the lesson's tensor it equals or is compared with (index into tool)
  int64_t differing = 0;   // values that differ (all of them when the shapes differ)
  int64_t first_diff = -1; // row-major index of the first
  double max_diff = 0.0;   // largest |yours - lesson's| (inf when one side is inf or nan)
};

struct CheckReport {
  std::string source, lesson;
  std::vector<LearnerTensor> yours;
  std::vector<NamedTensor> tool;      // the lesson's tensors, replayed with the export's settings
  std::vector<TensorCheck> checks;    // one per learner tensor, in the file's order
  int first_divergence = -1;          // index into checks, -1 when everything matches
  const Mistake* mistake = nullptr;   // the diagnosis, when a known mistake gives your numbers
  std::string detail;                 // the WhatIf's detail
  int diagnosed = -1;                 // the tensor the diagnosis was found in (index into checks)
  bool ok() const { return first_divergence < 0; }
};

// Compares every learner tensor with the lesson's tensors of the same name (one equal occurrence is
// enough: the notebook rebinds some names). On a difference, `what_ifs` (called once) supplies the
// lesson recomputed with each known mistake. Throws UsageError when no name is one of the lesson's.
CheckReport check_export(const LearnerExport& ex, const Notebook& tool,
                         const std::function<std::vector<WhatIf>()>& what_ifs);

}  // namespace attn
