// --py and --ipynb: a script and a Jupyter notebook of each lesson; pasteable listings on screen;
// shape notes that are Python. Real PyTorch runs the scripts in tools/check_py_export.py (not CI);
// here python3 (no torch needed) checks that every export parses and every notebook is nbformat 4.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "lessons/lesson.h"
#include "notebook/notebook_text.h"
#include "notebook/py_export.h"
#include "run_cli.h"

using nlohmann::json;

namespace {

using Kind = attn::NotebookItem::Kind;

// Every lesson at its defaults and with other sizes and a seed: enough to see each cell's variants.
std::vector<std::pair<std::string, attn::Notebook>> all_notebooks() {
  std::vector<std::pair<std::string, attn::Notebook>> out;
  for (const attn::LessonInfo& lesson : attn::lessons()) {
    attn::LessonOptions book;
    out.emplace_back(lesson.name, lesson.run(book));
    attn::LessonOptions other;
    other.seed = 7;
    other.seed_text = "7";
    other.dropout = 0.5;
    other.d_out = lesson.name == "mha-forms" ? 3 : 4;  // mha-forms: d_out = d_in
    other.d_out_given = true;
    out.emplace_back(lesson.name + "-seed7", lesson.run(other));
  }
  return out;
}

// The expression of a shape note "EXPR: torch.Size([...])".
std::string shape_expression(const std::string& note) { return note.substr(0, note.rfind(": torch.Size(")); }

std::string python3() {
  const int found = std::system("command -v python3 >/dev/null 2>&1");
  REQUIRE_MESSAGE(found == 0,
                  "python3 is not on PATH: the export checks parse the scripts with Python's ast "
                  "(python3 without torch is enough); install python3");
  // Debian's python3-nbformat (tools/install-deps.sh) lives with /usr/bin/python3: validate with it when there.
  if (std::system("/usr/bin/python3 -c 'import nbformat' >/dev/null 2>&1") == 0) return "/usr/bin/python3";
  return "python3";
}

}  // namespace

TEST_CASE("py export: every lesson's script parses, its notebook is nbformat 4 and its shape notes are Python") {
  const std::string dir = temp_dir();
  std::string files, shapes;
  int shape_notes = 0;
  for (const auto& [name, nb] : all_notebooks()) {
    files += " " + write_file(dir, name + ".py", attn::export_python(nb, attn::Lang::En));
    files += " " + write_file(dir, name + ".ipynb", attn::export_ipynb(nb, attn::Lang::Zh));
    for (const attn::NotebookItem& item : nb.items())
      if (item.kind == Kind::Shape) {
        shapes += shape_expression(item.text) + "\n";
        ++shape_notes;
      }
  }
  CHECK(shape_notes > 100);
  files += " " + write_file(dir, "notes.shapes", shapes);
  const std::string report = dir + "/check_exports.txt";
  const int rc = std::system(
      (python3() + " " ATTN_SOURCE_DIR "/tests/check_exports.py" + files + " > " + report + " 2>&1").c_str());
  CHECK_MESSAGE(rc == 0, read_text_file(report));
}

TEST_CASE("py export: the checker finds a script that is not Python and a shape note of the wrong expression") {
  const std::string dir = temp_dir();
  const std::string bad = write_file(dir, "bad.py", "print(x\n") + " " +
                          write_file(dir, "bad.shapes", "a @ a.transpose(2, 3).shape\n") + " " +
                          write_file(dir, "bad.ipynb", "{\"nbformat\": 3, \"cells\": []}\n");
  const std::string report = dir + "/bad.txt";
  CHECK(std::system((python3() + " " ATTN_SOURCE_DIR "/tests/check_exports.py " + bad + " > " + report).c_str()) != 0);
  const std::string text = read_text_file(report);
  CHECK(text.find("bad.py:") != std::string::npos);
  CHECK(text.find("is not the .shape of one expression") != std::string::npos);
  CHECK(text.find("not 4") != std::string::npos);
}

TEST_CASE("py export: the notebook's code cells are the lesson's cells, with what the tool prints as stdout") {
  const attn::Notebook nb = attn::find_lesson("mha")->run(attn::LessonOptions{});
  const json doc = json::parse(attn::export_ipynb(nb, attn::Lang::En));
  CHECK(doc["nbformat"] == 4);
  int cells = 0;
  std::string printed, script = attn::export_python(nb, attn::Lang::En);
  for (const json& cell : doc["cells"]) {
    if (cell["cell_type"] != "code" || cell["execution_count"].is_null()) continue;
    ++cells;
    const int n = cell["execution_count"];
    std::string source, text;
    for (const auto& s : cell["source"]) source += s.get<std::string>();
    CHECK(source == nb.cell_code(n));
    CHECK(script.find("# In [" + std::to_string(n) + "]:\n" + source + "\n") != std::string::npos);
    if (!cell["outputs"].empty())
      for (const auto& s : cell["outputs"][0]["text"]) text += s.get<std::string>();
    CHECK(text == attn::cell_stdout(nb, n));
    printed += text;
  }
  std::string outputs;
  for (const attn::NotebookItem& item : nb.items())
    if (item.kind == Kind::Output) outputs += item.text + "\n";
  CHECK(cells > 10);
  CHECK(printed == outputs);
  CHECK(script.rfind("# attn-tutor mha", 0) == 0);
  CHECK(script.find("import torch\nimport torch.nn as nn\n") != std::string::npos);
}

TEST_CASE("text: listings paste into the Python REPL (... ends a block, no prompt with a trailing space)") {
  attn::Notebook nb("t", {}, json::object(), {});
  nb.cell({"class A:", "    def f(self):", "        return 1", "", "    def g(self):", "        return 2", "",
           "a = A()", "for i in range(2):", "    print(i)", "print(a.f())", "x = (1,", "     2)", "y = 3", "", "z = 4",
           "if z:", "    print(z)"});
  attn::TextOptions options;
  CHECK(attn::render_text(nb, options) ==
        "\nIn [1]:\n>>> class A:\n...     def f(self):\n...         return 1\n...\n...     def g(self):\n"
        "...         return 2\n...\n>>> a = A()\n>>> for i in range(2):\n...     print(i)\n...\n>>> print(a.f())\n"
        ">>> x = (1,\n...      2)\n>>> y = 3\n>>>\n>>> z = 4\n>>> if z:\n...     print(z)\n...\n");
  const CliResult r = run_cli("wrapper --color never");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find(">>> \n") == std::string::npos);
  CHECK(r.out.find("...\n>>> torch.manual_seed(") != std::string::npos);
}

TEST_CASE("py export: --py and --ipynb write files all or none, '-' is standard output") {
  const std::string dir = temp_dir();
  const CliResult script = run_cli("softmax --py -");
  CHECK(script.exit_code == 0);
  CHECK(script.out.rfind("# attn-tutor softmax", 0) == 0);
  const CliResult notebook = run_cli("softmax --ipynb - --lang zh");
  CHECK(notebook.exit_code == 0);
  CHECK(json::parse(notebook.out)["nbformat"] == 4);
  const CliResult both = run_cli("softmax --py " + dir + "/s.py --ipynb " + dir + "/s.ipynb --color never");
  CHECK(both.exit_code == 0);
  CHECK(both.out.find("In [1]:") != std::string::npos);
  CHECK(read_text_file(dir + "/s.py") == script.out);
  CHECK(json::parse(read_text_file(dir + "/s.ipynb"))["cells"].size() > 5);
  expect_usage_error("softmax --py - --json -", "--json - and --py -");
  expect_usage_error("softmax --py ''", "--py ''");
  expect_usage_error("softmax --ipynb ''", "--ipynb ''");
  expect_usage_error("softmax --py " + dir + "/t.py --ipynb /nonexistent-attn-dir/t.ipynb", "--ipynb");
  CHECK(read_text_file(dir + "/t.py").empty());  // none written
}

TEST_CASE("py export: notes are Markdown that shows as written, explanations only with --explain") {
  const attn::Notebook nb = attn::find_lesson("trainable")->run(attn::LessonOptions{});
  auto markdown = [](const std::string& ipynb) {
    const json doc = json::parse(ipynb);
    std::string text;
    for (const json& cell : doc["cells"])
      if (cell["cell_type"] == "markdown")
        for (const auto& s : cell["source"]) text += s.get<std::string>();
    return text;
  };
  const std::string plain = markdown(attn::export_ipynb(nb, attn::Lang::En));
  const std::string explained = markdown(attn::export_ipynb(nb, attn::Lang::En, true));
  CHECK(explained.size() > plain.size());
  CHECK(explained.find("More: ") != std::string::npos);
  CHECK(plain.find("More: ") == std::string::npos);
  // `__init__` and grad_fn=<MmBackward0> would be bold text and an HTML tag in Markdown.
  CHECK(explained.find("\\_\\_init\\_\\_") != std::string::npos);
  CHECK(explained.find("__init__") == std::string::npos);
  CHECK(explained.find("\\<MmBackward0\\>") != std::string::npos);
  CHECK(attn::export_python(nb, attn::Lang::En, true).find("# More: ") != std::string::npos);
  CHECK(attn::export_python(nb, attn::Lang::En).find("# More: ") == std::string::npos);
}

TEST_CASE("py export: hostile tokens through --tokens and --inputs are refused or stay data in every export") {
  // tests/check_exports.py --hostile: quotes, backslashes, newlines, triple quotes, </script>, NUL and
  // control bytes, bytes that are not UTF-8, RTL and zero-width characters, 10k characters and a token
  // that would create PWNED, each through --tokens and --inputs, in two lessons, with --py, --ipynb,
  // --html and --json: every run is a clean refusal or exports that parse and give the tokens back.
  const std::string dir = temp_dir(), report = dir + "/hostile.txt";
  const int rc = std::system((python3() + " " ATTN_SOURCE_DIR "/tests/check_exports.py --hostile " ATTN_TUTOR_EXE " " +
                              dir + " > " + report + " 2>&1")
                                 .c_str());
  const std::string text = read_text_file(report);
  CHECK_MESSAGE(rc == 0, text);
  int refused = 0, exported = 0;
  REQUIRE(std::sscanf(text.c_str(), "hostile: %d runs refused, %d exported", &refused, &exported) == 2);
  CHECK(refused >= 20);   // control bytes, bad bytes, NUL, the 10k-character word
  CHECK(exported >= 60);  // everything printable, however hostile
}

TEST_CASE("py export: the hostile check finds injected code and tokens that do not come back") {
  const std::string dir = temp_dir(), report = dir + "/tokens.txt";
  auto tokens_of = [&](const std::string& name, const std::string& code, const std::string& expect) {
    const std::string path = write_file(dir, name, "import torch\n" + code + "\n");
    return std::system((python3() + " " ATTN_SOURCE_DIR "/tests/check_exports.py --tokens-of " + path + " '" + expect +
                        "' > " + report + " 2>&1")
                           .c_str()) == 0;
  };
  CHECK(tokens_of("good.py", "tokens = 'He said \"hi\"'.split()", "[\"He\", \"said\", \"\\\"hi\\\"\"]"));
  CHECK(tokens_of("list.py", "tokens = ['a b', '']", "[\"a b\", \"\"]"));
  // what main wrote before py_str: the sentence pasted between double quotes
  CHECK(!tokens_of("pwned.py", "tokens = \"x\"if(__import__(\"pathlib\").Path(\"PWNED\").touch())else\"x y\".split()",
                   "[\"x\\\"if(__import__(\\\"pathlib\\\").Path(\\\"PWNED\\\").touch())else\\\"x\", \"y\"]"));
  CHECK(read_text_file(report).find("names __import__") != std::string::npos);
  CHECK(!tokens_of("other.py", "tokens = 'a c'.split()", "[\"a\", \"b\"]"));
}

TEST_CASE("py export: the tokens line is py_str's, split() only when it gives the tokens back") {
  const CliResult quotes = run_cli("naive-scores --tokens 'He said \"hi\" to me' --py -");
  CHECK(quotes.out.find("tokens = 'He said \"hi\" to me'.split()\n") != std::string::npos);
  const CliResult wide = run_cli("naive-scores --tokens \"$(printf 'a\\342\\200\\200b c')\" --py -");  // U+2000
  CHECK(wide.out.find("tokens = ['a\\u2000b', 'c']\n") != std::string::npos);
  const std::string dir = temp_dir();
  const std::string in =
      write_file(dir, "in.json", "{\"tokens\": [\"a b\", \"\", \"it's\"], \"inputs\": [[1, 2], [3, 4], [5, 6]]}");
  const CliResult file = run_cli("mha --inputs " + in + " --py -");
  CHECK(file.exit_code == 0);
  CHECK(file.out.find("tokens = ['a b', '', \"it's\"]\ninputs = torch.tensor(\n") != std::string::npos);
  CHECK(file.out.find("# it's (x^3)") != std::string::npos);
  CHECK(file.out.find("  [[1.0, 2.0], # a b (x^1)") != std::string::npos);  // floats: int rows make an int64 tensor
  // the book's inputs keep the book's cell
  CHECK(run_cli("mha --py -").out.find("tokens = ") == std::string::npos);
}

TEST_CASE("py export: seeds and rates are written canonically, odd spellings refused") {
  for (const char* seed : {"0123", "+123", "00000000000000000000123"}) {
    const CliResult r = run_cli(std::string("mha --seed ") + seed + " --py -");
    CAPTURE(seed);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("torch.manual_seed(123)") != std::string::npos);
    CHECK(r.out.find(std::string("manual_seed(") + seed + ")") == std::string::npos);
  }
  CHECK(run_cli("mha --seed -05 --py -").out.find("torch.manual_seed(-5)") != std::string::npos);
  CHECK(run_cli("mha --seed -0 --py -").out.find("torch.manual_seed(0)") != std::string::npos);
  CHECK(run_cli("mha --seed 0123 --json -").out.find("\"seed\":123") != std::string::npos);
  CHECK(run_cli("trainable --seed 007 --explain --py -").out.find("007") == std::string::npos);
  for (const char* p : {"0.50", "5e-1", "+0.5", ".5", "0.5000000000000000001"}) {
    const CliResult r = run_cli(std::string("dropout --dropout ") + p + " --py -");
    CAPTURE(p);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("torch.nn.Dropout(0.5)") != std::string::npos);
  }
}

TEST_CASE("py export: an --inputs file name that is not UTF-8 still gives JSON and a notebook (U+FFFD in its place)") {
  const std::string dir = temp_dir();
  write_file(dir, "x\xff.json", read_text_file(ATTN_TEST_FIXTURE_DIR "/snapshot_inputs.json"));
  const CliResult r = run_cli("mha --inputs \"" + dir + "/$(printf 'x\\377').json\" --json " + dir +
                              "/o.json --ipynb " + dir + "/o.ipynb");
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  const json doc = json::parse(read_text_file(dir + "/o.json"));
  CHECK(doc["config"]["inputs"].get<std::string>().find("x\ufffd.json") != std::string::npos);
  CHECK(json::parse(read_text_file(dir + "/o.ipynb"))["nbformat"] == 4);
}
