// The text view's listings as Python's REPL shows them: inside a class or def body every line,
// blank ones included, continues with "...", whatever follows the header's colon.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "notebook/notebook_text.h"
#include "run_cli.h"

namespace {

std::string listing(const std::vector<std::string>& code) {
  attn::Notebook nb("t", {}, nlohmann::json::object(), {});
  nb.cell(code);
  return attn::render_text(nb, attn::TextOptions{});
}

// The lines of `text` from the one starting with `first` to the first line after it starting with `end`.
std::string lines_between(const std::string& text, const std::string& first, const std::string& end) {
  const size_t from = text.find(first);
  if (from == std::string::npos) return "";
  const size_t to = text.find("\n" + end, from);
  return text.substr(from, to == std::string::npos ? std::string::npos : to + 1 - from);
}

}  // namespace

TEST_CASE("text: a class header with a comment after its colon keeps its blank lines as ...") {
  CHECK(listing({"class A(nn.Module):  # chapter 3's, plus a cache", "    def f(self):", "        return 1", "",
                 "    def g(self):  # the second", "        return '#:'", "", "a = A()"}) ==
        "\nIn [1]:\n>>> class A(nn.Module):  # chapter 3's, plus a cache\n...     def f(self):\n...         return 1\n"
        "...\n...     def g(self):  # the second\n...         return '#:'\n...\n>>> a = A()\n");
  // a '#' inside a string is no comment: the colon after it still opens the block
  CHECK(listing({"if s == '#':", "    x = 1", "y = 2"}) ==
        "\nIn [1]:\n>>> if s == '#':\n...     x = 1\n...\n>>> y = 2\n");
  // a comment that ends with a colon opens nothing
  CHECK(listing({"x = 1  # note:", "y = 2"}) == "\nIn [1]:\n>>> x = 1  # note:\n>>> y = 2\n");
  // a header split over lines, two blank lines inside the body
  CHECK(
      listing({"def f(a,", "      b):", "    c = a", "", "", "    return c + b", "z = f(1, 2)"}) ==
      "\nIn [1]:\n>>> def f(a,\n...       b):\n...     c = a\n...\n...\n...     return c + b\n...\n>>> z = f(1, 2)\n");
  // a blank line between top-level statements stays a bare >>>
  CHECK(listing({"x = 1", "", "y = 2"}) == "\nIn [1]:\n>>> x = 1\n>>>\n>>> y = 2\n");
}

TEST_CASE("text: kv-cache's class listing has no bare >>> inside its body") {
  const CliResult r = run_cli("kv-cache --color never");
  REQUIRE(r.exit_code == 0);
  const std::string body = lines_between(r.out, ">>> class ", ">>> torch.manual_seed");
  REQUIRE(!body.empty());
  std::istringstream lines(body);
  std::string line;
  std::getline(lines, line);  // the class line itself
  for (; std::getline(lines, line);) {
    if (line.rfind(">>> torch.manual_seed", 0) == 0) break;
    CHECK_MESSAGE(line.rfind("...", 0) == 0, line);
  }
}

TEST_CASE("repl: a Python comment starts at the first # outside a string literal") {
  CHECK(attn::python_comment_start("x = 1  # one") == 7);
  CHECK(attn::python_comment_start("# a whole line") == 0);
  CHECK(attn::python_comment_start("s = '# not a comment'  # but this") == 23);
  CHECK(attn::python_comment_start("s = \"it\\\"s # still a string\"") == std::string::npos);
  CHECK(attn::python_comment_start("print(x)") == std::string::npos);
}
