#pragma once
// The pictures' own prose (heatmap legends and captions, the HTML page's words) in both languages:
// lib/notebook/text.txt, compiled in. Keys start with "map." (heatmaps) or "html." (the page).
#include <string>
#include <vector>

#include "notebook/prose.h"

namespace attn {

const TextTable& picture_text();
// The sentence `key` with its values, in `lang`.
std::string picture_say(const std::string& key, Lang lang, std::vector<Prose> args = {});

}  // namespace attn
