#pragma once
// The text `attn-tutor check` prints: one line per tensor, then the first difference in detail (both
// tensors side by side, where they differ) and the diagnosis.
#include <string>

#include "features/check/check.h"

namespace attn {

std::string render_report(const CheckReport& r, bool color, Lang lang = Lang::En);

}  // namespace attn
