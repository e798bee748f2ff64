#include "notebook/notebook_maps.h"

#include "notebook/attention_matrix.h"
#include "notebook/picture_text.h"

namespace attn {
namespace {

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

bool same_values(const Tensor& a, const Tensor& b) { return a.shape() == b.shape() && a.values() == b.values(); }

// Attention weights computed inside a forward: softmax's result, or dropout's.
bool inside_weights(const Binding& b) {
  const bool named = contains(b.name, "weights") || contains(b.name, "softmax");
  const bool made = contains(b.code, "softmax") || contains(b.code, "dropout");
  return named && made && is_attention_matrix({b.name, b.cell, b.code, b.tensor});
}

// The lesson of a cell (for `all`): the number of appended notebooks that start at or before it.
size_t part_of(const Notebook& nb, int cell) {
  size_t part = 0;
  for (int after : nb.appended_after()) part += cell > after ? 1 : 0;
  return part;
}

// Some output of the same lesson shows t with a picture.
bool shown_with_picture(const Notebook& nb, const Tensor& t, int cell) {
  for (const NotebookItem& item : nb.items())
    if (item.kind == NotebookItem::Kind::Output && item.tensor >= 0 && part_of(nb, item.cell) == part_of(nb, cell)) {
      const NamedTensor& s = nb.tensors()[static_cast<size_t>(item.tensor)];
      if (has_picture(s) && same_values(s.tensor, t)) return true;
    }
  return false;
}

// The last output item of `cell`, or -1.
int last_output(const Notebook& nb, int cell) {
  int at = -1;
  for (size_t i = 0; i < nb.items().size(); ++i)
    if (nb.items()[i].kind == NotebookItem::Kind::Output && nb.items()[i].cell == cell) at = static_cast<int>(i);
  return at;
}

// The inside pictures of `cell`: unclaimed traced steps and Notebook::inside values, each value once,
// none that an output already draws.
// The heads of a list of heads (Binding::head) are drawn in the cell whose forward runs them, every head,
// even one whose values an output elsewhere draws (course-mha's mha(x) draws heads[0] too, which the
// cells after it step through), so that the set reads head 0, 1, ...
std::vector<MapSource> inside_maps(const Notebook& nb, int cell) {
  std::vector<std::pair<MapSource, bool>> found;  // each value once per head, and whether an output draws it
  auto consider = [&](const Binding& b) {
    // A head's step that a later cell shows (claims) still belongs to this cell's forward.
    const bool here = b.cell == cell && b.traced, claimed = b.forward_cell == cell && b.head >= 0;
    if ((!here && !claimed) || !inside_weights(b)) return;
    for (const auto& f : found)
      if (f.first.head == b.head && same_values(f.first.tensor.tensor, b.tensor)) return;
    found.push_back(
        {{{b.name, cell, b.code, b.tensor}, true, b.head}, claimed || shown_with_picture(nb, b.tensor, cell)});
  };
  for (const Binding& b : nb.timeline()) consider(b);
  for (const Binding& b : nb.inside_values()) consider(b);
  bool some_head = false;
  for (const auto& f : found) some_head = some_head || f.first.head >= 0;
  std::vector<MapSource> out;
  for (const auto& [m, elsewhere] : found) {
    if (elsewhere && !(some_head && m.head >= 0)) continue;
    bool again = false;  // the same values as an earlier map of another head in a list without heads
    for (const MapSource& o : out) again = again || (m.head < 0 && same_values(o.tensor.tensor, m.tensor.tensor));
    if (!again) out.push_back(m);
  }
  return out;
}

// Every attention weights of the lesson of `cell` that is not a dropout result: shown, recorded, traced.
std::vector<NamedTensor> weights_of_lesson(const Notebook& nb, int cell) {
  std::vector<NamedTensor> out;
  for (const NamedTensor& t : nb.tensors())
    if (part_of(nb, t.cell) == part_of(nb, cell)) out.push_back(t);
  for (const std::vector<Binding>* list : {&nb.timeline(), &nb.inside_values()})
    for (const Binding& b : *list)
      if (part_of(nb, b.cell) == part_of(nb, cell)) out.push_back({b.name, b.cell, b.code, b.tensor});
  return out;
}

void link_undropped(const Notebook& nb, MapSource& m) {
  if (!is_attention_matrix(m.tensor)) return;
  m.undropped = find_undropped(m.tensor, weights_of_lesson(nb, m.tensor.cell));
}

}  // namespace

std::vector<MapSource> maps_after(const Notebook& nb, size_t index) {
  std::vector<MapSource> out;
  if (index >= nb.items().size()) return out;
  const NotebookItem& item = nb.items()[index];
  if (item.kind != NotebookItem::Kind::Output) return out;
  if (item.tensor >= 0 && has_picture(nb.tensors()[static_cast<size_t>(item.tensor)]))
    out.push_back({nb.tensors()[static_cast<size_t>(item.tensor)]});
  if (last_output(nb, item.cell) == static_cast<int>(index))
    for (MapSource& m : inside_maps(nb, item.cell)) out.push_back(std::move(m));
  for (MapSource& m : out) {
    link_undropped(nb, m);
    m.positions = !nb.tokens().empty() && nb.picture_tokens(m.tensor.cell).empty();
  }
  return out;
}

std::vector<std::pair<size_t, MapSource>> all_maps(const Notebook& nb) {
  std::vector<std::pair<size_t, MapSource>> out;
  for (size_t i = 0; i < nb.items().size(); ++i)
    for (MapSource& m : maps_after(nb, i)) out.emplace_back(i, std::move(m));
  return out;
}

const std::vector<std::string>& map_tokens(const Notebook& nb, const MapSource& m) {
  static const std::vector<std::string> none;
  return m.positions ? none : nb.tokens();
}

std::string map_title(const MapSource& m, Lang lang) {
  std::string what = m.tensor.name;
  if (m.inside)
    what = m.head >= 0 ? picture_say("map.inside_head", lang, {what, std::to_string(m.head)})
                       : picture_say("map.inside", lang, {what});
  const std::string title = picture_say(is_weight_vector(m.tensor) ? "map.title_vector" : "map.title", lang, {what});
  return m.positions ? title + picture_say("map.positions", lang) : title;
}

}  // namespace attn
