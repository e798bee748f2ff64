#include "notebook/notebook.h"

#include <algorithm>

#include "core/print.h"
#include "core/tensor_print.h"

namespace attn {

Notebook::Notebook(std::string lesson, std::vector<std::string> sections, nlohmann::json config,
                   std::vector<std::string> tokens)
    : lesson_(std::move(lesson)),
      sections_(std::move(sections)),
      config_(std::move(config)),
      tokens_(std::move(tokens)) {}

void Notebook::set_language(Lang lang, bool explain) {
  lang_ = lang;
  explain_ = explain;
}

void Notebook::heading(const std::string& section, const std::string& title) {
  ++untranslated_;
  items_.push_back({NotebookItem::Kind::Heading, section + "  " + title, cell_});
}

void Notebook::heading(const std::string& section, const std::string& title_en, const std::string& title_zh) {
  if (title_en.empty() || title_zh.empty()) ++untranslated_;
  items_.push_back({NotebookItem::Kind::Heading, section + "  " + (lang_ == Lang::Zh ? title_zh : title_en), cell_});
}

void Notebook::cell(const std::vector<std::string>& code) {
  ++cell_;
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

void Notebook::show(const std::string& name, const Tensor& t) { show("", name, t); }

void Notebook::show(const std::string& label, const std::string& name, const Tensor& t) {
  const int index = static_cast<int>(tensors_.size());
  items_.push_back({NotebookItem::Kind::Output, label.empty() ? repr(t) : label + " " + repr(t), cell_, index});
  items_.push_back({NotebookItem::Kind::Shape, name + ".shape: " + repr_size(t.shape()), cell_});
  record(name, t);
}

void Notebook::print(const std::string& text) { items_.push_back({NotebookItem::Kind::Output, text, cell_}); }

void Notebook::record(const std::string& name, const Tensor& t) {
  tensors_.push_back({name, cell_, code_for(name), t});
}

void Notebook::note(const std::string& text) {
  ++untranslated_;
  noted_cells_.push_back(cell_);
  items_.push_back({NotebookItem::Kind::Note, text, cell_});
}

void Notebook::note(const std::string& en, const std::string& zh) {
  if (en.empty() || zh.empty()) ++untranslated_;
  noted_cells_.push_back(cell_);
  items_.push_back({NotebookItem::Kind::Note, lang_ == Lang::Zh ? zh : en, cell_});
}

void Notebook::explain(const std::string& en, const std::string& zh) {
  if (en.empty() || zh.empty()) ++untranslated_;
  explained_cells_.push_back(cell_);
  if (explain_) items_.push_back({NotebookItem::Kind::Note, lang_ == Lang::Zh ? "详解：" + zh : "More: " + en, cell_});
}

void Notebook::confusion(const std::string& en, const std::string& zh) {
  if (en.empty() || zh.empty()) ++untranslated_;
  noted_cells_.push_back(cell_);
  items_.push_back({NotebookItem::Kind::Note,
                    lang_ == Lang::Zh ? "⚠ 常见误区：" + zh : "⚠ Common confusion: " + en, cell_});
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

void Notebook::append(const Notebook& other) {
  const int base = cell_;
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
  for (int c : other.noted_cells_) noted_cells_.push_back(c + base);
  for (int c : other.explained_cells_) explained_cells_.push_back(c + base);
  untranslated_ += other.untranslated_;
  cell_ += other.cell_;
  for (const std::string& s : other.sections_)
    if (std::find(sections_.begin(), sections_.end(), s) == sections_.end()) sections_.push_back(s);
}

}  // namespace attn
