// The reruns several lessons' diagnoses share (lessons/diagnosis.h).
#include <algorithm>
#include <numeric>

#include "lessons/diagnosis.h"

#include "core/py_repr.h"

namespace attn {

void Reruns::variant(MistakeId mistake, Prose detail, Variant v) {
  LessonOptions o = base;
  o.variant = std::move(v);
  list.push_back({mistake, std::move(detail), std::move(o)});
}

void Reruns::cells(MistakeId mistake, Prose detail, CellVariant c) {
  LessonOptions o = base;
  o.variant = Variant();  // the book's modules, as a variant rerun has only its own switch
  o.cells = c;
  list.push_back({mistake, std::move(detail), std::move(o)});
}

void Reruns::options(MistakeId mistake, Prose detail, LessonOptions o) {
  list.push_back({mistake, std::move(detail), std::move(o)});
}

void weight_mistakes(Reruns& r, int64_t rank, bool scaled, bool causal, bool heads) {
  for (int64_t d = 0; d + 1 < rank; ++d) {
    Variant v;
    v.softmax_dim = d;
    r.variant(MistakeId::SoftmaxDim, text("check.detail.softmax-dim", {std::to_string(d)}), v);
  }
  using S = Variant::Scale;
  using M = Variant::Mask;
  auto scale = [](S x) {
    Variant v;
    v.scale = x;
    return v;
  };
  auto mask = [](M x) {
    Variant v;
    v.mask = x;
    return v;
  };
  enum Needs { Scaled, Heads, Causal };
  const struct {
    Needs needs;
    Variant v;
    MistakeId mistake;
    const char* detail;
  } table[] = {{Scaled, scale(S::None), MistakeId::NoScaling, "check.detail.no-scaling"},
               {Scaled, scale(S::Dk), MistakeId::WrongScale, "check.detail.scale-dk"},
               {Scaled, scale(S::SqrtDin), MistakeId::WrongScale, "check.detail.scale-din"},
               {Heads, scale(S::SqrtWidth), MistakeId::WrongScale, "check.detail.scale-width"},
               {Scaled, scale(S::AfterSoftmax), MistakeId::ScaleAfterSoftmax, "check.detail.scale-after-softmax"},
               {Causal, mask(M::NoDiagonal), MistakeId::TriuDiagonal, "check.detail.triu-diagonal"},
               {Causal, mask(M::AfterSoftmax), MistakeId::MaskAfterSoftmax, "check.detail.mask-after-softmax"},
               {Causal, mask(M::Tril), MistakeId::TrilMask, "check.detail.tril-mask"},
               {Causal, mask(M::Discarded), MistakeId::MaskDiscarded, "check.detail.mask-discarded"},
               {Causal, mask(M::FillZero), MistakeId::MaskFillZero, "check.detail.mask-fill-zero"},
               {Causal, mask(M::AddOnes), MistakeId::MaskAdded, "check.detail.mask-added"},
               {Causal, mask(M::PlusInf), MistakeId::MaskPlusInf, "check.detail.mask-plus-inf"}};
  for (const auto& t : table)
    if (t.needs == Scaled ? scaled : t.needs == Heads ? scaled && heads : causal)
      r.variant(t.mistake, text(t.detail), t.v);
}

void linear_orders(Reruns& r, const std::vector<std::string>& names) {
  std::vector<int> order(names.size());
  std::iota(order.begin(), order.end(), 0);
  while (std::next_permutation(order.begin(), order.end())) {
    std::string created;
    for (int i : order) created += (created.empty() ? "" : ", ") + names[static_cast<size_t>(i)];
    Variant v;
    v.linear_order = order;
    r.variant(MistakeId::LinearOrder, text("check.detail.linear-order", {created}), v);
  }
}

void dropout_mistakes(Reruns& r, double p, bool module, bool scores) {
  if (!(p > 0.0)) return;
  Variant v;
  v.eval = true;
  if (module) r.variant(MistakeId::EvalMode, text("check.detail.eval-mode"), v);
  v = Variant();
  v.rand_mask = true;
  if (p < 1.0) r.variant(MistakeId::RandDropout, text("check.detail.rand-dropout", {py_float(p)}), v);
  v.dropout_by_p = true;
  if (p < 1.0 && p != 0.5) r.variant(MistakeId::DropoutScale, text("check.detail.rand-dropout-by-p", {py_float(p)}), v);
  if (!scores) return;
  v = Variant();
  v.dropout_on = Variant::DropoutOn::ScoresAfterMask;
  r.variant(MistakeId::DropoutOnScores, text("check.detail.dropout-after-mask"), v);
  v.dropout_on = Variant::DropoutOn::ScoresBeforeMask;
  r.variant(MistakeId::DropoutOnScores, text("check.detail.dropout-before-mask"), v);
}

void dropout_scale(Reruns& r, double p) {
  if (!(p > 0.0 && p < 1.0 && p != 0.5)) return;
  Variant v;
  v.dropout_by_p = true;
  r.variant(MistakeId::DropoutScale, text("check.detail.dropout-by-p", {py_float(p)}), v);
}

void mkl_dropout(Reruns& r, double rate) {
  if (!(rate > 0.0 && r.base.bernoulli == BernoulliPath::Default)) return;
  LessonOptions o = r.base;
  o.bernoulli = BernoulliPath::Mkl;
  r.options(MistakeId::MklDropout, text("check.detail.mkl"), o);
}

bool bonus_module_mistakes(Reruns& r, int64_t heads, int64_t d_out) {
  if (heads <= 0 || d_out % heads != 0) return false;
  const int64_t head_dim = d_out / heads, tokens = r.base.num_tokens();
  Variant v;
  // softmax(scores) not divided by head_dim**0.5: the same numbers when head_dim is 1
  if (head_dim > 1) {
    v.scale = Variant::Scale::None;
    r.variant(MistakeId::NoScaling, text("check.detail.bonus-no-scaling", {std::to_string(head_dim)}), v);
  }
  // (b, T, H * hd) viewed straight as (b, H, T, hd): the same numbers with one head or one token
  if (heads > 1 && tokens > 1) {
    v = Variant();
    v.split_without_transpose = true;
    r.variant(MistakeId::ViewNoTranspose, text("check.detail.bonus-split-no-transpose"), v);
    // merging back: (attn_weights @ values) of shape (b, H, T, hd) viewed straight as (b, T, d_out)
    v = Variant();
    v.merge_without_transpose = true;
    r.variant(MistakeId::ViewNoTranspose, text("check.detail.merge-no-transpose"), v);
  }
  return true;
}

void settings_rerun(Reruns& r, const std::string& config, const std::string& command, LessonOptions o) {
  r.options(MistakeId::ExportSettings, text("check.detail.settings", {config, command}), std::move(o));
}

}  // namespace attn
