#pragma once
// The HTML report's pictures: one <figure> per picture of notebook_maps.h, an SVG per grid (tokens on
// both axes, the value in each cell, masked and dropped cells in their own colours and marks) or
// SVG bars for 1-D weights; the caption and legend in the page's language.
#include <string>
#include <vector>

#include "notebook/html_escape.h"
#include "notebook/notebook_maps.h"

namespace attn {

std::string html_map_figure(const MapSource& m, const std::vector<std::string>& tokens, Lang lang);

}  // namespace attn
