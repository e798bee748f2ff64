// The Python beside the binary, with python3 alone (no torch): python/ (the learners' exporter and the
// tracer the binary embeds), tools/program_diffs.py (the learner corpus stored once: the book's code in
// tools/book_listings.py, a program that changes another as a diff against it) and tools/common.py (a case's command line from the binary's own option table).
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "features/check/python_trace.h"
#include "run_cli.h"

namespace {

namespace fs = std::filesystem;

const std::string kSource = ATTN_SOURCE_DIR;

struct Run {
  int code;
  std::string out;
  std::string err;
};

// `python3 ARGS` in the source tree, its stdout and stderr kept apart.
Run python(const std::string& dir, const std::string& args, const std::string& env = "") {
  REQUIRE_MESSAGE(std::system("command -v python3 >/dev/null 2>&1") == 0, "python3 is not on PATH; install python3");
  const std::string out = dir + "/py.out", err = dir + "/py.err";
  const int status =
      std::system(("cd '" + kSource + "' && " + env + " python3 " + args + " >'" + out + "' 2>'" + err + "'").c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text_file(out), read_text_file(err)};
}

std::vector<std::string> files_in(const std::string& dir, const std::string& ext) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ext) names.push_back(e.path().stem().string());
  return names;
}

}  // namespace

TEST_CASE("python/: the tracer the binary embeds is python/tracer.py, and the exports name python/export_pytorch.py") {
  CHECK(attn::embedded_tracer() == read_text_file(kSource + "/python/tracer.py"));
  CHECK(fs::exists(kSource + "/python/export_pytorch.py"));
  int fixtures = 0;
  for (const auto& e : fs::directory_iterator(std::string(ATTN_TEST_FIXTURE_DIR) + "/mistakes")) {
    const auto doc = nlohmann::json::parse(read_text_file(e.path().string()));
    CHECK_MESSAGE(doc.value("exporter", "") == "python/export_pytorch.py", e.path().string());
    ++fixtures;
  }
  CHECK(fixtures > 50);
}

TEST_CASE("learner corpus: every program stored as a diff applies to its base, whole") {
  const std::string dir = temp_dir();
  const std::vector<std::pair<std::string, std::string>> folders{{"tests/learners", dir + "/learners"},
                                                                 {"tests/fixtures/traces/programs", dir + "/traces"}};
  for (const auto& folder : folders) {
    const Run r = python(dir, "tools/program_diffs.py --out '" + folder.second + "' " + folder.first);
    REQUIRE_MESSAGE(r.code == 0, r.err);
  }
  for (const auto& folder : folders) {
    const std::string out = folder.second;
    const auto diffs = files_in(kSource + "/" + folder.first, ".diff");
    const auto whole = files_in(kSource + "/" + folder.first, ".py");
    CHECK(diffs.size() >= 3);
    CHECK(files_in(out, ".py").size() == diffs.size() + whole.size());
    for (const auto& name : diffs) {
      const std::string diff = read_text_file(kSource + "/" + folder.first + "/" + name + ".diff");
      const std::string base = diff.substr(4, diff.find('\n') - 4);
      // The base: a program of the same folder, or a path from the repository's root; whole, or a diff itself.
      const fs::path where = base.find('/') == std::string::npos ? fs::path(folder.first) / base : fs::path(base);
      std::string base_out;
      for (const auto& f : folders)
        if (fs::path(f.first) == where.parent_path()) base_out = f.second + "/" + where.filename().string();
      REQUIRE_MESSAGE(!base_out.empty(), name);
      const std::string stem = kSource + "/" + (where.parent_path() / where.stem()).string();
      CHECK_MESSAGE((fs::exists(stem + ".py") || fs::exists(stem + ".diff")), name);
      CHECK_MESSAGE(read_text_file(out + "/" + name + ".py") != read_text_file(base_out), name);  // the change applied
    }
    for (const auto& name : whole)  // every `# <book: NAME>` line expanded to the book's code
      CHECK_MESSAGE(read_text_file(out + "/" + name + ".py").find("# <book:") == std::string::npos, name);
  }
  // Every program the manifest expects is there, whole or as a diff.
  const auto manifest = nlohmann::json::parse(read_text_file(kSource + "/tests/learners/expected.json"));
  CHECK(manifest["programs"].size() == 83);
  for (const auto& item : manifest["programs"].items()) {  // not a structured binding: clang 14 cannot capture one
    const std::string name = item.key();
    if (!item.value().contains("package")) {
      CHECK_MESSAGE(fs::exists(dir + "/learners/" + name + ".py"), name);
      continue;
    }
    // A package program: its folder, with its main module there or in its base's (whole or as a diff).
    const std::string main = item.value()["package"].get<std::string>();
    const std::string base = item.value().value("package_base", name);
    const std::string stem = kSource + "/tests/learners/packages/" + base + "/" + main.substr(0, main.size() - 3);
    CHECK_MESSAGE(fs::is_directory(kSource + "/tests/learners/packages/" + name), name);
    CHECK_MESSAGE((fs::exists(stem + ".py") || fs::exists(stem + ".diff")), name);
  }
}

TEST_CASE("learner corpus: a `# <book: NAME>` line becomes the book's code of tools/book_listings.py") {
  const std::string dir = temp_dir();
  const std::string corpus = dir + "/corpus";
  fs::create_directories(corpus);
  write_file(corpus, "whole.py", "import torch\n# <book: CausalAttention>\nprint(1)\n");
  write_file(corpus, "init.py", "# <book: MultiHeadAttention.__init__>\n# <book: inputs>\n");
  write_file(corpus, "changed.diff",
             "--- whole.py\n+++ changed.py\n@@ -1,3 +1,3 @@\n-import torch\n+import torch  # changed\n"
             " class CausalAttention(nn.Module):\n     def __init__(self, d_in, d_out, context_length, dropout, "
             "qkv_bias=False):\n");
  const Run r = python(dir, "tools/program_diffs.py --out '" + dir + "/out' '" + corpus + "'");
  REQUIRE_MESSAGE(r.code == 0, r.err);
  const std::string book = read_text_file(kSource + "/tools/book_listings.py");
  const std::string whole = read_text_file(dir + "/out/whole.py");
  const size_t at = book.find("class CausalAttention(nn.Module):");
  REQUIRE(at != std::string::npos);
  const std::string causal = book.substr(at, book.find("\n\n\nclass ", at) + 1 - at);  // the class, to its last line
  CHECK(whole == "import torch\n" + causal + "print(1)\n");
  CHECK(read_text_file(dir + "/out/changed.py") == "import torch  # changed\n" + causal + "print(1)\n");
  const std::string init = read_text_file(dir + "/out/init.py");
  check_contains(init, {"class MultiHeadAttention(nn.Module):", "self.register_buffer(", "inputs = torch.tensor(",
                        "# step     (x^6)\n)\n"});
  CHECK(init.find("def forward") == std::string::npos);  // the constructor only
  // A name the book does not have: one line, nothing written.
  write_file(corpus, "init.py", "# <book: CausalAttention_v9>\n");
  const Run bad = python(dir, "tools/program_diffs.py --out '" + dir + "/out2' '" + corpus + "'");
  CHECK(bad.code == 1);
  CHECK(count_lines(bad.err) == 1);
  check_contains(bad.err, {"init.py line 1", "has no CausalAttention_v9"});
  CHECK_FALSE(fs::exists(dir + "/out2"));
  // Two diffs that name each other as their base: refused, not an endless loop.
  write_file(corpus, "init.py", "x = 1\n");
  write_file(corpus, "a.diff", "--- b.py\n+++ a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n");
  write_file(corpus, "b.diff", "--- a.py\n+++ b.py\n@@ -1 +1 @@\n-x = 2\n+x = 1\n");
  const Run circle = python(dir, "tools/program_diffs.py --out '" + dir + "/out3' '" + corpus + "'");
  CHECK(circle.code == 1);
  check_contains(circle.err, {"its bases come back to it"});
  CHECK_FALSE(fs::exists(dir + "/out3"));
}

TEST_CASE("learner corpus: a diff that no longer applies is refused with one line, and nothing is written") {
  const std::string dir = temp_dir();
  const std::string corpus = dir + "/corpus";
  fs::create_directories(corpus);
  const std::string learners = kSource + "/tests/learners/";
  const Run whole = python(dir, "tools/program_diffs.py --out '" + dir + "/whole' tests/learners");
  REQUIRE_MESSAGE(whole.code == 0, whole.err);
  fs::copy_file(dir + "/whole/c12_mha_book_steps.py", corpus + "/c12_mha_book_steps.py");
  std::string diff = read_text_file(learners + "m05_mha_scale_dout.diff");
  diff.replace(diff.find("\n-attn_weights"), 14, "\n-attn_weightz");  // a removed line the base does not have
  write_file(corpus, "m05_mha_scale_dout.diff", diff);
  const Run r = python(dir, "tools/program_diffs.py --out '" + dir + "/out' '" + corpus + "'");
  CHECK(r.code == 1);
  CHECK(count_lines(r.err) == 1);
  check_contains(r.err, {"m05_mha_scale_dout.diff line", "does not match line", "--store"});
  CHECK_FALSE(fs::exists(dir + "/out"));
  write_file(corpus, "m05_mha_scale_dout.diff", "not a diff\n");
  const Run garbage = python(dir, "tools/program_diffs.py --out '" + dir + "/out' '" + corpus + "'");
  CHECK(garbage.code == 1);
  check_contains(garbage.err, {"not a unified diff"});
}

TEST_CASE("tools: a case's command line comes from the binary's option table, and an unknown setting is refused") {
  const std::string dir = temp_dir();
  const std::string env = "ATTN_TUTOR='" + std::string(ATTN_TUTOR_EXE) + "'";
  const Run r = python(dir,
                       "-c \"import sys; sys.path.insert(0, 'tools'); import common; print(common.case_argv('gqa', "
                       "[('seed', -5), ('d_out', 8), ('num_kv_groups', 2), ('qkv_bias', True), ('window', None)], "
                       "joined=('seed',)))\"",
                       env);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.out == "['--seed=-5', '--d-out', '8', '--num-kv-groups', '2', '--qkv-bias']\n");
  const Run bad = python(
      dir, "-c \"import sys; sys.path.insert(0, 'tools'); import common; common.case_argv('gqa', [('window', 3)])\"",
      env);
  CHECK(bad.code == 1);
  check_contains(bad.err, {"KeyError", "--window is not an option of gqa"});
}
