// The diagnoses' one table (lessons/mistakes.h) and where they live: each mistake one row, in MistakeId
// order, with its prose, its fixture and its README row; each lesson's reruns in its own folder, no
// lesson named in features/ or lib/; the dropout lesson's reseed reruns tied to the cells they name.
#include <doctest/doctest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "lessons/diagnosis.h"
#include "lessons/lesson.h"
#include "lessons/ui_text.h"
#include "run_cli.h"

namespace {

const std::string kRoot = std::string(ATTN_TEST_FIXTURE_DIR) + "/../../";

// The rows of README's table of diagnoses, each line as written.
std::vector<std::string> readme_rows() {
  const std::string readme = read_text_file(kRoot + "README.md");
  const std::string header = "| diagnosis | a learner's line that makes it | lessons |\n|---|---|---|\n";
  size_t at = readme.find(header);
  REQUIRE(at != std::string::npos);
  at += header.size();
  std::vector<std::string> rows;
  while (at < readme.size() && readme[at] == '|') {
    const size_t end = readme.find('\n', at);
    rows.push_back(readme.substr(at, end - at));
    at = end + 1;
  }
  return rows;
}

std::string md_cell(const std::string& s) {  // a Markdown table cell: | escaped
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

}  // namespace

TEST_CASE("diagnoses: one table, in MistakeId order, each row with its prose and fixture") {
  const std::vector<attn::Mistake>& all = attn::known_mistakes();
  REQUIRE(!all.empty());
  std::set<std::string> ids;
  for (size_t i = 0; i < all.size(); ++i) {
    const attn::Mistake& m = all[i];
    INFO(m.id);
    CHECK(static_cast<size_t>(m.key) == i);
    CHECK(&attn::mistake(m.key) == &m);
    CHECK(attn::find_mistake(m.id) == &m);
    CHECK(ids.insert(m.id).second);
    CHECK(!m.step.empty());
    CHECK(!m.changes.empty());
    CHECK(!m.example.empty());
    CHECK(std::filesystem::exists(std::string(ATTN_TEST_FIXTURE_DIR) + "/mistakes/" + m.fixture() + ".json"));
    for (const char* part : {".title", ".explain", ".fix"}) CHECK(attn::ui_text().has(m.text_key() + part));
  }
  CHECK(attn::find_mistake("no-such-mistake") == nullptr);
}

TEST_CASE("diagnoses: README's list of diagnoses is the table, row for row") {
  const std::vector<std::string> rows = readme_rows();
  const std::vector<attn::Mistake>& all = attn::known_mistakes();
  CHECK(rows.size() == all.size());
  for (size_t i = 0; i < std::min(rows.size(), all.size()); ++i) {
    INFO(all[i].id);
    const std::string start = "| " + all[i].title(attn::Lang::En) + " | `" + md_cell(all[i].example) + "` | ";
    CHECK(rows[i].substr(0, start.size()) == start);
  }
}

TEST_CASE("diagnoses: every lesson's reruns name the table's rows, and only its own folder names it") {
  // A lesson's diagnoses are its row's function (lessons/NAME/mistakes.cpp); features/ and lib/ branch on no
  // lesson's name and look up no lesson's default by name.
  std::vector<std::string> names;
  for (const attn::LessonInfo& l : attn::lessons()) names.push_back(l.name);
  for (const char* dir : {"features", "lib"})
    for (const auto& entry : std::filesystem::recursive_directory_iterator(kRoot + dir)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".cpp" && ext != ".h") continue;
      const std::string source = read_text_file(entry.path().string());
      for (const std::string& name : names)
        for (const std::string& use : {"lesson == \"" + name + "\"", "lesson != \"" + name + "\"",
                                       "lesson_default(\"" + name + "\"", "lesson_default_count(\"" + name + "\""}) {
          INFO(entry.path().string() << ": " << use);
          CHECK(source.find(use) == std::string::npos);
        }
    }
  int with = 0;
  for (const attn::LessonInfo& l : attn::lessons()) {
    if (!l.diagnoses) continue;
    ++with;
    const attn::LessonOptions book;
    attn::Reruns r{book, {}};
    l.diagnoses(r);
    CAPTURE(l.name);
    CHECK(!r.list.empty());
  }
  CHECK(with == 12);  // every lesson but naive-scores and mha-forms
}

TEST_CASE("diagnoses: each dropout reseed rerun leaves out the seed of the cell it names") {
  // The first value that changes is the one the named cell prints: reordering the lesson's dropout cells
  // cannot silently change what the diagnosis means.
  const attn::LessonInfo& dropout = *attn::find_lesson("dropout");
  const std::vector<attn::Binding> book = dropout.run(attn::LessonOptions{}).timeline();
  auto first_change = [&](const attn::LessonOptions& o) {
    const std::vector<attn::Binding> t = dropout.run(o).timeline();
    REQUIRE(t.size() == book.size());
    for (size_t i = 0; i < t.size(); ++i)
      if (t[i].tensor.values() != book[i].tensor.values()) return t[i].name;
    return std::string();
  };
  attn::LessonOptions weights, sum;
  weights.cells.no_reseed_before_dropout_weights = true;
  sum.cells.no_reseed_before_dropout_sum = true;
  CHECK(first_change(weights) == "dropout(attn_weights)");
  CHECK(first_change(sum) == "dropout(attn_weights).sum(dim=-1)");
  // The lesson's reruns: each detail says which seed is missing, and its rerun leaves out exactly that one.
  const attn::LessonOptions defaults;
  attn::Reruns r{defaults, {}};
  dropout.diagnoses(r);
  int reseeds = 0;
  for (const attn::MistakeRerun& m : r.list) {
    if (m.mistake != attn::MistakeId::DropoutReseed) continue;
    ++reseeds;
    const attn::CellVariant& c = m.opt.cells;
    INFO(m.detail.key);
    if (m.detail.key == "check.detail.reseed-weights")
      CHECK((c.no_reseed_before_dropout_weights && !c.no_reseed_before_dropout_sum));
    else if (m.detail.key == "check.detail.reseed-sum")
      CHECK((!c.no_reseed_before_dropout_weights && c.no_reseed_before_dropout_sum));
    else
      CHECK((m.detail.key == "check.detail.reseed-both" && c.no_reseed_before_dropout_weights &&
             c.no_reseed_before_dropout_sum));
    CHECK(first_change(m.opt) ==
          (c.no_reseed_before_dropout_weights ? "dropout(attn_weights)" : "dropout(attn_weights).sum(dim=-1)"));
  }
  CHECK(reseeds == 3);
}
