#pragma once
// Stage "own masks" of a check: a dropout that the learner's machine drew with another generator (CUDA's,
// Apple's MPS, another seed): every entry of the learner's tensor is 0 or the lesson's value / (1 - p), at
// other positions than the book's. Not a mistake: the lesson is rerun with the learner's keep masks
// (Variant::own_masks), so that the tensors after it are compared under the same masks.
#include <functional>
#include <string>
#include <vector>

#include "core/usage_error.h"
#include "features/check/check.h"
#include "lessons/lesson.h"

namespace attn {

// How many dropouts of a program the stage takes the masks of at most (one rerun each).
constexpr int kMaxOwnMasks = 4;

struct OwnMasks {
  LessonOptions opt;               // the lesson's options with the learner's keep masks
  std::vector<std::string> names;  // the learner's tensors whose masks were taken, in the lesson's order
};

// Whether a lesson's step is a dropout: its code calls dropout (nn.Dropout, F.dropout, self.dropout).
bool is_dropout_step(const std::string& code);

// The learner's 0/1 keep mask of a dropout's output: 1 where an entry is not 0.
Tensor keep_mask_of(const Tensor& dropped);

// Takes the learner's mask of `r`'s first differing tensor while that is a dropout step's value (of the
// step's shape, no mask of that shape taken yet), and keeps it when `recheck` (the lesson rerun with the
// options so far, compared without a diagnosis) then gives the learner's tensor there; then the next first
// difference, at most kMaxOwnMasks times. `names` is empty when no mask was taken.
OwnMasks find_own_masks(const CheckReport& r, const LessonOptions& opt,
                        const std::function<CheckReport(const LessonOptions&)>& recheck);

// The lesson's dropout step (not a print of one) before `r`'s first difference that draws (its value is not the one before it)
// and that no learner tensor is compared at: the masks the learner's machine drew there are unknown, so a
// later difference cannot be told from a mistake. -1 when there is none (a timeline entry otherwise).
int unseen_dropout_before(const CheckReport& r);

// The one line that says so, for `source`, when check cannot judge for that reason.
UsageError unseen_dropout_error(const CheckReport& r, int step, const std::string& source);

// Whether `r`'s first difference (the check under the masks taken) is a valid dropout at a dropout step of a
// shape whose mask was taken already: every entry 0 or the lesson's value before the step times one factor
// above 1 (another mask of that shape, which the stage cannot follow).
bool another_mask_of_a_taken_shape(const CheckReport& r, const LessonOptions& opt);

// The one line that says so, for `source`.
UsageError several_masks_error(const CheckReport& r, const std::string& source);

// Whether the stage's reruns (kMaxOwnMasks, then the lesson and its `reruns` mistakes again) fit in the
// time limit besides the check's own, for a lesson run estimated at `seconds`.
bool own_masks_affordable(double seconds, double reruns);

// The note that says so (en and zh), naming the learner's tensors that `r` (the check under their masks)
// compares at a dropout step and finds equal.
Prose own_masks_note(const CheckReport& r);

}  // namespace attn
