#pragma once
// The mistakes `attn-tutor check` can name, declared once: one entry each in the table lessons/mistakes.txt
// (its id, the step of the module or the cell it varies, what its rerun changes, a line of a learner's code
// that makes it; its fixture is named by its id), each with its MistakeId generated from the table. A lesson's
// reruns (lessons/NAME/mistakes.cpp) name a row by its MistakeId; `check`, its tests and the README's list of
// diagnoses read the table.
#include <string>
#include <vector>

#include "lessons/mistake_ids.h"  // generated from lessons/mistakes.txt (cmake/mistake_ids.cmake)
#include "notebook/prose.h"

namespace attn {

// A mistake learners make (or an export that does not say what it holds): one row of the table.
struct Mistake {
  MistakeId key;
  std::string id;       // as `check` and its tests name it; its prose is mistake.ID.* (features/check/mistakes.txt)
  std::string step;     // the step of the book's code it varies: a module's forward, its __init__, or a lesson cell
  std::string changes;  // what its rerun changes: a Variant switch (lib/nn/variant.h), a CellVariant one, an option
  std::string example;  // one line of a learner's code that makes it (the README's list)
  // A learner's export that makes it: tests/fixtures/mistakes/FIXTURE.json, named by its id.
  const std::string& fixture() const { return id; }
  std::string text_key() const { return "mistake." + id; }  // .title, .explain, .fix
  std::string title(Lang lang) const;
  std::string explanation(Lang lang) const;
  std::string fix(Lang lang) const;
};

// Every row, in MistakeId order.
const std::vector<Mistake>& known_mistakes();
const Mistake& mistake(MistakeId id);
const Mistake* find_mistake(const std::string& id);  // nullptr for an id no row has

}  // namespace attn
