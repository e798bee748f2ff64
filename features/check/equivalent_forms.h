#pragma once
// The same step written another way: a learner's tensor that differs from the lesson's value entry by entry
// but is that step in an equivalent form, so the next tensor decides (a mask of the other polarity feeds
// torch.where(mask, s, -inf) to the same scores). Each form is one function and one row of the list in
// equivalent_forms.cpp.
#include <string>

#include "core/tensor.h"

namespace attn {

enum class Form {
  Same,           // the lesson's value itself
  OtherPolarity,  // a 0/1 (or bool) mask with 1 where the lesson's has 0: True where a key may be seen
  FiniteFill,     // masked scores with a large negative number (-1e9, finfo.min) where the lesson's are -inf
};

// The first form of the list in which `yours` is `tool` (Same when none is).
Form equivalent_form(const Tensor& yours, const Tensor& tool);

// The text key of a form's words on a tensor's line ("" for Same).
std::string form_key(Form f);

}  // namespace attn
