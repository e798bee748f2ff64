// The same step written another way (features/check/equivalent_forms.h): a mask of the other polarity, a
// large negative fill for -inf; anything else is no form of the step.
#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "features/check/equivalent_forms.h"
#include "run_cli.h"

using attn::Form;
using attn::Tensor;

namespace {
const float kInf = std::numeric_limits<float>::infinity();
}

TEST_CASE("equivalent forms: a 0/1 mask with 1 where the lesson's has 0 is the other polarity") {
  const Tensor book({2, 2}, {0, 1, 0, 0});  // triu(diagonal=1): 1 where a key is hidden
  CHECK(attn::equivalent_form(Tensor({2, 2}, {1, 0, 1, 1}), book) == Form::OtherPolarity);
  CHECK(attn::equivalent_form(Tensor({2, 2}, {1, 0, 1, 0}), book) == Form::Same);  // one entry not flipped
  CHECK(attn::equivalent_form(Tensor({2, 2}, {1, 0.5f, 1, 1}), book) == Form::Same);
  CHECK(attn::equivalent_form(Tensor({4}, {1, 0, 1, 1}), book) == Form::Same);           // another shape
  CHECK(attn::equivalent_form(Tensor({2}, {1, 1}), Tensor({2}, {0, 0})) == Form::Same);  // no mask: all one value
}

TEST_CASE("equivalent forms: -1e9 or finfo.min where the lesson has -inf is a finite fill") {
  const Tensor book({3}, {0.5f, -kInf, 0.25f});
  CHECK(attn::equivalent_form(Tensor({3}, {0.5f, -1e9f, 0.25f}), book) == Form::FiniteFill);
  CHECK(attn::equivalent_form(Tensor({3}, {0.5f, std::numeric_limits<float>::lowest(), 0.25f}), book) ==
        Form::FiniteFill);
  CHECK(attn::equivalent_form(Tensor({3}, {0.5f, -100.0f, 0.25f}), book) == Form::Same);  // not large enough
  CHECK(attn::equivalent_form(Tensor({3}, {0.5f, -1e9f, 0.3f}), book) == Form::Same);     // another value too
  CHECK(attn::equivalent_form(Tensor({3}, {0.5f, 0.0f, 0.25f}), Tensor({3}, {0.5f, 0.0f, 0.25f})) == Form::Same);
}

TEST_CASE("equivalent forms: a check names the form on the tensor's line and the next tensor decides") {
  const std::string dir = std::string(ATTN_TEST_FIXTURE_DIR) + "/mistakes/";
  const CliResult visible = run_cli_wide("check '" + dir + "way-mask-visible.json' --color never");
  CHECK(visible.exit_code == 0);
  CHECK(visible.out.find("the same mask with the other polarity (True where a key may be seen") != std::string::npos);
  const CliResult fill = run_cli_wide("check '" + dir + "way-finfo-min.json' --color never");
  CHECK(fill.exit_code == 0);
  CHECK(fill.out.find("masked with a large negative number instead of -inf") != std::string::npos);
}
