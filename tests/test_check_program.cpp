// `attn-tutor check FILE.py / FILE.ipynb`: the runner (features/check/process_run.h) with fake interpreters,
// the tracer (python/tracer.py) on a fake torch (tests/fixtures/trace/fake_torch), and `check` on
// traces real torch made (tests/fixtures/traces, tools/gen_trace_fixtures.py). No test needs torch.
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <vector>
#include <fstream>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "features/check/process_run.h"
#include "features/check/python_trace.h"
#include "hostile_run.h"
#include "run_cli.h"

using namespace attn;

namespace {

const std::string kTrace = std::string(ATTN_TEST_FIXTURE_DIR) + "/trace";
const std::string kTraces = std::string(ATTN_TEST_FIXTURE_DIR) + "/traces";
std::string python(const std::string& name) { return kTrace + "/pythons/" + name; }

// The names in `dir` (none: the trace's private folder was removed).
int entries(const std::string& dir) {
  int n = 0;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d)) n += std::string(e->d_name) != "." && std::string(e->d_name) != "..";
    closedir(d);
  }
  return n;
}

// The tracer run by python3 on the fake torch: its trace document.
nlohmann::json fake_trace(const std::string& program) {
  const std::string dir = temp_dir();
  const std::string tracer = write_file(dir, "tracer.py", embedded_tracer());
  const std::string out = dir + "/trace.json";
  const std::string cmd = "cd '" + dir + "' && PYTHONPATH='" + kTrace + "/fake_torch' python3 '" + tracer + "' '" +
                          program + "' '" + out + "' >/dev/null 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  return nlohmann::json::parse(read_text_file(out));
}

}  // namespace

TEST_CASE("check program: the runner captures exit status, output and folder, without a shell") {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "pwd; echo to-stderr >&2; cat; exit 3"};  // cat: stdin is /dev/null
  spec.dir = "/";
  ProcessResult r = run_process(spec);
  CHECK(r.outcome == ProcessResult::Outcome::Exited);
  CHECK(r.code == 3);
  CHECK(r.out == "/\n");
  CHECK(r.err == "to-stderr\n");
  spec.argv = {"sh", "-c", "echo \"$1\"", "sh", "a b; $(touch no) 'c'"};  // found in PATH, arguments as they are
  r = run_process(spec);
  CHECK(r.out == "a b; $(touch no) 'c'\n");
  spec.argv = {"no-such-python-anywhere-xyz"};
  CHECK(run_process(spec).outcome == ProcessResult::Outcome::NotFound);
  spec.argv = {"/etc/passwd"};  // not executable
  CHECK(run_process(spec).outcome == ProcessResult::Outcome::NotFound);
}

TEST_CASE("check program: the runner kills a program past its time and its whole process group") {
  ProcessSpec spec;
  const std::string dir = temp_dir();
  spec.argv = {"/bin/sh", "-c", "sleep 300 & echo $! > '" + dir + "/child'; wait"};
  spec.timeout_seconds = 1;
  const ProcessResult r = run_process(spec);
  CHECK(r.outcome == ProcessResult::Outcome::TimedOut);
  const std::string child = read_text_file(dir + "/child");
  REQUIRE(!child.empty());
  const pid_t pid = std::atoi(child.c_str());
  // The grandchild is gone (or a zombie waiting for its reaper), never still sleeping.
  for (int i = 0; i < 100 && kill(pid, 0) == 0; ++i) {
    const std::string stat = read_text_file("/proc/" + std::to_string(pid) + "/stat");
    if (stat.find(") Z") != std::string::npos || stat.empty()) break;
    usleep(20000);
  }
  const std::string stat = read_text_file("/proc/" + std::to_string(pid) + "/stat");
  CHECK((kill(pid, 0) != 0 || stat.empty() || stat.find(") Z") != std::string::npos));
}

TEST_CASE("check program: the runner cuts a flood and keeps only a bounded part of the output") {
  ProcessSpec spec;
  spec.argv = {"yes", "flood"};
  spec.flood_bytes = 4 << 20;
  spec.keep_bytes = 1000;
  ProcessResult r = run_process(spec);
  CHECK(r.outcome == ProcessResult::Outcome::Flooded);
  CHECK(r.out.size() == 1000);
  CHECK(r.out_cut);
  spec.argv = {"/bin/sh", "-c", "yes err | head -c 300000 >&2; echo the-end >&2"};  // stderr: its end is kept
  r = run_process(spec);
  CHECK(r.outcome == ProcessResult::Outcome::Exited);
  CHECK(r.err.size() <= 1000);
  CHECK(r.err.find("the-end") != std::string::npos);
}

TEST_CASE("check program: a loop, a flood, a crash, no torch, no python: one line, exit 2, no trace left") {
  const std::string tmp = temp_dir();
  const std::string prog = "'" + kTraces + "/programs/mha-correct.py'";
  struct Case {
    std::string python, extra, mentions;
  };
  for (const Case& c : std::vector<Case>{{"loop.sh", " --timeout 1", "--timeout"},
                                         {"flood.sh", "", "16 MiB"},
                                         {"raise.sh", "", "RuntimeError: boom \\e[31mred\\e[0m"},
                                         {"notorch.sh", "", "cannot import torch"},
                                         {"no-such-python-xyz", "", "--python no-such-python-xyz: not found"}}) {
    CAPTURE(c.python);
    const std::string py = c.python.find('/') == std::string::npos && c.python.find(".sh") != std::string::npos
                               ? python(c.python)
                               : c.python;
    const CliResult r = run_cli_env("TMPDIR='" + tmp + "'", "check " + prog + " --python '" + py + "'" + c.extra);
    CAPTURE(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find(c.mentions) != std::string::npos);
    CHECK(r.err.find('\033') == std::string::npos);
    CHECK(r.err.find("printed by the program") == std::string::npos);
    CHECK(entries(tmp) == 0);
  }
  // In Chinese too.
  const CliResult zh = run_cli_wide("check " + prog + " --python '" + python("loop.sh") + "' --timeout 1 --lang zh");
  CHECK(zh.exit_code == 2);
  CHECK(zh.err.find("秒") != std::string::npos);
}

TEST_CASE("check program: SIGTERM while the program runs removes the trace folder and the program") {
  const std::string tmp = temp_dir();
  const std::string dir = temp_dir();
  const std::string script = "cd '" + dir + "' || exit 1\nLOOP_PID_FILE='" + dir + "/loop' TMPDIR='" + tmp + "' '" +
                             ATTN_TUTOR_EXE + "' check '" + kTraces + "/programs/mha-correct.py' --python '" +
                             python("loop.sh") + "' --timeout 60 >/dev/null 2>&1 &\npid=$!; sleep 1; ls '" + tmp +
                             "' > before; kill -TERM $pid; wait $pid; echo $? > code";
  REQUIRE(std::system(("sh '" + write_file(dir, "run.sh", script + "\n") + "'").c_str()) >= 0);
  CHECK(read_text_file(dir + "/before").find("attn-tutor-trace-") != std::string::npos);  // it was there
  CHECK(read_text_file(dir + "/code") == "143\n");  // ended by the signal, as it would have
  CHECK(entries(tmp) == 0);
  // The program (its process group) was killed too: gone, or a zombie waiting for its reaper.
  const pid_t loop = std::atoi(read_text_file(dir + "/loop").c_str());
  REQUIRE(loop > 0);
  std::string stat;
  for (int i = 0; i < 100; ++i) {
    stat = read_text_file("/proc/" + std::to_string(loop) + "/stat");
    if (stat.empty() || stat.find(") Z") != std::string::npos) break;
    usleep(20000);
  }
  CHECK((stat.empty() || stat.find(") Z") != std::string::npos));
}

TEST_CASE("check program: the tracer records names, scopes, lines, in-place changes, seeds and modules in order") {
  const nlohmann::json t = fake_trace(kTrace + "/programs/order.py");
  CHECK(t["schema"] == "attn-tutor-trace/1");
  CHECK(t["status"] == "ok");
  CHECK(t["kind"] == "script");
  std::vector<std::string> got;
  for (const auto& e : t["events"])
    got.push_back(e["kind"].get<std::string>() + " " + e["name"].get<std::string>() + " " +
                  e["scope"].get<std::string>() + " " + std::to_string(e["line"].get<int>()));
  // The module's tensor attributes and buffers also as LAYER.NAME at module level (its parameters once), and
  // a name bound again to the tensor it held (line 26) is a binding too.
  const std::vector<std::string> want = {
      "bind inputs module 5",   "bind self.W self 11",         "bind self.mask self 12",    "bind self.factor self 13",
      "bind layer.W module 21", "bind layer.factor module 21", "bind layer.mask module 21", "bind keys local 16",
      "in_place keys local 17", "bind out module 22",          "in_place out module 23",    "bind out module 26"};
  CHECK(got == want);
  CHECK(t["events"][5]["owner"] == "layer");
  CHECK(!t["events"][4].contains("owner"));  // a parameter: the module's own name path, no owner
  CHECK(t["events"][7]["code"] == "keys = x * 2.0");
  CHECK(t["events"][7]["function"] == "forward");
  CHECK(t["events"][7]["data"] == nlohmann::json::parse("[[0.86, 0.3, 1.78], [1.1, 1.74, 1.32]]"));
  CHECK(t["events"][8]["data"][0][0].get<double>() == doctest::Approx(1.86));
  CHECK(t["events"][10]["data"][0][0].get<double>() == doctest::Approx(11.86));
  CHECK(t["events"][11]["data"] == t["events"][10]["data"]);
  CHECK(t["events"][0]["shape"] == nlohmann::json::parse("[2, 3]"));
  CHECK(t["events"][0]["dtype"] == "float32");
  REQUIRE(t["seeds"].size() == 2);
  CHECK(t["seeds"][0]["seed"] == 123);
  CHECK(t["seeds"][1]["seed"] == 7);
  CHECK(t["seeds"][1]["line"] == 24);
  REQUIRE(t["modules"].size() == 1);
  CHECK(t["modules"][0]["class"] == "Scale");
  CHECK(t["modules"][0]["args"] ==
        nlohmann::json::parse(R"({"d_in": 3, "d_out": 4, "dropout": 0.5, "qkv_bias": false})"));
  CHECK(t["modules"][0]["line"] == 21);
  CHECK(t["settings"] == nlohmann::json::parse(R"({"num_heads": 2})"));  // a global named as a setting
  // Sequence numbers: one order for events, seeds and modules.
  CHECK(t["seeds"][0]["seq"].get<int>() < t["events"][0]["seq"].get<int>());
  CHECK(t["modules"][0]["seq"].get<int>() < t["events"][1]["seq"].get<int>());
  CHECK(t["events"][8]["seq"].get<int>() < t["seeds"][1]["seq"].get<int>());
}

TEST_CASE("check program: the tracer runs a notebook's code cells in order, magics skipped, cells numbered") {
  const nlohmann::json t = fake_trace(kTrace + "/programs/cells.ipynb");
  CHECK(t["kind"] == "notebook");
  CHECK(t["status"] == "raised");  // its last cell divides by zero
  CHECK(t["message"] == "ZeroDivisionError: division by zero");
  REQUIRE(t["traceback"].size() == 1);
  CHECK(t["traceback"][0] == nlohmann::json::parse(R"({"cell": 4, "line": 3, "code": "d = 1 / 0"})"));
  std::vector<std::string> got;
  for (const auto& e : t["events"])
    got.push_back(e["kind"].get<std::string>() + " " + e["name"].get<std::string>() + " cell " +
                  std::to_string(e["cell"].get<int>()) + " line " + std::to_string(e["line"].get<int>()));
  // `!pip` and `%matplotlib` are blank lines (the lines keep their numbers), the %%bash cell is skipped but counted.
  CHECK(got == std::vector<std::string>{"bind a cell 1 line 4", "bind b cell 2 line 1", "in_place a cell 2 line 2",
                                        "bind c cell 4 line 1"});
}

TEST_CASE("check program: what the notebook's program raised, in the learner's terms") {
  const CliResult r =
      run_cli_wide("check '" + kTrace + "/programs/cells.ipynb' --python '" + python("faketorch.sh") + "'");
  CHECK(r.exit_code == 2);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find("`ZeroDivisionError: division by zero` at cell 4, line 3 of") != std::string::npos);
  const std::string dir = temp_dir();
  for (const std::string& bad : {std::string("not json"), std::string("{\"cells\": 5}"), std::string("[1, 2]"),
                                 std::string("{\"cells\": [{\"cell_type\": \"code\", \"source\": 5}]}")}) {
    const std::string nb = write_file(dir, "bad.ipynb", bad);
    const CliResult b = run_cli_wide("check '" + nb + "' --python '" + python("faketorch.sh") + "'");
    CAPTURE(bad);
    CAPTURE(b.err);
    CHECK(b.exit_code == 2);
    CHECK(count_lines(b.err) == 1);
    CHECK(b.err.find("not a Jupyter notebook") != std::string::npos);
  }
}

TEST_CASE("check program: the program's own output stays out of the report") {
  const CliResult r =
      run_cli_wide("check '" + kTraces + "/programs/mha-correct.py' --python '" + python("canned.sh") + "'");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("lesson mha inferred from your program") != std::string::npos);
  CHECK(r.out.find("the program printed this") == std::string::npos);
  CHECK(r.err.empty());
}

TEST_CASE("check program: traces of real torch give each program's verdict, in the learner's lines") {
  struct Case {
    std::string trace;
    int code;
    std::string lesson, mentions;
  };
  for (
      const Case& c : std::vector<Case>{
          {"mha-correct.json", 0, "mha", "line 43 of mha-correct.py (`attn_weights = torch.softmax("},
          {"mha-noscale.json", 1, "mha", "Diagnosis: no √d_k scaling"},
          {"causal-correct.json", 0, "causal-mask", "line 57 of causal-correct.py (`mask = torch.triu("},
          {"causal-correct-ipynb.json", 0, "causal-mask",
           "cell 5, line 1 of causal-correct.ipynb (`mask = torch.triu("},
          {"causal-triu.json", 1, "causal-mask", "Diagnosis: mask with triu missing diagonal=1"},
          {"causal-triu-ipynb.json", 1, "causal-mask",
           "yours: cell 5, line 1 of causal-triu.ipynb (`mask = torch.triu("},
          {"trainable-correct.json", 0, "trainable", "settings: the book's"},
          {"trainable-correct-ipynb.json", 0, "trainable",
           "cell 7, line 2 of trainable-correct.ipynb (`attn_weights_2 = "},
          // CausalAttention's cells, then the wrapper: the wrapper's lesson, whose merged heads the other leaves out
          {"wrapper-correct.json", 0, "wrapper", "line 64 of wrapper-correct.py (`context_vecs = mha(batch)`)"},
          {"wrapper-reversed.json", 1, "wrapper", "line 64 of wrapper-reversed.py (`context_vecs = mha(batch)`)"},
          // A context vector summed by rebinding in a loop: its last value only, no false difference.
          {"softmax-accumulate.json", 0, "softmax",
           "line 19 of softmax-accumulate.py (`context_vec_2 = context_vec_2 + "},
          // A step the lesson does not have (dropout on the scores) inside forward: named from the merged heads, as its export is.
          {"wrapper-dropout-scores.json", 1, "wrapper", "Diagnosis: dropout on the scores before softmax"}}) {
    CAPTURE(c.trace);
    const CliResult r = run_cli_wide("check '" + kTraces + "/" + c.trace + "' --color never");
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.exit_code == c.code);
    CHECK(r.out.find("lesson " + c.lesson + " inferred from your program") != std::string::npos);
    CHECK(r.out.find(c.mentions) != std::string::npos);
    const CliResult zh = run_cli_wide("check '" + kTraces + "/" + c.trace + "' --color never --lang zh");
    CHECK(zh.exit_code == c.code);
    CHECK(zh.out.find("根据你的程序推断为课程 " + c.lesson) != std::string::npos);
    const CliResult html = run_cli_wide("check '" + kTraces + "/" + c.trace + "' --html -");
    CHECK(html.exit_code == c.code);
    CHECK(html.out.find("<span class=\"origin\">") != std::string::npos);
  }
  // The wrapper's heads reversed: the same verdict as its export's (tests/fixtures/mistakes/head-order.json),
  // the merged heads first, with the diagnosis (its heads' steps, each a value the lesson has, match).
  const CliResult reversed = run_cli_wide("check '" + kTraces + "/wrapper-reversed.json' --color never");
  CHECK(reversed.out.find("First difference: context_vecs") != std::string::npos);
  CHECK(reversed.out.find("Diagnosis: heads concatenated in the wrong order") != std::string::npos);
  // --lesson and --seed say instead: another seed, another verdict.
  CHECK(run_cli_wide("check '" + kTraces + "/mha-correct.json' --lesson mha").exit_code == 0);
  const CliResult seeded = run_cli_wide("check '" + kTraces + "/mha-correct.json' --seed 5");
  CHECK(seeded.exit_code == 1);
  CHECK(seeded.out.find("seed 5") != std::string::npos);
}

TEST_CASE("check program: bad options and bad traces are refused with one line") {
  const std::string dir = temp_dir();
  const std::string fixture = std::string(ATTN_TEST_FIXTURE_DIR) + "/mistakes/correct-mha.json";
  expect_usage_error("check '" + kTraces + "/mha-correct.json' --lesson nope", "--lesson nope: no such lesson");
  expect_usage_error("check '" + kTraces + "/mha-correct.json' --seed 05", "--seed 05");
  expect_usage_error("check '" + kTraces + "/mha-correct.json' --timeout 0", "--timeout");
  expect_usage_error("check '" + fixture + "' --lesson mha", "an export says its lesson");
  expect_usage_error("check '" + dir + "/none.py'", "cannot read the program");
  const std::string nonames = write_file(dir, "t.json", R"({"schema": "attn-tutor-trace/1", "status": "ok",
      "events": [{"name": "foo\u001b[31m", "kind": "bind", "data": [1.0], "line": 1}]})");
  expect_usage_error("check '" + nonames + "'", "binds no tensor a lesson has (it binds foo\\e[31m)");
  // Settings the lesson cannot replay: what stopped it, in the program's terms (not that no lesson has its
  // names, nor an export's config.KEY).
  const std::string module = R"({"schema": "attn-tutor-trace/1", "status": "ok", "events": [{"name": "context_vecs",
      "kind": "bind", "scope": "module", "data": [[[1.0, 2.0]]], "line": 9}], "modules": [{"class":
      "MultiHeadAttention", "args": {"d_in": 3, "d_out": 4096, "dropout": 0.0, "num_heads": 2, "context_length": )";
  expect_usage_error("check '" + write_file(dir, "range.json", module + "100000}}]}") + "'",
                     "your program's context_length is 100000, which the lesson cannot replay: use a whole number");
  expect_usage_error("check '" + write_file(dir, "cost.json", module + "4096}}]}") + "'",
                     "more than the limits of 6 s and 768 MiB here; lower context_length");
  // --lesson with none of its names: the program way's line (no export's "export at least one").
  expect_usage_error("check '" + nonames + "' --lesson mha", "binds no tensor lesson mha has (it binds foo\\e[31m)");
  const std::string raised = write_file(dir, "r.json", R"({"schema": "attn-tutor-trace/1", "status": "raised",
      "message": "ValueError: \u001b]0;title\u0007", "traceback": [{"line": 3, "code": "x = f()\u001b[2J"}]})");
  expect_usage_error("check '" + raised + "'", "`ValueError: \\e]0;title\\x07` at line 3 of");
  expect_usage_error("check '" + write_file(dir, "n.json", R"({"schema": "attn-tutor-trace/1", "status": "ok"})") + "'",
                     "not a trace of attn-tutor's tracer");
}

namespace {

// True when process `pid` is gone (or a zombie its reaper has not collected yet), waiting up to 5 s.
bool process_gone(pid_t pid) {
  for (int i = 0; i < 250; ++i) {
    const std::string stat = read_text_file("/proc/" + std::to_string(pid) + "/stat");
    if (kill(pid, 0) != 0 || stat.find(") Z") != std::string::npos) return true;
    usleep(20000);
  }
  return false;
}

// Whether a process may make itself a child subreaper, which the guard needs to find what left the program's
// process group: Linux lets it, qemu-user (the arm64 tests) refuses the call, and elsewhere there is none.
bool subreaper_available() {
#if defined(__linux__)
  int was = 0;
  if (prctl(PR_GET_CHILD_SUBREAPER, &was, 0, 0, 0) != 0 || prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) return false;
  prctl(PR_SET_CHILD_SUBREAPER, was, 0, 0, 0);
  return true;
#else
  return false;
#endif
}

// Each of `pids` is gone, where the guard can see them; without a subreaper (MESSAGE says so) they are only
// ended here, so that the test leaves nothing running.
void check_all_gone(const std::vector<pid_t>& pids) {
  if (!subreaper_available()) {
    MESSAGE("no child subreaper here (qemu-user refuses it): processes out of the program's group not checked");
    for (const pid_t p : pids) kill(p, SIGKILL);
    return;
  }
  for (const pid_t p : pids) CHECK(process_gone(p));
}

// The process ids in `file`, one a line.
std::vector<pid_t> pids_in(const std::string& file) {
  std::vector<pid_t> pids;
  std::istringstream in(read_text_file(file));
  for (long p = 0; in >> p;) pids.push_back(static_cast<pid_t>(p));
  return pids;
}

// Shell text that starts processes out of the program's process group and writes their ids to `file`: one in a
// new session (start_new_session=True, as os.setsid), one after a double fork.
std::string escapees(const std::string& file) {
  return "python3 -c 'import subprocess; print(subprocess.Popen([\"sleep\", \"300\"], start_new_session=True).pid)' "
         ">> '" +
         file + "'; (sleep 300 & echo $! >> '" + file + "') & wait; ";
}

}  // namespace

TEST_CASE("check program: no process the program started outlives the runner, on its end or its time-out") {
  const std::string dir = temp_dir();
  for (const bool loop : {false, true}) {
    CAPTURE(loop);
    const std::string file = dir + (loop ? "/loop" : "/end");
    ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c", escapees(file) + (loop ? "while :; do sleep 1; done" : "exit 4")};
    spec.timeout_seconds = 2;
    const ProcessResult r = run_process(spec);
    CHECK(r.outcome == (loop ? ProcessResult::Outcome::TimedOut : ProcessResult::Outcome::Exited));
    if (!loop) CHECK(r.code == 4);
    const std::vector<pid_t> pids = pids_in(file);
    CHECK(pids.size() == 2);
    check_all_gone(pids);
  }
  // The exec's errno is still the program's: a file that is not a program.
  ProcessSpec spec;
  spec.argv = {write_file(dir, "not-a-program",
                          "\x7f"
                          "ELF garbage")};
  chmod(spec.argv[0].c_str(), 0755);
  const ProcessResult bad = run_process(spec);
  CHECK(bad.outcome == ProcessResult::Outcome::CannotStart);
  CHECK(bad.error == ENOEXEC);
  spec.argv = {"/bin/sh", "-c", "kill -9 $$"};
  const ProcessResult killed = run_process(spec);
  CHECK(killed.outcome == ProcessResult::Outcome::Signalled);
  CHECK(killed.code == 9);
}

TEST_CASE("check program: processes the program left in a new session end with check, its folder removed") {
  const std::string tmp = temp_dir();
  const std::string dir = temp_dir();
  const CliResult r =
      run_cli_env("TMPDIR='" + tmp + "' SPAWN_PID_FILE='" + dir + "/pids'",
                  "check '" + kTraces + "/programs/mha-correct.py' --python '" + python("spawn.sh") + "'");
  CAPTURE(r.err);
  CHECK(r.exit_code == 0);
  const std::vector<pid_t> pids = pids_in(dir + "/pids");
  CHECK(pids.size() == 2);
  check_all_gone(pids);
  CHECK(entries(tmp) == 0);
}

TEST_CASE("check program: attn-tutor killed by SIGKILL leaves no process of the program and no trace folder") {
  // Its whole process group killed (a SIGKILL of the terminal's job, an OOM kill of it alone is the same):
  // the guard, in a group of its own, sees the end of its pipe, kills what is left and removes the folder.
  const std::string tmp = temp_dir();
  const std::string dir = temp_dir();
  const std::string script = "cd '" + dir + "' || exit 1\nSPAWN_LOOP=1 SPAWN_PID_FILE='" + dir + "/pids' TMPDIR='" +
                             tmp + "' setsid '" + ATTN_TUTOR_EXE + "' check '" + kTraces +
                             "/programs/mha-correct.py' --python '" + python("spawn.sh") +
                             "' --timeout 100 >/dev/null 2>&1 &\npid=$!\ni=0\n"
                             "while [ $i -lt 100 ] && [ $(cat pids 2>/dev/null | wc -l) -lt 3 ]; do sleep 0.1; "
                             "i=$((i + 1)); done\nls '" +
                             tmp + "' > before; kill -KILL -$pid 2>/dev/null || kill -KILL $pid";
  REQUIRE(std::system(("sh '" + write_file(dir, "run.sh", script + "\n") + "'").c_str()) >= 0);
  CHECK(read_text_file(dir + "/before").find("attn-tutor-trace-") != std::string::npos);  // it was there
  const std::vector<pid_t> pids = pids_in(dir + "/pids");
  CHECK(pids.size() == 3);  // the two it left, and the looping program itself
  check_all_gone(pids);
  for (int i = 0; i < 250 && entries(tmp) != 0; ++i) usleep(20000);
  CHECK(entries(tmp) == 0);
}

TEST_CASE("check program: the trace folder is removed with what the program wrote there, links not followed") {
  const std::string tmp = temp_dir();
  const std::string outside = temp_dir();
  write_file(outside, "keep.txt", "kept");
  const CliResult r =
      run_cli_env("TMPDIR='" + tmp + "' LITTER_OUTSIDE='" + outside + "'",
                  "check '" + kTraces + "/programs/mha-correct.py' --python '" + python("litter.sh") + "'");
  CAPTURE(r.err);
  CHECK(r.exit_code == 0);
  CHECK(entries(tmp) == 0);
  CHECK(read_text_file(outside + "/keep.txt") == "kept");  // what the links named is left alone
  CHECK(entries(outside) == 1);
  // remove_tree itself: a FIFO, a file, folders deeper than it opens at once, a link to a folder.
  const std::string top = temp_dir() + "/t";
  std::string deep = top;
  for (int i = 0; i < 30; ++i) deep += "/" + std::to_string(i);
  REQUIRE(std::system(("mkdir -p '" + deep + "' && mkfifo '" + top + "/fifo' && echo a > '" + deep + "/f' && ln -s '" +
                       outside + "' '" + deep + "/out' && chmod 500 '" + top + "/0'")
                          .c_str()) == 0);
  CHECK(remove_tree(top.c_str()));
  struct stat st {};
  CHECK(lstat(top.c_str(), &st) != 0);
  CHECK(read_text_file(outside + "/keep.txt") == "kept");
  CHECK(remove_tree(top.c_str()));  // already gone
}

TEST_CASE("check program: a run without a trace names its true cause, each in one line, nothing left behind") {
  const std::string tmp = temp_dir();
  const std::string dir = temp_dir();
  struct Case {
    std::string file, text, python, mentions;
  };
  const std::string deep = "{\"cells\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  const std::vector<Case> cases = {
      // os._exit(0): the trace is written first, so the verdict is about the tensors
      {"exit0.py", "import os\nimport torch\nzz = torch.tensor([1.0])\nos._exit(0)\n", "faketorch.sh",
       "binds no tensor a lesson has (it binds zz)"},
      {"exit3.py", "import os\nos._exit(3)\n", "faketorch.sh", "`os._exit(3)` at line 2 of"},
      {"exec.py", "import os\nos.execv('/bin/true', ['true'])\n", "faketorch.sh",
       "ended the tracer's process itself (exit status 0"},
      {"kill.py", "import os\nos.kill(os.getpid(), 9)\n", "faketorch.sh", "was killed (signal 9)"},
      {"rmdir.py",
       "import glob, os, shutil\nfor d in glob.glob(os.environ['TMPDIR'] + '/attn-tutor-trace-*'):\n"
       "    shutil.rmtree(d)\n",
       "faketorch.sh", "removed check's private folder"},
      {"deep.ipynb", deep, "faketorch.sh", "not a Jupyter notebook (`JSON nested too deeply to read`)"},
      {"full.py", "x = 1\n", "fulldisk.sh", "could not be written to"},
      // a plain function's local of a lesson's name, its values none of a lesson's
      {"plain.py", "import torch\n\n\ndef f():\n    attn_scores = torch.tensor([[1.0]])\n    return 1\n\n\nf()\n",
       "faketorch.sh", "binds attn_scores only inside a function"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.file);
    const std::string path = write_file(dir, c.file, c.text);
    const BoundedRun r =
        run_bounded("check '" + path + "' --python '" + python(c.python) + "'", "export TMPDIR='" + tmp + "'; ");
    CAPTURE(r.err);
    CHECK(!r.timed_out);
    CHECK(r.seconds < 20);
    CHECK(r.exit_code == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find(c.mentions) != std::string::npos);
    CHECK(r.err.find("pass --python") == std::string::npos);  // the Python was right every time
    CHECK(entries(tmp) == 0);
  }
  const BoundedRun full = run_bounded("check '" + dir + "/full.py' --python '" + python("fulldisk.sh") + "'",
                                      "export TMPDIR='" + tmp + "'; ");
  CHECK(full.err.find("No space left on device") != std::string::npos);
  // A FIFO named x.py: what it is, not a stale errno.
  REQUIRE(std::system(("mkfifo '" + dir + "/x.py'").c_str()) == 0);
  const BoundedRun fifo = run_bounded("check '" + dir + "/x.py' --python '" + python("faketorch.sh") + "'");
  CAPTURE(fifo.err);
  CHECK(fifo.exit_code == 2);
  CHECK(fifo.err.find("is not a regular file") != std::string::npos);
  CHECK(fifo.err.find("ioctl") == std::string::npos);
}

TEST_CASE("check program: past 400 globals the tracer looks only at what a line can change, with the same events") {
  // order.py and more (a global changed in place by a function, one bound by exec, an alias changed in
  // place), once as it is (every global looked at on every line) and once with 500 globals more (the names
  // the line uses, the learner's functions it called use, and the names sharing their tensor).
  const std::string dir = temp_dir();
  std::string base = read_text_file(kTrace + "/programs/order.py");
  base +=
      "\n\ndef bump():\n    out.add_(1.0)\n\n\nbump()\nexec(\"late = torch.ones(1)\")\nalias = out\nalias.add_(1.0)\n";
  std::string padded = base;
  padded.replace(0, std::string("import torch").size(),
                 "import torch; [globals().__setitem__('pad%d' % i, i) for i in range(500)]");
  auto events = [](const nlohmann::json& t) {
    std::vector<std::string> got;
    for (const auto& e : t["events"])
      got.push_back(e["kind"].get<std::string>() + " " + e["name"].get<std::string>() + " " +
                    e["scope"].get<std::string>() + " " + std::to_string(e["line"].get<int>()) + " " +
                    e["data"].dump());
    return got;
  };
  const nlohmann::json small = fake_trace(write_file(dir, "small.py", base));
  const nlohmann::json large = fake_trace(write_file(dir, "large.py", padded));
  const std::vector<std::string> want = events(small);
  CHECK(events(large) == want);
  CHECK(large["settings"] == small["settings"]);
  REQUIRE(want.size() == 17);
  CHECK(want[12].rfind("in_place out module 33 ", 0) == 0);  // by bump(), which names it
  CHECK(want[13].rfind("bind late module 34 ", 0) == 0);     // by exec
  CHECK(want[14].rfind("bind alias module 35 ", 0) == 0);
  CHECK(want[15].rfind("in_place out module 36 ", 0) == 0);  // through its alias
  CHECK(want[16].rfind("in_place alias module 36 ", 0) == 0);
}

TEST_CASE("check program: 30 thousand module-level tensors and 3 thousand one-line cells are traced in seconds") {
  // Every line used to look at every global: the time grew with their square (100,000 took minutes).
  const std::string tmp = temp_dir();
  const std::string dir = temp_dir();
  std::string py = "import torch\n";
  for (int i = 0; i < 30000; ++i) py += "t" + std::to_string(i) + " = torch.ones(2)\n";
  nlohmann::json cells = nlohmann::json::array({{{"cell_type", "code"}, {"source", "import torch"}}});
  for (int i = 0; i < 3000; ++i)
    cells.push_back({{"cell_type", "code"}, {"source", "x" + std::to_string(i) + " = torch.ones(2)"}});
  const std::string nb = nlohmann::json({{"nbformat", 4}, {"cells", cells}}).dump();
  for (const std::string& path : {write_file(dir, "many.py", py), write_file(dir, "cells.ipynb", nb)}) {
    CAPTURE(path);
    const BoundedRun r = run_bounded("check '" + path + "' --python '" + python("faketorch.sh") + "' --timeout 60",
                                     "export TMPDIR='" + tmp + "'; ", 60);
    CAPTURE(r.err);
    CHECK(r.seconds < 20);
    CHECK(r.max_rss_kb < 1024 * 1024);
    CHECK(r.exit_code == 2);  // its names are none of a lesson's
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find("binds no tensor a lesson has (it binds ") != std::string::npos);
    CHECK(entries(tmp) == 0);
  }
}

TEST_CASE("check program: a program that binds no tensor is told that it computes nothing, in one line") {
  // A file that defines SelfAttention_v1 and never calls it: its trace holds no event.
  const std::string path = write_file(temp_dir(), "defs.json",
                                      "{\"schema\": \"attn-tutor-trace/1\", \"program\": \"defs.py\", \"status\": "
                                      "\"ok\", \"events\": [], \"seeds\": [], \"modules\": []}");
  const CliResult r = run_cli_wide("check '" + path + "'");
  CHECK(r.exit_code == 2);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find("your program ran to the end without binding a tensor (a file that only defines a class or a "
                   "function computes nothing)") != std::string::npos);
}

TEST_CASE("check program: a program that computes no value of a lesson gets one line, not a guessed lesson's ✗") {
  // A blog's attention on 4 tokens of 8 (tests/learners/n01_blog_own_sizes.py): it names attn_scores and
  // attn_weights as the chapter does, but no value of it is one of the book's.
  const CliResult r = run_cli_wide("check '" + kTraces + "/blog-own-sizes.json'");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find("none of your program's values is one of the book's: the nearest lesson, naive-scores, names a "
                   "tensor attn_scores too, but its is (6, 6) and yours (4, 4)") != std::string::npos);
  // Said the lesson, the learner's claim is checked: a ✗.
  CHECK(run_cli_wide("check '" + kTraces + "/blog-own-sizes.json' --lesson naive-scores").exit_code == 1);
}

TEST_CASE("check program: a ✓ on the mask alone, with the steps under the learner's own names, is one line instead") {
  // tests/learners/n02_causal_own_names.py: raw nn.Linear layers, Q, K, V, scores, w, ctx.
  const CliResult r = run_cli_wide("check '" + kTraces + "/causal-own-names.json'");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find("cannot judge: of your program's tensors only its setup (the inputs, a mask) has names of lesson "
                   "causal-mask; its steps are under names of your own (Q, K, V, scores, w, ctx)") !=
        std::string::npos);
}

TEST_CASE("check program: a package module runs as python -m runs it, its sibling files traced as its own") {
  // pkg/main.py imports `from .layer import Scale`: run as a script it would raise ImportError.
  const nlohmann::json t = fake_trace(kTrace + "/programs/pkg/main.py");
  CHECK(t["status"] == "ok");
  std::vector<std::string> got;
  for (const auto& e : t["events"])
    got.push_back(e["name"].get<std::string>() + " " + e["scope"].get<std::string>() + " " +
                  e.value("file", std::string("-")) + ":" + std::to_string(e["line"].get<int>()));
  CHECK(got == std::vector<std::string>{"inputs module -:6", "keys local pkg/layer.py:9", "out module -:7"});
}

TEST_CASE("check program: the book's inputs under the learner's own name are evidence of the lesson") {
  // tests/learners/m45: `x` for inputs, torch.randn weights: no value of a lesson's name equals the lesson's,
  // but the book's inputs are there, so the mistake is named (not refused as a program of other sizes).
  const CliResult r = run_cli_wide("check '" + kTraces + "/trainable-inputs-as-x.json' --color never");
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("Diagnosis: weights drawn from another distribution than the lesson's") != std::string::npos);
}

TEST_CASE("check program: Exercise 3.3 without its seed is the missing re-seed, named at x") {
  // tests/learners/m46: the GPT-2 size module built and x drawn right after the chapter's mha(batch),
  // with no torch.manual_seed(123) between: its weights and x carry on from that generator.
  const CliResult r = run_cli_wide("check '" + kTraces + "/mha-gpt2-no-reseed.json' --color never");
  CAPTURE(r.out);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("First difference: x") != std::string::npos);
  CHECK(r.out.find("Diagnosis: a missing re-seed") != std::string::npos);
  CHECK(r.out.find("its x drawn without torch.manual_seed(123) before them") != std::string::npos);
}

TEST_CASE("check program: a mistake inside forward at dropout 0 is shown at its own line, not the dropout's") {
  // tests/learners/m47: softmax over dim=1 in CausalAttention.forward, then self.dropout (p = 0) binds
  // the same value again: the first difference is the softmax line, where the mistake is.
  const CliResult r = run_cli_wide("check '" + kTraces + "/causal-forward-softmax-dim1.json' --color never");
  CAPTURE(r.out);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("yours: line 35 of causal-forward-softmax-dim1.py (`attn_weights = torch.softmax(attn_scores "
                   "/ keys.shape[-1]**0.5, dim=1)`)") != std::string::npos);
  CHECK(r.out.find("Diagnosis: softmax over the wrong dimension") != std::string::npos);
}

TEST_CASE("check program: forward's steps after the lesson shows the call's result are still compared") {
  // mha shows `context_vecs = mha(batch)` (In [4]) before it steps through forward (In [5] on): the
  // program's unscaled softmax inside forward is the first difference, at its own line, not the result.
  const CliResult r = run_cli_wide("check '" + kTraces + "/mha-noscale.json' --color never");
  CAPTURE(r.out);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("First difference: attn_weights") != std::string::npos);
  CHECK(r.out.find("yours: line 43 of mha-noscale.py (`attn_weights = torch.softmax(attn_scores, dim=-1)") !=
        std::string::npos);
  CHECK(r.out.find("Diagnosis: no √d_k scaling") != std::string::npos);
}
