// The mistakes `attn-tutor check` can name (lessons/mistakes.h), read from their table lessons/mistakes.txt.
#include "lessons/mistakes.h"

#include <iterator>
#include <stdexcept>

#include "lessons/field_file.h"
#include "lessons/ui_text.h"

namespace attn {

namespace {

// Each entry of lessons/mistakes.txt with its MistakeId (generated from the entries, in their order).
std::vector<Mistake> bound_rows() {
  std::vector<Mistake> rows;
  for (size_t i = 0; i < std::size(kMistakeIds); ++i) {
    Mistake m;
    m.key = static_cast<MistakeId>(i);
    m.id = kMistakeIds[i];
    rows.push_back(m);
  }
  const std::string file = "lessons/mistakes.txt";
  size_t at = 0;  // the row the entry being read belongs to, plus one
  for (const FieldLine& l : field_lines(embedded_text("mistakes.txt"), file)) {
    const std::string where = file + ":" + std::to_string(l.number) + ": ";
    if (at == 0 || rows[at - 1].id != l.section) {
      if (at == rows.size() || rows[at].id != l.section)
        throw std::logic_error(where + "[" + l.section + "] is not the next MistakeId's id: rebuild");
      ++at;
    }
    Mistake& m = rows[at - 1];
    std::string* field = l.field == "step"      ? &m.step
                         : l.field == "changes" ? &m.changes
                         : l.field == "example" ? &m.example
                                                : nullptr;
    if (!field || !field->empty()) throw std::logic_error(where + "'" + l.field + "' is not a field or given twice");
    *field = l.value;
  }
  for (const Mistake& m : rows)
    if (m.step.empty() || m.changes.empty() || m.example.empty())
      throw std::logic_error(file + ": [" + m.id + "] needs step, changes and example");
  return rows;
}

}  // namespace

const std::vector<Mistake>& known_mistakes() {
  static const std::vector<Mistake> all = bound_rows();
  return all;
}

const Mistake& mistake(MistakeId id) {
  const std::vector<Mistake>& all = known_mistakes();
  const size_t i = static_cast<size_t>(id);
  if (i >= all.size() || all[i].key != id)
    throw std::logic_error("lessons/mistakes.cpp: the table and lessons/mistakes.txt are out of order");
  return all[i];
}

const Mistake* find_mistake(const std::string& id) {
  for (const Mistake& m : known_mistakes())
    if (m.id == id) return &m;
  return nullptr;
}

std::string Mistake::title(Lang lang) const { return ui(text_key() + ".title", lang); }
std::string Mistake::explanation(Lang lang) const { return ui(text_key() + ".explain", lang); }
std::string Mistake::fix(Lang lang) const { return ui(text_key() + ".fix", lang); }

}  // namespace attn
