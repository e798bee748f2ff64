// --inputs whose numbers are whole (JSON integers): the tool computes in float32, so every place the
// inputs appear as Python (the cells on screen, --py, --ipynb) must write float literals ("1.0", "1e+08"):
// a list of Python ints makes torch.tensor an int64 tensor, which prints other numbers, and softmax and
// nn.Linear refuse it. Real PyTorch runs those exports in tools/check_py_export.py (its integer set).
#include <doctest/doctest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_cli.h"

namespace {

// The literal rows of every `inputs = torch.tensor(` ... `)` in `code` (a script, a notebook's joined cells,
// or the screen with its `>>> `/`... ` prompts), each without its label comment; empty when absent.
std::vector<std::string> inputs_rows(const std::string& code) {
  std::vector<std::string> rows;
  std::istringstream in(code);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind(">>> ", 0) == 0 || line.rfind("... ", 0) == 0) line = line.substr(4);
    if (!inside) {
      inside = line == "inputs = torch.tensor(";
      continue;
    }
    if (line == ")") {
      inside = false;
      continue;
    }
    rows.push_back(line.substr(0, line.find('#')));
  }
  return rows;
}

// True when every number in `rows` is a Python float literal (has a '.' or an exponent) and there is one.
bool all_float_literals(const std::vector<std::string>& rows) {
  static const std::regex number("-?[0-9][0-9.eE+-]*");
  int count = 0;
  for (const std::string& row : rows) {
    for (auto it = std::sregex_iterator(row.begin(), row.end(), number); it != std::sregex_iterator(); ++it) {
      const std::string n = it->str();
      ++count;
      if (n.find_first_of(".eE") == std::string::npos) return false;
    }
  }
  return count > 0;
}

// The code of a notebook's code cells, joined.
std::string notebook_code(const std::string& ipynb) {
  std::string code;
  const nlohmann::json notebook = nlohmann::json::parse(ipynb);
  for (const auto& cell : notebook["cells"])
    if (cell["cell_type"] == "code") {
      for (const auto& line : cell["source"]) code += line.get<std::string>();
      code += "\n";
    }
  return code;
}

const char* const kLessons[] = {"naive-scores", "softmax", "trainable", "causal-mask", "dropout", "wrapper", "mha",
                                "course-mha",   "d2l-mha", "kv-cache",  "gqa",         "mla",     "swa",     "all"};

}  // namespace

TEST_CASE("integer inputs: the check finds a row of Python ints") {
  CHECK(!all_float_literals({"  [[1, 0], "}));
  CHECK(!all_float_literals({"  [[1.0, 0.0], ", "   [1, 1.0]] "}));
  CHECK(!all_float_literals({}));
  CHECK(all_float_literals({"  [[1.0, -0.0], ", "   [1e+08, 16777216.0]] "}));
  CHECK(inputs_rows(">>> inputs = torch.tensor(\n...   [[1, 0], # x1 (x^1)\n... )\n") ==
        std::vector<std::string>{"  [[1, 0], "});
}

TEST_CASE("integer inputs: every lesson writes them as float literals on screen, in --py and in --ipynb") {
  const std::string dir = temp_dir();
  const std::vector<std::string> files = {write_file(dir, "bare.json", "[[1,0],[0,1],[1,1]]"),  // the literal
                                          write_file(dir, "wide.json",
                                                     "{\"tokens\": [\"a\", \"b\", \"c\"], \"inputs\": "
                                                     "[[-3, 0, 100000000, 7], [16777217, 2, 5, -0], [1, 1, 1, 1]]}")};
  for (const std::string& file : files) {
    for (const std::string lesson : kLessons) {
      CAPTURE(lesson);
      CAPTURE(file);
      const CliResult screen = run_cli(lesson + " --inputs " + file + " --color never");
      const CliResult script = run_cli(lesson + " --inputs " + file + " --py -");
      const CliResult notebook = run_cli(lesson + " --inputs " + file + " --ipynb -");
      REQUIRE(screen.exit_code == 0);
      REQUIRE(script.exit_code == 0);
      REQUIRE(notebook.exit_code == 0);
      CHECK(all_float_literals(inputs_rows(screen.out)));
      CHECK(all_float_literals(inputs_rows(script.out)));
      CHECK(all_float_literals(inputs_rows(notebook_code(notebook.out))));
    }
  }
  // the shortest float32 text, made a float: 1e+08 as it is, 16777217 as the float32 it is
  const std::string wide = run_cli("mha --inputs " + files[1] + " --py -").out;
  CHECK(wide.find("  [[-3.0, 0.0, 1e+08, 7.0], # a (x^1)\n") != std::string::npos);
  CHECK(wide.find("   [16777216.0, 2.0, 5.0, 0.0], # b (x^2)\n") != std::string::npos);
}
