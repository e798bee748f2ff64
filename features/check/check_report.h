#pragma once
// The text `attn-tutor check` prints: one line per tensor, then the first difference in detail (both
// tensors side by side when both fit in `page_width` columns, else one above the other; where they differ)
// and the diagnosis, its prose wrapped at `page_width` (at most 100 columns, at least 40).
#include <string>

#include "features/check/check.h"

namespace attn {

std::string render_report(const CheckReport& r, bool color, Lang lang = Lang::En, size_t page_width = 80);

}  // namespace attn
