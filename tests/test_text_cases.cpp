// A text table's sentence with cases (notebook/prose.h): one key, a whole sentence per case in each
// language, the case named by the caller; a missing case or language is reported, never glued.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "notebook/prose.h"

using namespace attn;

TEST_CASE("text cases: a sentence with cases is one key, each case whole and in both languages") {
  const TextTable table("test.txt",
                        "[seed.note]\n"
                        "en[book] = The book's seed, {1}.\n"
                        "en[own] = Your seed, {1}: other numbers.\n"
                        "zh[book] = 书中的种子 {1}。\n"
                        "zh[own] = 你的种子 {1}：数值不同。\n"
                        "[plain]\n"
                        "en = Plain.\n"
                        "zh = 普通。\n");
  CHECK(table.render(text_case("seed.note", "book", {"123"}), Lang::En) == "The book's seed, 123.");
  CHECK(table.render(text_case("seed.note", "own", {"5"}), Lang::En) == "Your seed, 5: other numbers.");
  CHECK(table.render(text_case("seed.note", "own", {"5"}), Lang::Zh) == "你的种子 5：数值不同。");
  CHECK(table.cases("seed.note") == std::vector<std::string>{"book", "own"});
  CHECK(table.cases("plain").empty());
  CHECK(table.incomplete().empty());
  // A case not in the table, no case where one is needed, a case of a plain key: each shows as missing.
  CHECK(table.render(text_case("seed.note", "other"), Lang::En) == "[no text: seed.note[other]]");
  CHECK(table.render(text("seed.note", {"1"}), Lang::En) == "[no text: seed.note[]]");
  CHECK(table.render(text_case("plain", "own"), Lang::En) == "[no text: plain[own]]");
  CHECK(table.render(text("plain"), Lang::Zh) == "普通。");

  // A case without its Chinese is incomplete; a key with cases and a plain en/zh is refused.
  const TextTable missing("missing.txt", "[k]\nen[a] = A.\nzh[a] = 甲。\nen[b] = B.\n");
  CHECK(missing.incomplete() == std::vector<std::string>{"missing.txt: [k] zh[b]"});
  CHECK_THROWS_AS(TextTable("mixed.txt", "[k]\nen = A.\nen[b] = B.\n"), std::logic_error);
  CHECK_THROWS_AS(TextTable("bad.txt", "[k]\nen[] = A.\n"), std::logic_error);
  CHECK_THROWS_AS(TextTable("bad.txt", "[k]\nen[a b] = A.\n"), std::logic_error);
  CHECK_THROWS_AS(TextTable("bad.txt", "[k]\nfr = A.\n"), std::logic_error);
}
