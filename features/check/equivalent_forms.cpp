#include "features/check/equivalent_forms.h"

#include <cmath>
#include <vector>

namespace attn {

namespace {

bool zero_one(float x) { return x == 0.0f || x == 1.0f; }

// yours = 1 - tool entry by entry, both 0/1 masks with both values present.
bool other_polarity(const std::vector<float>& yours, const std::vector<float>& tool) {
  bool zero = false, one = false;
  for (size_t i = 0; i < yours.size(); ++i) {
    if (!zero_one(yours[i]) || !zero_one(tool[i]) || yours[i] == tool[i]) return false;
    zero = zero || tool[i] == 0.0f;
    one = one || tool[i] == 1.0f;
  }
  return zero && one;
}

// yours equal to tool, except where tool is -inf: there a finite fill at or below -1e9 (-1e9, finfo.min).
bool finite_fill(const std::vector<float>& yours, const std::vector<float>& tool) {
  bool filled = false;
  for (size_t i = 0; i < yours.size(); ++i) {
    if (std::isinf(tool[i]) && tool[i] < 0) {
      if (!(std::isfinite(yours[i]) && yours[i] <= -1e9f)) return false;
      filled = true;
    } else if (!(yours[i] == tool[i] || std::fabs(yours[i] - tool[i]) <= 1e-5 * std::fmax(1.0f, std::fabs(tool[i])))) {
      return false;
    }
  }
  return filled;
}

struct FormRule {
  Form form;
  bool (*holds)(const std::vector<float>& yours, const std::vector<float>& tool);
};

// The list: a new equivalent form is a function above and a row here.
const FormRule kForms[] = {
    {Form::OtherPolarity, other_polarity},
    {Form::FiniteFill, finite_fill},
};

}  // namespace

Form equivalent_form(const Tensor& yours, const Tensor& tool) {
  if (yours.shape() != tool.shape() || yours.numel() == 0) return Form::Same;
  const std::vector<float> a = yours.values(), b = tool.values();
  for (const FormRule& r : kForms)
    if (r.holds(a, b)) return r.form;
  return Form::Same;
}

std::string form_key(Form f) {
  switch (f) {
    case Form::OtherPolarity:
      return "check.form.other-polarity";
    case Form::FiniteFill:
      return "check.form.finite-fill";
    case Form::Same:
      break;
  }
  return "";
}

}  // namespace attn
