#include "notebook/notebook.h"

#include <algorithm>
#include <cctype>

#include "core/print.h"
#include "core/tensor_print.h"

namespace attn {

Notebook::Notebook(std::string lesson, std::vector<std::string> sections, nlohmann::json config,
                   std::vector<std::string> tokens, const TextTable* text)
    : lesson_(std::move(lesson)),
      sections_(std::move(sections)),
      config_(std::move(config)),
      tokens_(std::move(tokens)),
      text_(text) {}

std::string item_text(const NotebookItem& item, Lang lang) {
  using Kind = NotebookItem::Kind;
  if (item.kind != Kind::Heading && item.kind != Kind::Note && item.kind != Kind::Explanation &&
      item.kind != Kind::Confusion)
    return item.text;
  const std::string prose = item.table ? item.table->render(item.prose, lang) : item.prose.literal;
  const bool zh = lang == Lang::Zh;
  switch (item.kind) {
    case Kind::Heading:
      if (!item.source.key.empty() && item.table) return item.table->render(item.source, lang) + "  " + prose;
      return item.text + "  " + prose;
    case Kind::Explanation:
      return (zh ? "详解：" : "More: ") + prose;
    case Kind::Confusion:
      return (zh ? "⚠ 常见误区：" : "⚠ Common confusion: ") + prose;
    default:
      return prose;
  }
}

void Notebook::prose(NotebookItem::Kind kind, Prose sentence) {
  NotebookItem item{kind, "", cell_};
  item.prose = std::move(sentence);
  item.table = text_;
  items_.push_back(std::move(item));
}

void Notebook::heading(const std::string& section, const std::string& key, std::vector<Prose> args) {
  prose(NotebookItem::Kind::Heading, text(key, std::move(args)));
  items_.back().text = section;
}

void Notebook::heading_case(const std::string& section, const std::string& key, const std::string& case_name) {
  prose(NotebookItem::Kind::Heading, text_case(key, case_name));
  items_.back().text = section;
}

void Notebook::source_heading(const std::string& section, const std::string& source_key, const std::string& key,
                              std::vector<Prose> args) {
  heading(section, key, std::move(args));
  items_.back().source = text(source_key);
}

void Notebook::cell(const std::vector<std::string>& code) {
  ++cell_;
  if (positions_) position_cells_.push_back(cell_);
  cell_code_ = code;
  std::string text;
  for (size_t i = 0; i < code.size(); ++i) text += (i ? "\n" : "") + code[i];
  items_.push_back({NotebookItem::Kind::Code, text, cell_});
}

// The cell line that assigns `name`, else the one that prints it, else the whole cell.
std::string Notebook::code_for(const std::string& name) const {
  for (const std::string& line : cell_code_)
    if (line.rfind(name + " =", 0) == 0 || line.rfind(name + "=", 0) == 0) return line;
  for (const std::string& line : cell_code_)
    if (line.find(name) != std::string::npos) return line;
  std::string all;
  for (size_t i = 0; i < cell_code_.size(); ++i) all += (i ? "\n" : "") + cell_code_[i];
  return all;
}

namespace {

// `name` as the object of `.shape` in Python: x.shape, f(x).shape, but (a @ b).shape and (m == 0).shape.
std::string shape_of(const std::string& name) {
  int depth = 0;
  bool quoted = false;
  for (char c : name) {
    if (c == '"' || c == '\'') quoted = !quoted;
    if (quoted) continue;
    if (c == '(' || c == '[')
      ++depth;
    else if (c == ')' || c == ']')
      --depth;
    else if (depth == 0 && !(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'))
      return "(" + name + ").shape";
  }
  return name + ".shape";
}

}  // namespace

void Notebook::show(const std::string& name, const Tensor& t, bool again) {
  const int index = static_cast<int>(tensors_.size());
  items_.push_back({NotebookItem::Kind::Output, repr(t), cell_, index});
  items_.push_back({NotebookItem::Kind::Shape, shape_of(name) + ": " + repr_size(t.shape()), cell_});
  record(name, t, again);
}

void Notebook::show(const std::string& label, const std::string& name, const Tensor& t) {
  const int index = static_cast<int>(tensors_.size());
  items_.push_back({NotebookItem::Kind::Output, label.empty() ? repr(t) : label + " " + repr(t), cell_, index});
  items_.push_back({NotebookItem::Kind::Shape, shape_of(name) + ": " + repr_size(t.shape()), cell_});
  record(name, t);
}

void Notebook::print(const std::string& text) { items_.push_back({NotebookItem::Kind::Output, text, cell_}); }

namespace {

bool same_tensor(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  const std::vector<float> x = a.values(), y = b.values();
  for (size_t i = 0; i < x.size(); ++i)
    if (!(x[i] == y[i] || (x[i] != x[i] && y[i] != y[i]))) return false;
  return true;
}

}  // namespace

void Notebook::record(const std::string& name, const Tensor& t, bool again) {
  tensors_.push_back({name, cell_, code_for(name), t});
  for (size_t i = 0; i < timeline_.size(); ++i) {
    if (!timeline_[i].traced || timeline_[i].name != name || !same_tensor(timeline_[i].tensor, t)) continue;
    // A traced step shown here, with the steps right after it that leave the name's value as it is.
    for (size_t j = i; j < timeline_.size(); ++j) {
      Binding& b = timeline_[j];
      if (b.name != name) continue;
      if (!b.traced || !same_tensor(b.tensor, t)) break;
      b.traced = false;
      if (b.forward_cell < 0) b.forward_cell = b.cell;
      b.cell = cell_;
    }
    return;
  }
  for (auto b = timeline_.rbegin(); b != timeline_.rend(); ++b)
    if (b->name == name) {
      if (!again && same_tensor(b->tensor, t)) return;  // its current value again
      break;
    }
  timeline_.push_back({name, cell_, code_for(name), t, false, false, -1});
}

void Notebook::trace(const Steps& steps) {
  for (const Step& s : steps.list) timeline_.push_back({s.name, cell_, s.code, s.value, s.in_place, true, s.head});
}

void Notebook::inside(const Steps& steps) {
  for (const Step& s : steps.list) inside_.push_back({s.name, cell_, s.code, s.value, s.in_place, true, s.head});
}

std::string Notebook::cell_code(int n) const {
  for (const NotebookItem& item : items_)
    if (item.kind == NotebookItem::Kind::Code && item.cell == n) return item.text;
  return "";
}

void Notebook::note(const std::string& key, std::vector<Prose> args) { note_case(key, "", std::move(args)); }

void Notebook::explain(const std::string& key, std::vector<Prose> args) { explain_case(key, "", std::move(args)); }

void Notebook::confusion(const std::string& key, std::vector<Prose> args) { confusion_case(key, "", std::move(args)); }

void Notebook::note_case(const std::string& key, const std::string& case_name, std::vector<Prose> args) {
  noted_cells_.push_back(cell_);
  prose(NotebookItem::Kind::Note, text_case(key, case_name, std::move(args)));
}

void Notebook::explain_case(const std::string& key, const std::string& case_name, std::vector<Prose> args) {
  explained_cells_.push_back(cell_);
  prose(NotebookItem::Kind::Explanation, text_case(key, case_name, std::move(args)));
}

void Notebook::confusion_case(const std::string& key, const std::string& case_name, std::vector<Prose> args) {
  noted_cells_.push_back(cell_);
  prose(NotebookItem::Kind::Confusion, text_case(key, case_name, std::move(args)));
}

namespace {

std::vector<int> cells_missing_from(const std::vector<int>& present, int cells) {
  std::vector<int> missing;
  for (int c = 1; c <= cells; ++c)
    if (std::find(present.begin(), present.end(), c) == present.end()) missing.push_back(c);
  return missing;
}

}  // namespace

std::vector<int> Notebook::cells_without_note() const { return cells_missing_from(noted_cells_, cell_); }
std::vector<int> Notebook::cells_without_explanation() const { return cells_missing_from(explained_cells_, cell_); }

void Notebook::positions_not_tokens(bool on) {
  positions_ = on;
  const bool marked = std::find(position_cells_.begin(), position_cells_.end(), cell_) != position_cells_.end();
  if (on && cell_ > 0 && !marked) position_cells_.push_back(cell_);
}

const std::vector<std::string>& Notebook::picture_tokens(int n) const {
  static const std::vector<std::string> none;
  return std::find(position_cells_.begin(), position_cells_.end(), n) != position_cells_.end() ? none : tokens_;
}

bool Notebook::uses_tokens() const {
  for (int n = 1; n <= cell_; ++n)
    if (std::find(position_cells_.begin(), position_cells_.end(), n) == position_cells_.end()) return true;
  return cell_ == 0;
}

void Notebook::append(const Notebook& other, const std::string& start_key) {
  const int base = cell_;
  if (!start_key.empty()) {
    NotebookItem start{NotebookItem::Kind::Heading, other.lesson_, base};
    std::string sections;
    for (const std::string& s : other.sections_) sections += (sections.empty() ? "" : ", ") + s;
    start.source = text(start_key + ".source", {other.lesson_});
    start.prose = text(start_key, {sections, std::to_string(base + 1)});
    start.table = other.text_;
    items_.push_back(start);
  }
  appended_after_.push_back(base);
  for (int c : other.appended_after_) appended_after_.push_back(base + c);
  const int tensor_base = static_cast<int>(tensors_.size());
  for (NotebookItem item : other.items_) {
    item.cell += base;
    if (item.tensor >= 0) item.tensor += tensor_base;
    items_.push_back(item);
  }
  for (NamedTensor t : other.tensors_) {
    t.cell += base;
    tensors_.push_back(t);
  }
  for (Binding b : other.timeline_) {
    b.cell += base;
    timeline_.push_back(b);
  }
  for (Binding b : other.inside_) {
    b.cell += base;
    inside_.push_back(b);
  }
  for (int c : other.noted_cells_) noted_cells_.push_back(c + base);
  for (int c : other.explained_cells_) explained_cells_.push_back(c + base);
  for (int c : other.position_cells_) position_cells_.push_back(c + base);
  cell_ += other.cell_;
  for (const std::string& s : other.sections_)
    if (std::find(sections_.begin(), sections_.end(), s) == sections_.end()) sections_.push_back(s);
}

}  // namespace attn
