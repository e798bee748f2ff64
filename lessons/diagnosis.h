#pragma once
// A lesson's diagnoses for `attn-tutor check`: the known mistakes (lessons/mistakes.h) that apply to it,
// each as a rerun of the lesson with one step varied (a Variant switch of lib/nn/variant.h, a CellVariant
// switch of its cells, or the options a mistake amounts to). Each lesson lists its own in
// lessons/NAME/mistakes.cpp, named by its registry row; the helpers below are the reruns several share
// (lessons/common/mistakes.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include "lessons/lesson.h"
#include "lessons/mistakes.h"

namespace attn {

// A known mistake as a rerun of the lesson: the lesson's options with the mistake's variant.
struct MistakeRerun {
  MistakeId mistake;
  Prose detail;       // check.detail.* of features/check/mistakes.txt: what exactly was rerun
  LessonOptions opt;  // the lesson's options with the mistake's variant
};

// The reruns of one lesson in the order they are tried (the first that fits is named first).
struct Reruns {
  const LessonOptions& base;  // the lesson's options as the learner's export declares them
  std::vector<MistakeRerun> list;
  void variant(MistakeId mistake, Prose detail, Variant v);        // base with the module's forward varied
  void cells(MistakeId mistake, Prose detail, CellVariant c);      // base with the lesson's cells varied
  void options(MistakeId mistake, Prose detail, LessonOptions o);  // other options altogether
};

// The mistakes on the way from scores of rank `rank` to weights: softmax over another dim, and with
// `scaled` no or another scale (the whole width's too with `heads`), with `causal` the mask's.
void weight_mistakes(Reruns& r, int64_t rank, bool scaled, bool causal, bool heads = false);
// The projections created in every other order than `names` (the class's attribute names, in the book's order).
void linear_orders(Reruns& r, const std::vector<std::string>& names);
// The dropout mistakes at rate `p`: eval() (a `module`'s), a hand-written torch.rand mask (and divided by
// p), with `scores` dropout on the scores after or before the mask.
void dropout_mistakes(Reruns& r, double p, bool module, bool scores);
// Dropout survivors scaled by 1/p: only visible when 1/p differs from 1/(1-p).
void dropout_scale(Reruns& r, double p);
// The lesson's dropout drawn by MKL's Bernoulli path (an Intel CPU's PyTorch), where it draws at `rate`.
void mkl_dropout(Reruns& r, double rate);
// The mistakes of the modules after the chapter: no scaling (head_dim > 1), views without transpose
// (two heads or more, two tokens or more). Returns false when `heads` does not divide `d_out`.
bool bonus_module_mistakes(Reruns& r, int64_t heads, int64_t d_out);
// "export-settings": the lesson rerun with `o`, its config differing by `config` ("num_heads=4"), as
// `attn-tutor COMMAND` ("mha --num-heads 4") runs it.
void settings_rerun(Reruns& r, const std::string& config, const std::string& command, LessonOptions o);

}  // namespace attn
