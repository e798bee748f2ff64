#!/usr/bin/env python3
"""Runs the same attn-tutor commands with two builds and requires the same bytes from both: stdout,
stderr, exit code and every file written (its bytes and its permissions). Used for the WebAssembly build (make test-web): the native
binary is the reference. The commands:
  - every lesson in eight output modes (text, --json -, --py -, --ipynb -, --html -, --explain and
    --heatmap, --lang zh, --json/--py/--ipynb/--html to files at once);
  - every configuration of the real-PyTorch fixtures (tests/fixtures/*_pytorch.json: random seeds,
    sizes, dropout rates, inputs), as text and as JSON: the random numbers, the exp/softmax paths and
    the float printing under the other libm;
  - `check` on every export in tests/fixtures/mistakes/, in English and Chinese, `verify`, and
    `lessons --json` in both languages (the catalog the page builds from);
  - `check`, `kv-memory` and `verify` with --html (the HTML the page shows);
  - hostile input and output paths, paths that are not UTF-8 among them (each must reach the file it
    names, byte for byte), and `all` writing four files killed by signals at random moments (no
    temporary left, all files old or all new).
Usage: compare_builds.py NATIVE OTHER [--jobs N] [--no-files] [--tty] [--only TEXT]. OTHER may be a command with words
("node x.js"). --no-files leaves out the commands that read or write files (for the page's module, whose
filesystem is in memory); --tty runs each lesson once more under a terminal (script(1)), where
--color auto must colour both alike.
Prints one line per difference naming the command, and a summary; exit 1 on any difference.
"""
import concurrent.futures
import json
import os
import random
import shlex
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures")
ENV = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLORTERM", "COLUMNS", "LC_ALL")}
ENV["LANG"] = "C.UTF-8"


# The commands compared the way a lesson is, besides the lessons `lessons --json` lists (the registry's).
LIKE_LESSONS = ["kv-memory", "all"]
OTHER_COMMANDS = {"verify", "check", "bench"}


def lessons(native):
    """The registry's lessons (from `lessons --json`) and LIKE_LESSONS, after making sure the listing names no
    command this script does not know."""
    doc = json.loads(subprocess.run([native, "lessons", "--json"], capture_output=True, env=ENV, check=True).stdout)
    names = [lesson["name"] for lesson in doc["lessons"]] + LIKE_LESSONS
    listing = subprocess.run([native], capture_output=True, env=ENV, check=True).stdout.decode()
    listed = {line.split()[0] for line in listing.splitlines() if line.startswith("  ") and line.split()}
    unknown = listed - set(names) - OTHER_COMMANDS
    if unknown:
        sys.exit(f"compare_builds: the listing names {sorted(unknown)}: add them to LIKE_LESSONS or OTHER_COMMANDS")
    return names


# Bad input and output paths, each prepared by a shell line in the command's folder: both builds must
# refuse alike (the WebAssembly build reaches the files through node).
HOSTILE = [
    ("output is the input through a symlink", "echo '[[1,2],[3,4]]' > in.json && ln -s in.json link.json",
     ["trainable", "--inputs", "in.json", "--json", "link.json"], ["in.json"]),
    ("two outputs one file", "", ["naive-scores", "--json", "a.json", "--py", "./a.json"], ["a.json"]),
    ("hard link", "touch a.json && ln a.json b.json", ["naive-scores", "--json", "a.json", "--py", "b.json"], ["a.json"]),
    ("full disk", "", ["naive-scores", "--json", "/dev/full"], []),
    ("no such folder", "", ["naive-scores", "--html", "nodir/x.html"], []),
    ("a folder as output", "mkdir d", ["naive-scores", "--json", "d"], []),
    ("replaced file keeps its mode", "echo old > k.json && chmod 640 k.json", ["mha", "--json", "k.json"], ["k.json"]),
    ("stdout twice", "", ["naive-scores", "--json", "-", "--py", "-"], []),
    ("endless input", "", ["naive-scores", "--inputs", "/dev/zero"], []),
    ("deep JSON", "python3 -c \"print('['*100000 + ']'*100000)\" > deep.json", ["check", "deep.json"], []),
    ("bad UTF-8 tokens", "", ["trainable", "--tokens", "caf\udce9 \u202e x", "--py", "-"], []),
    ("check of a folder", "mkdir d", ["check", "d"], []),
    ("missing check file", "", ["check", "nope.json"], []),
    ("output to the stdout pipe by name", "", ["naive-scores", "--json", "/dev/stdout"], []),
]
# Paths that are not UTF-8 reach the file they name, byte for byte (emscripten read them as UTF-8:
# bad\xc3.json became badîjson, replacing that file). \udcXX is the byte XX (Python's surrogateescape).
CORRECT_MHA = os.path.join(FIXTURES, "mistakes", "correct-mha.json")
NOT_UTF8 = [
    ("output beside the file it used to hit", "echo old > badîjson", ["mha", "--json", "bad\udcc3.json"],
     ["bad\udcc3.json", "badîjson"]),
    ("output named in Latin-1", "echo old > r鳵m鮪son", ["mha", "--json", "r\udce9sum\udce9.json"],
     ["r\udce9sum\udce9.json", "r鳵m鮪son"]),
    ("every output in a folder named so", "mkdir \"$(printf 'd\\351')\"",
     ["trainable", "--json", "d\udce9/o.json", "--py", "d\udce9/o.py", "--ipynb", "d\udce9/o.ipynb",
      "--html", "d\udce9/o.html"], ["d\udce9/o.json", "d\udce9/o.py", "d\udce9/o.ipynb", "d\udce9/o.html"]),
    ("inputs", "echo '[[1,2],[3,4]]' > \"$(printf 'in\\377.json')\" && echo '[[5,6],[7,8]]' > in.json",
     ["naive-scores", "--inputs", "in\udcff.json", "--json", "-"], []),
    ("check", "cp '" + CORRECT_MHA + "' \"$(printf 'm\\351.json')\"", ["check", "m\udce9.json"], []),
    ("check --html", "", ["check", CORRECT_MHA, "--html", "v\udce9.html"], ["v\udce9.html"]),
    ("kv-memory --html", "", ["kv-memory", "--html", "k\udce9.html"], ["k\udce9.html"]),
    ("verify --html", "", ["verify", "--html", "v\udce9.html"], ["v\udce9.html"]),
    ("through a symlink", "ln -s \"$(printf 't\\351.json')\" link.json", ["mha", "--json", "link.json"],
     ["t\udce9.json", "link.json"]),
    ("the message names it", "", ["mha", "--json", "nodir\udce9/x.json"], []),
    ("missing input", "", ["check", "gone\udce9.json"], []),
    ("output is the input", "echo '[[1,2],[3,4]]' > \"$(printf 'i\\351.json')\"",
     ["naive-scores", "--inputs", "i\udce9.json", "--json", "./i\udce9.json"], ["i\udce9.json"]),
    ("Chinese names", "mkdir 目录", ["mha", "--json", "目录/结果.json", "--py", "注意力.py"],
     ["目录/结果.json", "注意力.py"]),
]
# The environment: the language, the colours and the width come from it as natively.
ENVIRONMENTS = [
    ("LANG=zh", {"LANG": "zh_CN.UTF-8"}, []),
    ("LC_ALL=zh over LANG", {"LC_ALL": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, ["causal-mask"]),
    ("no LANG", {"LANG": None}, ["softmax"]),
    ("NO_COLOR", {"NO_COLOR": "1"}, ["naive-scores", "--color", "auto"]),
    ("TERM=dumb", {"TERM": "dumb"}, ["naive-scores", "--heatmap"]),
    ("COLORTERM", {"COLORTERM": "truecolor"}, ["causal-mask", "--heatmap", "--color", "always"]),
    ("COLUMNS=60", {"COLUMNS": "60"}, ["check", os.path.join(FIXTURES, "mistakes", "correct-mha.json")]),
]
# Files read through a pipe on stdin (emscripten's NODERAWFS read them at an offset until
# web/node/node_process.js).
PIPED = [
    ("check from a pipe", ["check", "/dev/stdin"], os.path.join(FIXTURES, "mistakes", "correct-mha.json")),
    ("inputs from a pipe", ["naive-scores", "--inputs", "/dev/stdin", "--json", "-"], None),
    ("empty pipe", ["check", "/dev/stdin"], ""),
]


def commands(native):
    """(name, argv, inputs matrix or None, files the command writes)"""
    modes = [("text", ["--color", "never"], []), ("json", ["--json", "-"], []), ("py", ["--py", "-"], []),
             ("ipynb", ["--ipynb", "-"], []), ("html", ["--html", "-"], []),
             ("explain", ["--explain", "--heatmap", "--color", "always"], []), ("zh", ["--lang", "zh"], []),
             ("files", ["--json", "o.json", "--py", "o.py", "--ipynb", "o.ipynb", "--html", "o.html"],
              ["o.json", "o.py", "o.ipynb", "o.html"])]
    for lesson in lessons(native):
        for mode, args, files in modes:
            yield (f"{lesson} {mode}", [lesson] + args, None, files)
    for fixture in ("chapter", "trainable", "bonus", "course", "d2l"):
        data = json.load(open(os.path.join(FIXTURES, f"{fixture}_pytorch.json"), encoding="utf-8"))
        for key in ("cases", "mkl_cases"):
            for case in data.get(key, []):
                lesson = case.get("lesson", {"trainable": "trainable", "course": "course-mha", "d2l": "d2l-mha"}.get(fixture))
                for mode, extra in (("json", ["--json", "-"]), ("text", ["--color", "never"])):
                    yield (f"{fixture} {case['id']} {mode}", [lesson] + case["argv"] + extra, case.get("inputs_file"), [])
    # The values where the two C libraries' functions differ in the last bit: pow(n, 0.5) for the head
    # sizes n = 550, 971, 2921, 3543, 3884 (glibc and musl disagree, or glibc is not sqrt), and the
    # scalar torch.randn path (fewer than 16 draws: double log, sin, cos) over 200 seeds.
    for lesson, d_out, heads in (("trainable", 550, None), ("causal-mask", 971, None), ("mha", 3884, 4),
                                 ("trainable", 3543, None), ("dropout", 3884, None), ("gqa", 2921, 1)):  # mha: head_dim 971
        mode = ["--json", "-"] if d_out < 1000 else ["--color", "never"]  # the text prints d_k ** 0.5 too
        argv = [lesson, "--d-out", str(d_out)] + mode + (["--num-heads", str(heads)] if heads else [])
        if lesson == "gqa":
            argv += ["--num-kv-groups", "1"]
        yield (f"libm {lesson} {d_out}", argv, None, [])
    seeds = random.Random(20261126)
    for _ in range(200):
        seed = str(seeds.randrange(-2**63, 2**64))
        yield (f"libm randn {seed}", ["trainable", "--init", "randn", "--seed", seed, "--json", "-"], None, [])
    mistakes = os.path.join(FIXTURES, "mistakes")
    for name in sorted(os.listdir(mistakes)):
        if name.endswith(".json"):
            path = os.path.join(mistakes, name)
            yield (f"check {name}", ["check", path], None, [])
            yield (f"check {name} zh", ["check", path, "--lang", "zh"], None, [])
    # The HTML the page shows of check, kv-memory and verify (--html -), and check's written file.
    dropout_on_scores = os.path.join(mistakes, "dropout-on-scores.json")
    yield ("check html", ["check", dropout_on_scores, "--html", "-"], None, [])
    yield ("check html zh", ["check", dropout_on_scores, "--html", "-", "--lang", "zh"], None, [])
    yield ("check html file", ["check", dropout_on_scores, "--html", "o.html"], None, ["o.html"])
    yield ("kv-memory html swa mla", ["kv-memory", "--window", "1024", "--latent-dim", "512", "--html", "-"], None, [])
    for name, setup, argv, files in HOSTILE:
        yield (f"hostile {name}", argv, None, files, setup)
    for name, setup, argv, files in NOT_UTF8:
        yield (f"hostile not UTF-8 {name}", argv, None, files, setup)
    for name, env, argv in ENVIRONMENTS:
        yield (f"env {name}", argv, None, [], "", None, env)
        if argv and argv[0] != "check":
            yield (f"env {name} tty", argv, None, [], "", None, env)
    for name, argv, source in PIPED:
        data = b"[[1, 2], [3, 4]]" if source is None else open(source, "rb").read() if source else b""
        yield (f"hostile {name}", argv, None, [], "", data)
    yield ("verify", ["verify"], None, [])
    yield ("verify zh", ["verify", "--lang", "zh"], None, [])
    yield ("lessons json", ["lessons", "--json"], None, [])  # the catalog the page builds from
    yield ("lessons json zh", ["lessons", "--json", "--lang", "zh"], None, [])
    yield ("verify html", ["verify", "--html", "-"], None, [])


def run(program, name, argv, inputs, files, setup="", stdin=None, env=None):
    """stdout, stderr, exit code and the written files of one command, in a folder of its own."""
    with tempfile.TemporaryDirectory(prefix="attn-web-") as folder:
        if setup:
            subprocess.run(["sh", "-c", setup], cwd=folder, check=True)
        if inputs is not None:
            with open(os.path.join(folder, "inputs.json"), "w", encoding="utf-8") as f:
                json.dump(inputs, f)
            argv = argv + ["--inputs", "inputs.json"]
        command = program + argv
        if name.endswith(" tty"):  # a terminal on stdout: script(1) (bsdutils), its output only
            command = ["script", "-qec", shlex.join(command), "/dev/null"]
        feed = {"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}
        environment = dict(ENV)
        for key, value in (env or {}).items():
            environment.pop(key, None)
            if value is not None:
                environment[key] = value
        done = subprocess.run(command, capture_output=True, env=environment, cwd=folder, timeout=600, **feed)
        written = {}
        for f in files:
            p = os.path.join(folder, f)
            written[f] = (open(p, "rb").read(), oct(os.stat(p).st_mode)) if os.path.exists(p) else None
        return done.stdout, done.stderr, done.returncode, written


def compare(native, other, case):
    name, argv, inputs, files = case[:4]
    setup = case[4] if len(case) > 4 else ""
    stdin = case[5] if len(case) > 5 else None
    env = case[6] if len(case) > 6 else None
    a = run(native, name, argv, inputs, files, setup, stdin, env)
    b = run(other, name, argv, inputs, files, setup, stdin, env)
    if a == b:
        return None
    what = [part for part, x, y in zip(("stdout", "stderr", "exit code", "files"), a, b) if x != y]
    detail = ""
    if a[0] != b[0]:
        la, lb = a[0].decode("utf-8", "replace").splitlines(), b[0].decode("utf-8", "replace").splitlines()
        for i, (x, y) in enumerate(zip(la + [""] * len(lb), lb + [""] * len(la))):
            if x != y:
                detail = f"\n    line {i + 1}: native {x[:100]!r}\n    line {i + 1}: other  {y[:100]!r}"
                break
    elif a[2] != b[2]:
        detail = f" (native {a[2]}, other {b[2]}: {b[1].decode('utf-8', 'replace')[:200]!r})"
    return f"differs ({', '.join(what)}): attn-tutor {shlex.join(argv)}{detail}"


# Signals while a command writes four files (README "Hostile input", Signals): each run is killed with
# SIGINT, SIGTERM or SIGHUP at a random moment, every other run a random moment after its first
# .attn-tutor-* temporary appeared (while it writes), and must leave no temporary, the four files all
# old or all new, and end of that signal (or exit 0, with all new, when it was done first). 23 MB of
# files, so that the writing takes a while.
SIGNALLED = ["all", "--d-out", "1024", "--num-heads", "8",
             "--json", "a.json", "--html", "b.html", "--py", "c.py", "--ipynb", "d.ipynb"]
SIGNALLED_FILES = ["a.json", "b.html", "c.py", "d.ipynb"]
SIGNAL_RUNS = 12


def signalled_files(folder):
    return [open(os.path.join(folder, f), "rb").read() for f in SIGNALLED_FILES]


def temporary_seen(folder, child, deadline):
    """Waits until a temporary is in `folder` (True) or the child ended or the deadline passed."""
    while child.poll() is None and time.monotonic() < deadline:
        if any(n.startswith(".attn-tutor-") for n in os.listdir(folder)):
            return True
        time.sleep(0.002)
    return False


def interrupted(program, runs=SIGNAL_RUNS, seed=20261202):
    """One line per run that broke the rule above, and a summary of what the runs saw."""
    quiet = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": ENV}
    with tempfile.TemporaryDirectory(prefix="attn-web-") as folder:
        start = time.monotonic()
        subprocess.run(program + SIGNALLED, cwd=folder, timeout=300, check=True, **quiet)
        took = time.monotonic() - start
        new = signalled_files(folder)
    rng, problems, seen = random.Random(seed), [], {"old": 0, "new": 0, "done": 0, "writing": 0}
    for i in range(runs):
        sig = rng.choice([signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
        writing = i % 2 == 1
        delay = rng.uniform(0, 0.05) if writing else rng.uniform(0.05, took * 1.1)
        with tempfile.TemporaryDirectory(prefix="attn-web-") as folder:
            for f in SIGNALLED_FILES:
                with open(os.path.join(folder, f), "wb") as out:
                    out.write(b"old\n")
            child = subprocess.Popen(program + SIGNALLED, cwd=folder, **quiet)
            if writing:
                writing = temporary_seen(folder, child, time.monotonic() + 3 * took + 10)
            time.sleep(delay)
            child.send_signal(sig)
            code = child.wait(timeout=300)
            left = [n for n in os.listdir(folder) if n.startswith(".attn-tutor-")]
            seen["writing"] += writing
            files = signalled_files(folder)
        state = "old" if files == [b"old\n"] * 4 else "new" if files == new else "mixed"
        when = "its first temporary appeared" if writing else "it started"
        what = f"{' '.join(program)} {shlex.join(SIGNALLED)} killed with {sig.name} {delay:.3f} s after {when}"
        if left:
            problems.append(f"{what}: left {left}")
        if state == "mixed":
            problems.append(f"{what}: some files new, some old")
        elif code == -sig:
            seen[state] += 1
        elif code == 0 and state == "new":
            seen["done"] += 1
        else:
            problems.append(f"{what}: exit code {code} with the {state} files")
    summary = (f"signals: {runs} runs of {program[-1]} ({took:.1f} s each, {seen['writing']} killed while writing): "
               f"{seen['old']} ended all old, {seen['new']} all new, {seen['done']} done before the signal")
    return problems, summary


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    native, other = [os.path.abspath(sys.argv[1])], shlex.split(sys.argv[2])
    if os.path.exists(other[0]):
        other[0] = os.path.abspath(other[0])
    jobs = int(sys.argv[sys.argv.index("--jobs") + 1]) if "--jobs" in sys.argv else (os.cpu_count() or 2)
    cases = list(commands(native[0]))
    if "--no-files" in sys.argv:
        cases = [c for c in cases if len(c) == 4 and c[2] is None and not c[3] and c[1][:1] != ["check"]
                 and not c[0].endswith(" tty")]
    if "--only" in sys.argv:  # for a quick look at some: the cases whose name holds the text
        cases = [c for c in cases if sys.argv[sys.argv.index("--only") + 1] in c[0]]
    if "--tty" in sys.argv:
        cases += [(f"{lesson} tty", [lesson], None, []) for lesson in lessons(native[0])]
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(lambda c: compare(native, other, c), cases))
    failures = [r for r in results if r]
    for r in failures:
        print(r)
    print(f"compare_builds: {len(cases) - len(failures)} of {len(cases)} commands byte-identical")
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else "signals"
    if "--no-files" not in sys.argv and only in "signals":  # each build on its own: no bytes to compare
        for program in (native, other):
            problems, summary = interrupted(program)
            for r in problems:
                print(r)
            print(summary)
            failures += problems
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
