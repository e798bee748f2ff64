#include "features/check/own_masks.h"

#include <algorithm>
#include <cmath>

#include "core/safe_text.h"

#include "lessons/cost_model.h"
#include "lessons/ui_text.h"

namespace attn {

bool is_dropout_step(const std::string& code) { return code.find("dropout(") != std::string::npos; }

Tensor keep_mask_of(const Tensor& dropped) {
  std::vector<float> keep = dropped.values();
  for (float& x : keep) x = x != 0.0f ? 1.0f : 0.0f;  // a NaN is kept: its rerun cannot give it
  return Tensor(dropped.shape(), std::move(keep));
}

namespace {

bool has_mask_of_shape(const LessonOptions& opt, const Shape& shape) {
  return std::any_of(opt.variant.own_masks.begin(), opt.variant.own_masks.end(),
                     [&](const Tensor& k) { return k.shape() == shape; });
}

// Whether tensor `i` of `r` is compared at `entry` and equals the lesson's value there.
bool matches_at(const CheckReport& r, int i, int entry) {
  const TensorCheck& c = r.checks[i];
  return c.verdict == TensorCheck::Verdict::Match && c.elsewhere == TensorCheck::Elsewhere::None && c.expected == entry;
}

// Whether `y` is a dropout of `x`: every entry 0, or x's times one factor above 1 (1 / (1 - p)).
bool dropout_of(const Tensor& y, const Tensor& x) {
  if (y.shape() != x.shape()) return false;
  const std::vector<float> a = y.values(), b = x.values();
  double factor = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == 0.0f) continue;
    if (b[i] == 0.0f || !std::isfinite(a[i]) || !std::isfinite(b[i])) return false;
    const double f = static_cast<double>(a[i]) / static_cast<double>(b[i]);
    if (factor == 0.0) factor = f;
    if (!(f > 1.0) || std::fabs(f - factor) > 1e-4 * factor) return false;
  }
  return true;
}

}  // namespace

bool another_mask_of_a_taken_shape(const CheckReport& r, const LessonOptions& opt) {
  if (r.ok() || !r.diagnoses.empty()) return false;
  const int entry = r.checks[r.first_divergence].expected;
  const Binding& step = r.tool[entry];
  const Tensor& yours = r.yours[r.first_divergence].tensor;
  if (!is_dropout_step(step.code) || is_print_line(step.code) || !has_mask_of_shape(opt, yours.shape())) return false;
  for (int j = entry - 1; j >= 0; --j)  // the value before the step: the latest entry of its name
    if (r.tool[j].name == step.name) return dropout_of(yours, r.tool[j].tensor);
  return false;
}

UsageError several_masks_error(const CheckReport& r, const std::string& source) {
  const LearnerTensor& y = r.yours[r.first_divergence];
  const std::string code = y.origin ? y.origin->code : r.tool[r.checks[r.first_divergence].expected].code;
  return UsageError(
      error_text("check.err.own-masks-several", {source, echo(y.name), echo(code, 80), shape_text(y.tensor.shape())}));
}

OwnMasks find_own_masks(const CheckReport& r, const LessonOptions& opt,
                        const std::function<CheckReport(const LessonOptions&)>& recheck) {
  OwnMasks m{opt, {}};
  CheckReport now = r;
  for (int taken = 0; taken < kMaxOwnMasks && !now.ok(); ++taken) {
    const int fd = now.first_divergence;
    const int entry = now.checks[fd].expected;
    const Binding& step = now.tool[entry];
    const Tensor& yours = now.yours[fd].tensor;
    if (!is_dropout_step(step.code) || yours.shape() != step.tensor.shape() || has_mask_of_shape(m.opt, yours.shape()))
      break;
    LessonOptions next = m.opt;
    next.variant.own_masks.push_back(keep_mask_of(yours));
    CheckReport again = recheck(next);
    if (!matches_at(again, fd, entry)) break;  // not 0 or value / (1 - p) everywhere: not a dropout of its input
    m.opt = std::move(next);
    m.names.push_back(echo(now.yours[fd].name));
    now = std::move(again);
  }
  return m;
}

int unseen_dropout_before(const CheckReport& r) {
  if (r.ok()) return -1;
  const int until = r.checks[r.first_divergence].expected;
  for (int j = until - 1; j >= 0; --j) {
    const Binding& b = r.tool[j];
    if (!is_dropout_step(b.code) || is_print_line(b.code)) continue;  // a print feeds no later step
    bool drew = true;  // an entry of its name before it with the same value: the identity (eval(), p = 0)
    for (int k = j - 1; k >= 0; --k)
      if (r.tool[k].name == b.name) {
        drew = !tensors_close(r.tool[k].tensor, b.tensor, 0.0);
        break;
      }
    const bool seen = std::any_of(r.checks.begin(), r.checks.end(), [&](const TensorCheck& c) {
      return c.expected >= 0 && r.tool[c.expected].code == b.code && r.tool[c.expected].cell == b.cell;
    });
    if (drew && !seen) return j;
  }
  return -1;
}

UsageError unseen_dropout_error(const CheckReport& r, int step, const std::string& source) {
  const Binding& b = r.tool[step];
  return UsageError(error_text("check.err.unseen-dropout", {source, echo(r.yours[r.first_divergence].name),
                                                            echo(b.code, 80), std::to_string(b.cell)}));
}

bool own_masks_affordable(double seconds, double reruns) {
  return seconds * (2.0 * (1.0 + reruns) + kMaxOwnMasks) <= kMaxLessonSeconds;
}

Prose own_masks_note(const CheckReport& r) {
  std::string names;
  for (size_t i = 0; i < r.checks.size(); ++i) {
    const int at = r.checks[i].expected;
    if (at >= 0 && is_dropout_step(r.tool[at].code) && r.checks[i].verdict == TensorCheck::Verdict::Match)
      names += (names.empty() ? "" : ", ") + echo(r.yours[i].name);
  }
  return text("check.own-masks", {names});
}

}  // namespace attn
