#include "features/check/check.h"

#include <cmath>
#include <limits>

#include "core/usage_error.h"

namespace attn {

const std::vector<Mistake>& known_mistakes() {
  static const std::vector<Mistake> all = {
      {"softmax-dim", "softmax over the wrong dimension",
       "Each query's weights must sum to 1 over the keys, the last dimension. Normalised over another "
       "dimension, the columns sum to 1 instead and every token mixes the values with the wrong weights. "
       "dim=1 is the last dimension of a (tokens, tokens) matrix, but not once a batch dimension comes first.",
       "torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)"},
      {"no-scaling", "no \u221ad_k scaling",
       "The scores went into softmax without being divided by sqrt(d_k) = keys.shape[-1]**0.5, so the weights "
       "are sharper than the book's: large scores take more of the weight, and with the embedding sizes of "
       "real models softmax saturates and its gradients vanish.",
       "torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)"},
      {"triu-diagonal", "mask with triu missing diagonal=1",
       "torch.triu(torch.ones(n, n)) keeps the diagonal, so masked_fill also hides each token from itself: "
       "the first row is all -inf and softmax returns nan for it, and every other row loses its own token.",
       "mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)"},
      {"mask-after-softmax", "masking after softmax without renormalising",
       "The future weights were zeroed after softmax, so the rows sum to less than 1 (only the last row, "
       "which masks nothing, is complete). Divide each row by its sum, or fill the scores with -inf before "
       "softmax, which does both in one step.",
       "masked = attn_scores.masked_fill(mask.bool(), -torch.inf)\n"
       "attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)"},
      {"dropout-scale", "dropout scaled by 1/p",
       "The zeros are the right ones (the same mask as nn.Dropout), but the survivors were multiplied by 1/p "
       "instead of 1/(1-p). With p = 0.5 the two are both 2, which hides the bug in the book's example.",
       "x * mask / (1 - p), or simply torch.nn.Dropout(p)(x)"},
      {"head-order", "heads concatenated in the wrong order",
       "torch.cat puts the heads side by side in list order: the first d_out columns must be head 0, the "
       "next head 1, and so on. Yours holds the same heads in another order.",
       "torch.cat([head(x) for head in self.heads], dim=-1)"},
      {"view-no-transpose", "view without transpose",
       "view re-reads memory in row-major order; it does not move data. Viewing (b, num_tokens, d_out) "
       "straight as (b, num_heads, num_tokens, head_dim) mixes tokens and heads, and so does viewing the "
       "(b, num_heads, num_tokens, head_dim) result straight back as (b, num_tokens, d_out).",
       "keys = keys.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)\n"
       "context_vec = (attn_weights @ values).transpose(1, 2).contiguous().view(b, num_tokens, self.d_out)"},
      {"missing-reseed", "a missing re-seed",
       "No torch.manual_seed right before the module was built, so its nn.Linear weights continue the "
       "generator where an earlier cell left it (the CausalAttention cell) instead of starting from the seed.",
       "torch.manual_seed(123) (the lesson's seed) in the same cell, just before the module is built"},
      {"mkl-dropout", "an MKL-path dropout mask",
       "Not a bug in your code: these dropout masks are the ones PyTorch 2.6 and earlier draws on an Intel CPU "
       "with MKL, a different random stream from the book's (torch's own generator, as on every machine since "
       "PyTorch 2.7). Everything drawn after the first dropout shifts too.",
       "compare with attn-tutor LESSON --bernoulli mkl, or export with bernoulli=\"mkl\""},
      {"stale-scores", "scores that do not come from the module's own queries and keys",
       "Your weights come from an attn_scores that forward never assigned: a typo such as "
       "`attn_socres = query @ key.transpose(1, 2)` leaves the name attn_scores pointing at the global of an "
       "earlier cell (SelfAttention_v2's queries @ keys.T), and masked_fill_ even changes that global in place. "
       "Only the values are the module's own. Python raises no error for it.",
       "attn_scores = queries @ keys.transpose(1, 2) inside forward, and rerun the notebook from a fresh kernel"},
  };
  return all;
}

const Mistake* find_mistake(const std::string& id) {
  for (const Mistake& m : known_mistakes())
    if (m.id == id) return &m;
  return nullptr;
}

bool values_close(float learner, float tool) {
  if (std::isnan(learner) || std::isnan(tool)) return std::isnan(learner) && std::isnan(tool);
  if (learner == tool) return true;  // equal infinities too
  if (std::isinf(learner) || std::isinf(tool)) return false;
  const double d = std::fabs(static_cast<double>(learner) - static_cast<double>(tool));
  return d <= 1e-5 * std::max(1.0, std::fabs(static_cast<double>(tool)));
}

namespace {

// Fills the difference fields of `c`; true when everything is close.
bool compare(const Tensor& yours, const Tensor& tool, TensorCheck& c) {
  c.differing = 0;
  c.first_diff = -1;
  c.max_diff = 0.0;
  if (yours.shape() != tool.shape()) {
    c.differing = yours.numel();
    c.max_diff = std::numeric_limits<double>::infinity();
    return false;
  }
  const std::vector<float> a = yours.values(), b = tool.values();
  for (size_t i = 0; i < a.size(); ++i) {
    if (values_close(a[i], b[i])) continue;
    if (c.first_diff < 0) c.first_diff = static_cast<int64_t>(i);
    ++c.differing;
    const double d = std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
    c.max_diff = std::max(c.max_diff, std::isnan(d) ? std::numeric_limits<double>::infinity() : d);
  }
  return c.differing == 0;
}

// The diagnosis of `yours` (named `name`): the first what-if whose tensor of that name it equals.
const WhatIf* diagnose(const std::string& name, const Tensor& yours, const std::vector<WhatIf>& what_ifs) {
  for (const WhatIf& w : what_ifs)
    for (const NamedTensor& t : w.tensors)
      if (t.name == name && tensors_close(yours, t.tensor)) return &w;
  return nullptr;
}

}  // namespace

bool tensors_close(const Tensor& learner, const Tensor& tool) {
  TensorCheck c;
  return compare(learner, tool, c);
}

CheckReport check_export(const LearnerExport& ex, const Notebook& tool,
                         const std::function<std::vector<WhatIf>()>& what_ifs) {
  CheckReport r;
  r.source = ex.source;
  r.lesson = ex.lesson;
  r.yours = ex.tensors;
  r.tool = tool.tensors();
  int known = 0;
  for (const LearnerTensor& y : ex.tensors) {
    TensorCheck c;
    TensorCheck best;
    for (size_t i = 0; i < r.tool.size(); ++i) {
      if (r.tool[i].name != y.name) continue;
      TensorCheck candidate;
      candidate.tool_index = static_cast<int>(i);
      if (compare(y.tensor, r.tool[i].tensor, candidate)) {
        c = candidate;
        c.verdict = TensorCheck::Verdict::Match;
        break;
      }
      // Compared with the closest occurrence: the same shape, the fewest differences, the latest.
      const bool same_shape = y.tensor.shape() == r.tool[i].tensor.shape();
      const bool best_same = best.tool_index >= 0 && y.tensor.shape() == r.tool[best.tool_index].tensor.shape();
      if (best.tool_index < 0 || (same_shape && !best_same) ||
          (same_shape == best_same && candidate.differing <= best.differing)) {
        best = candidate;
        best.verdict = TensorCheck::Verdict::Differs;
      }
    }
    if (c.verdict != TensorCheck::Verdict::Match && best.tool_index >= 0) c = best;
    if (c.verdict != TensorCheck::Verdict::NotInLesson) ++known;
    if (c.verdict == TensorCheck::Verdict::Differs && r.first_divergence < 0)
      r.first_divergence = static_cast<int>(r.checks.size());
    r.checks.push_back(c);
  }
  if (known == 0) {
    auto quoted_list = [](const std::vector<std::string>& names) {
      std::string out;
      size_t shown = 0;
      for (const std::string& n : names) {
        if (out.find("\"" + n + "\"") != std::string::npos) continue;
        if (out.size() > 300) return out + ", ...";
        out += (shown++ ? ", \"" : "\"") + n + "\"";
      }
      return out;
    };
    std::vector<std::string> yours, lesson;
    for (const LearnerTensor& y : ex.tensors) yours.push_back(y.name);
    for (const NamedTensor& t : r.tool) lesson.push_back(t.name);
    throw UsageError("check " + ex.source + ": none of its tensor names (" + quoted_list(yours) + ") is one of lesson " +
                     ex.lesson + "'s; name them as the lesson does: " + quoted_list(lesson) + " (attn-tutor " +
                     ex.lesson + " --json - shows them all)");
  }
  if (r.ok()) return r;
  const std::vector<WhatIf> alternatives = what_ifs ? what_ifs() : std::vector<WhatIf>{};
  for (size_t i = static_cast<size_t>(r.first_divergence); i < r.checks.size(); ++i) {
    if (r.checks[i].verdict != TensorCheck::Verdict::Differs) continue;
    if (const WhatIf* w = diagnose(r.yours[i].name, r.yours[i].tensor, alternatives)) {
      r.mistake = find_mistake(w->mistake);
      r.detail = w->detail;
      r.diagnosed = static_cast<int>(i);
      break;
    }
  }
  return r;
}

}  // namespace attn
