#pragma once
// A lesson's record: cells of PyTorch code, what they print, shapes and annotations, and every
// named intermediate for the JSON export. Lessons fill it; render_text and export_json read it.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/steps.h"
#include "core/tensor.h"
#include "notebook/prose.h"

namespace attn {

struct NamedTensor {
  std::string name;  // the book's variable name or printed expression
  int cell = 0;      // In [n]
  std::string code;  // the line that produced it
  Tensor tensor;
};

// One value a name takes in the lesson's program, in compute order: a binding (`x = ...`) or an
// in-place change of the object the name holds (`x.masked_fill_(...)`).
struct Binding {
  std::string name;
  int cell = 0;      // the cell that shows it (else the cell that computes it)
  std::string code;  // the line that gives the value
  Tensor tensor;
  bool in_place = false;
  bool traced = false;    // from a forward's steps, not yet claimed by a show() or record()
  int head = -1;          // the head whose forward gives it (Step::head)
  int forward_cell = -1;  // a traced step a later show() or record() claimed: the cell whose forward computed it
};

struct NotebookItem {
  enum class Kind { Heading, Code, Output, Shape, Note, Explanation, Confusion };
  Kind kind;
  std::string text;  // Code, Output, Shape: as printed; Heading: the section number
  int cell = 0;
  int tensor = -1;    // Output of show(): index into tensors()
  Prose prose = {};   // Heading (its title), Note, Explanation, Confusion: rendered in the reader's language
  Prose source = {};  // Heading beside the book: where it comes from ("d2l.ai §11.5"), shown instead of `text`
  const TextTable* table = nullptr;
};

// What the reader sees of an item in `lang`: the heading "3.5.2  Title", a note, "More: ..." or
// "⚠ Common confusion: ..."; the text itself for code, outputs and shapes.
std::string item_text(const NotebookItem& item, Lang lang);

// One setting a lesson ran with, as its HTML report lists it: the option's config name ("num_heads") and
// the value it used (given, or the lesson's default; a sentence of the lesson's text table where the
// default is one, "the book's torch.manual_seed values").
struct Setting {
  std::string name;
  Prose value;
};

class Notebook {
 public:
  // `text` holds the lesson's prose (titles, notes, explanations, confusions) in both languages.
  Notebook(std::string lesson, std::vector<std::string> sections, nlohmann::json config,
           std::vector<std::string> tokens, const TextTable* text = nullptr);

  void heading(const std::string& section, const std::string& key, std::vector<Prose> args = {});
  // A heading whose title is one case of a key with cases (notebook/prose.h).
  void heading_case(const std::string& section, const std::string& key, const std::string& case_name);
  // A heading beside the book: `section` names it for --from ("d2l 11.5"); the reader sees its source
  // as the learner knows it, `source_key` of the lesson's text table ("d2l.ai §11.5").
  void source_heading(const std::string& section, const std::string& source_key, const std::string& key,
                      std::vector<Prose> args = {});
  // Starts In [n] with the code lines as the book writes them.
  void cell(const std::vector<std::string>& code);
  // print(t): the tensor text, its shape, and the tensor recorded under `name`.
  // `again`: a new binding even when t is the name's current value (a loop's step assigns the name again).
  void show(const std::string& name, const Tensor& t, bool again = false);
  // print("label", t): PyTorch joins with one space; only the first line shifts.
  void show(const std::string& label, const std::string& name, const Tensor& t);
  void print(const std::string& text);                                        // any other line the code prints
  void record(const std::string& name, const Tensor& t, bool again = false);  // JSON only
  // The steps of a forward the cell runs, in compute order. A later show() or record() of one of
  // these values places it in its own cell.
  void trace(const Steps& steps);
  // The steps of a forward the cell runs, for the pictures only (--heatmap, --html): the attention
  // weights inside a module that no output shows. Neither in the timeline nor in the JSON.
  void inside(const Steps& steps);
  // The annotation of the cell: a key of the lesson's text table and the values it quotes.
  void note(const std::string& key, std::vector<Prose> args = {});
  // The longer explanation of the cell (rendered with --explain only).
  void explain(const std::string& key, std::vector<Prose> args = {});
  // A well-known confusion, where it arises (always shown).
  void confusion(const std::string& key, std::vector<Prose> args = {});
  // The same for a key with cases (en[case] = ... in the text table, notebook/prose.h): the case that
  // holds here, each a whole sentence.
  void note_case(const std::string& key, const std::string& case_name, std::vector<Prose> args = {});
  void explain_case(const std::string& key, const std::string& case_name, std::vector<Prose> args = {});
  void confusion_case(const std::string& key, const std::string& case_name, std::vector<Prose> args = {});
  // From the current cell on (`on`) or from the next cell on (`!on`): the cells' matrices are indexed by
  // position, not by the lesson's tokens (their inputs are not the token embeddings: d2l's torch.ones, a
  // random X), so their pictures number their rows and columns and say why.
  void positions_not_tokens(bool on = true);
  // The labels of the pictures of cell `n`: the tokens, or none (numbered) for a positions_not_tokens() cell.
  const std::vector<std::string>& picture_tokens(int n) const;
  // Some cell's pictures are labelled with the tokens (not every cell is positions_not_tokens()).
  bool uses_tokens() const;
  // Cells with no annotation, and with no explanation.
  std::vector<int> cells_without_note() const;
  std::vector<int> cells_without_explanation() const;

  const std::string& lesson() const { return lesson_; }
  const std::vector<std::string>& sections() const { return sections_; }
  const nlohmann::json& config() const { return config_; }
  const std::vector<std::string>& tokens() const { return tokens_; }
  // The settings the lesson takes with the values it used (lessons/lesson.cpp); empty: the config's.
  void set_settings(std::vector<Setting> settings) { settings_ = std::move(settings); }
  const std::vector<Setting>& settings() const { return settings_; }
  // The value a lesson resolved for setting `name` (a default that follows from other options); none
  // when the lesson does not take it.
  void resolve_setting(const std::string& name, Prose value) {
    for (Setting& s : settings_)
      if (s.name == name) s.value = std::move(value);
  }
  const TextTable* text_table() const { return text_; }
  const std::vector<NotebookItem>& items() const { return items_; }
  const std::vector<NamedTensor>& tensors() const { return tensors_; }
  // Every value each name takes, in compute order (show, record and trace; a re-show of a name's
  // current value adds nothing).
  const std::vector<Binding>& timeline() const { return timeline_; }
  const std::vector<Binding>& inside_values() const { return inside_; }
  // The cells after which another notebook was appended (`all`: where each lesson starts), in order.
  const std::vector<int>& appended_after() const { return appended_after_; }
  // The code of cell `n` (In [n]), its lines joined with newlines.
  std::string cell_code(int n) const;
  // Appends another notebook's items and tensors (for `all`), renumbering its cells. With `start_key`, a
  // heading opens the appended part: the lesson's name as its section (so `--from LESSON` starts there),
  // shown as `start_key`.source of the other notebook's text table with {the lesson}, then `start_key`
  // with {its sections, "3.3.1, 3.3.2"; the number its first cell gets here}.
  void append(const Notebook& other, const std::string& start_key = "");

 private:
  std::string code_for(const std::string& name) const;
  void prose(NotebookItem::Kind kind, Prose prose);

  std::string lesson_;
  std::vector<std::string> sections_;
  nlohmann::json config_;
  std::vector<std::string> tokens_;
  std::vector<NotebookItem> items_;
  std::vector<NamedTensor> tensors_;
  std::vector<Binding> timeline_;
  std::vector<Binding> inside_;
  std::vector<int> appended_after_;
  std::vector<std::string> cell_code_;
  int cell_ = 0;
  const TextTable* text_ = nullptr;
  std::vector<int> noted_cells_;
  std::vector<int> explained_cells_;
  std::vector<int> position_cells_;
  bool positions_ = false;
  std::vector<Setting> settings_;
};

}  // namespace attn
