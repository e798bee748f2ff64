#pragma once
// Which pictures a notebook gets and where: every output whose tensor is an attention matrix (or 1-D
// weights) gets its picture right after it, and the attention weights a cell's forwards compute
// inside modules (its traced steps that no output claims, and Notebook::inside) get theirs after the
// cell's last output, per head, each value once. Shared by the terminal text and the HTML report.
#include <optional>
#include <string>
#include <vector>

#include "notebook/notebook.h"

namespace attn {

struct MapSource {
  NamedTensor tensor;
  bool inside = false;                             // computed inside a module's forward
  int head = -1;                                   // ... of this head of a list of heads
  std::optional<Tensor> undropped = std::nullopt;  // a dropout result's weights before dropout (masked vs dropped 0s)
  bool positions = false;  // its cell's inputs are not the tokens (Notebook::positions_not_tokens): numbered axes
};

// The pictures that follow nb.items()[index].
std::vector<MapSource> maps_after(const Notebook& nb, size_t index);
// Every picture of the notebook with the item it follows, in order.
std::vector<std::pair<size_t, MapSource>> all_maps(const Notebook& nb);
// The labels of m's rows and columns: the tokens, or none (numbered) when m.positions.
const std::vector<std::string>& map_tokens(const Notebook& nb, const MapSource& m);
// The picture's title: "heatmap of attn_weights inside head 1's forward: rows are queries, columns keys".
std::string map_title(const MapSource& m, Lang lang);

}  // namespace attn
