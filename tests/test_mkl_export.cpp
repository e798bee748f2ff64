// --bernoulli mkl with --py / --ipynb: the masks are those of PyTorch <= 2.6 with MKL on an
// Intel CPU, which another PyTorch cannot draw. The script says so at the top, warns on stderr when it runs
// without MKL or on 2.7+ (its stdout stays what the tool printed), and the tool says so in one stderr line.
// The warning's condition runs here under python3 with a stand-in torch module (no torch needed).
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "run_cli.h"

namespace {

bool has(const std::string& text, const std::string& piece) { return text.find(piece) != std::string::npos; }

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// The script's top, up to its first heading: the imports and, with mkl, the comment and the check.
std::string header(const std::string& script) { return script.substr(0, script.find("\n# == ")); }

// Runs `code` with a stand-in torch (version, MKL or not); what it writes on stderr.
std::string stand_in_stderr(const std::string& code, const std::string& version, bool mkl) {
  const std::string dir = temp_dir();
  std::system(("mkdir -p " + dir + "/torch").c_str());
  write_file(dir + "/torch", "__init__.py",
             "__version__ = '" + version +
                 "'\nclass _Mkl:\n    @staticmethod\n    def is_available():\n        return " +
                 (mkl ? "True" : "False") + "\nclass backends:\n    mkl = _Mkl\n");
  write_file(dir + "/torch", "nn.py", "");
  const std::string script = write_file(dir, "top.py", code + "\n");
  const std::string err = dir + "/err.txt";
  const int rc = std::system(("PYTHONPATH=" + dir + " python3 " + script + " >/dev/null 2>" + err).c_str());
  REQUIRE_MESSAGE(rc == 0, "python3 could not run the script's top: " << read_text_file(err));
  return read_text_file(err);
}

}  // namespace

TEST_CASE("mkl export: the script says at the top that only PyTorch <= 2.6 with MKL on Intel draws its masks") {
  const CliResult mkl = run_cli("dropout --bernoulli mkl --py -");
  REQUIRE(mkl.exit_code == 0);
  const std::string top = header(mkl.out);
  CHECK(mkl.out.rfind("# attn-tutor dropout\n# --bernoulli mkl: this script reproduces the dropout masks", 0) == 0);
  CHECK(has(top, "PyTorch <= 2.6 built with MKL"));
  CHECK(has(top, "Intel CPU"));
  CHECK(has(top, "torch.backends.mkl.is_available()"));
  // the tool's own line, once, when the export is written
  CHECK(lines(mkl.err) == 1);
  CHECK(
      has(mkl.err, "attn-tutor: note: --bernoulli mkl: the exported script draws the dropout masks of PyTorch <= 2.6"));

  // without --bernoulli mkl: the plain imports, nothing on stderr
  const CliResult plain = run_cli("dropout --py -");
  CHECK(header(plain.out) == "# attn-tutor dropout\nimport torch\nimport torch.nn as nn\n");
  CHECK(plain.err.empty());
  // the lesson on screen writes no export: no note
  CHECK(run_cli("dropout --bernoulli mkl --color never").err.empty());

  // Chinese, a file, the notebook, every lesson that draws a mask
  const CliResult zh = run_cli("dropout --bernoulli mkl --lang zh --py -");
  CHECK(has(header(zh.out), "# --bernoulli mkl：只有在 Intel CPU 上运行、带 MKL 构建"));
  CHECK(has(zh.err, "注意：--bernoulli mkl"));
  const std::string dir = temp_dir();
  const CliResult file = run_cli("wrapper --dropout 0.5 --bernoulli mkl --py " + dir + "/w.py");
  CHECK(file.exit_code == 0);
  CHECK(has(read_text_file(dir + "/w.py"), "torch.backends.mkl.is_available()"));
  CHECK(lines(file.err) == 1);
  for (const char* args : {"mha --dropout 0.5 --bernoulli mkl", "all --bernoulli mkl", "course-mha --bernoulli mkl"}) {
    CAPTURE(args);
    const CliResult r = run_cli(std::string(args) + " --py -");
    CHECK(r.exit_code == 0);
    CHECK(has(header(r.out), "torch.backends.mkl.is_available()"));
  }
  const CliResult nb = run_cli("dropout --bernoulli mkl --ipynb -");
  REQUIRE(nb.exit_code == 0);
  std::string first;
  const nlohmann::json notebook = nlohmann::json::parse(nb.out);
  for (const auto& line : notebook["cells"][0]["source"]) first += line.get<std::string>();
  CHECK(has(first, "# --bernoulli mkl: this script reproduces"));
  CHECK(has(first, "import torch\nimport torch.nn as nn\n"));
  CHECK(has(first, "torch.backends.mkl.is_available()"));
  CHECK(lines(nb.err) == 1);
}

TEST_CASE("mkl export: the script's check warns on stderr exactly where PyTorch cannot draw the masks") {
  const std::string top = header(run_cli("dropout --bernoulli mkl --py -").out);
  const std::string warning = "warning: this PyTorch has no MKL or is 2.7 or later";
  CHECK(has(stand_in_stderr(top, "1.13.0a0", false), warning));  // Debian's build: no MKL
  CHECK(has(stand_in_stderr(top, "2.7.0+cpu", true), warning));  // MKL, but 2.7 draws with torch's generator
  CHECK(has(stand_in_stderr(top, "2.10.1", true), warning));
  CHECK(stand_in_stderr(top, "2.6.0+cpu", true).empty());  // the MKL path: nothing to say
  CHECK(stand_in_stderr(top, "1.13.1", true).empty());
}
