#!/usr/bin/env python3
"""Runs every lesson's `--py -` export in real PyTorch and compares what it prints with what the
tool prints, byte for byte. Needs torch: run it with the Python that has it (Debian's python3-torch:
/usr/bin/python3). Not part of CI (CI has no torch; ctest checks that the exports parse).

    /usr/bin/python3 tools/check_py_export.py [build/attn-tutor] [--lesson NAME] [--quick]

What is compared: the tool's printed output. A code cell's output in the `--ipynb -` export is the
text the tool shows after that cell. The concatenation of those outputs must equal the script's
standard output exactly; each code cell of the notebook, run in order in one namespace as Jupyter
runs it, must print exactly its stored output; and the screen (`--color never`) must show the same
output lines in the same order. Shape notes ("# x.shape: torch.Size([...])") and the annotations
are comments on the screen, not output: the script does not print them (tests/test_py_export.cpp
checks that every shape note parses as the Python `.shape` of its expression).

Not covered: --bernoulli mkl reproduces the dropout masks of Intel CPUs with PyTorch <= 2.6, which a
PyTorch on another path does not draw; those scripts print other dropout masks by design.

Exit status: 0 when every lesson and option set matches, 1 otherwise (each mismatch shows a diff).
"""
import difflib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "build", "attn-tutor")

INPUTS = os.path.join(HERE, "..", "tests", "fixtures", "snapshot_inputs.json")  # 4 tokens of 4 numbers
# The whole numbers, [[1,0],[0,1],[1,1]]: JSON integers the tool computes with as float32, which the
# cells must write as float literals (1.0), or torch.tensor makes an int64 tensor (other numbers, and
# softmax and nn.Linear refuse it). Every lesson takes --inputs, so every lesson runs it.
INTEGER_INPUTS = os.path.join(HERE, "..", "tests", "fixtures", "integer_inputs.json")
COMMON = [[], ["--seed", "7"], ["--tokens", "the cat sat on mats"], ["--tokens", "one two three four", "--d-in", "5"],
          ["--qkv-bias"], ["--inputs", INPUTS], ["--inputs", INTEGER_INPUTS]]
CHAPTER_D_OUT = [["--d-out", "4"]]
# Each lesson's option sets beyond the common ones (the lesson's own options, as in lessons/registry.cpp).
EXTRA = {
    "naive-scores": [["--tokens", "a b c", "--seed", "9"]],
    "softmax": [["--tokens", "a b c", "--seed", "9"]],
    "trainable": CHAPTER_D_OUT + [["--init", "randn", "--seed", "42"]],
    "causal-mask": CHAPTER_D_OUT + [["--seed", "5", "--d-out", "1"]],
    "dropout": CHAPTER_D_OUT + [["--dropout", "0.3"], ["--dropout", "0.5", "--seed", "7"], ["--context-length", "9"]],
    "wrapper": CHAPTER_D_OUT + [["--num-heads", "3"], ["--dropout", "0.5"], ["--no-reseed"],
                                ["--num-heads", "1", "--dropout", "0.2", "--seed", "5"]],
    "mha": [["--d-out", "6", "--num-heads", "3"], ["--dropout", "0.5"], ["--num-heads", "1"], ["--context-length", "8"],
            ["--gpt2"]],
    "course-mha": [["--num-heads", "1"], ["--dropout", "0.5"], ["--dropout", "0"], ["--context-length", "10"],
                   ["--preset", "post"], ["--preset", "post", "--d-model", "16", "--num-heads", "4", "--seed", "3"]],
    "d2l-mha": [["--num-heads", "2", "--num-hiddens", "8"], ["--dropout", "0.5"], ["--valid-lens", "4,1"]],
    "kv-cache": [["--num-heads", "1"], ["--d-out", "6", "--num-heads", "3"], ["--context-length", "9"]],
    "gqa": [["--num-kv-groups", "1"], ["--num-heads", "4", "--num-kv-groups", "4"]],
    "mla": [["--latent-dim", "3"], ["--num-heads", "1"]],
    "swa": [["--window", "2"], ["--window", "9"]],
    # d_out must equal d_in there (the combined-QKV and nn.MultiheadAttention classes): other inputs come with their --d-out
    "mha-forms": [["--num-heads", "1"], ["--tokens", "one two three four", "--d-in", "4", "--d-out", "4", "--num-heads", "2"],
                  ["--inputs", INPUTS, "--d-out", "4", "--num-heads", "2"],
                  ["--inputs", INTEGER_INPUTS, "--d-out", "2", "--num-heads", "2"],
                  ["--tokens", "a b c d e f g", "--d-in", "8", "--d-out", "8", "--num-heads", "4", "--seed", "5"]],
    "all": [["--d-out", "4"], ["--dropout", "0.5"]],  # the chapter's lessons in one script
}
LESSONS = list(EXTRA)
# Options a lesson refuses because they would have no effect there (the tool says so and exits 2):
# mha-forms: --qkv-bias would add nn.MultiheadAttention's bias_k/bias_v (its EXTRA sets give --tokens and --inputs with
# their --d-out); the course's Wq, Wk, Wv have no bias switch; naive-scores and softmax draw no random numbers and have no weights.
REFUSED = {"mha-forms": {"--qkv-bias", "--tokens", "--inputs"}, "course-mha": {"--qkv-bias"}, "naive-scores": {"--seed", "--qkv-bias"}, "softmax": {"--seed", "--qkv-bias"}}


def run(cmd, stdin=None):
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True)


def screen_output_lines(text):
    """The lines the screen shows as printed output: not code, comments, headings or blank lines."""
    keep = []
    for line in text.split("\n"):
        if not line.strip() or line.startswith(("In [", ">>>", "...", "#", "=")):
            continue
        keep.append(line)
    return keep


# Runs a notebook's code cells in order in one namespace, as Jupyter would, and prints what each printed.
RUN_CELLS = r"""
import contextlib, io, json, sys
cells = [c for c in json.load(sys.stdin)["cells"] if c["cell_type"] == "code"]
scope, printed = {"__name__": "__main__"}, []
for cell in cells:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile("".join(cell["source"]), "<cell>", "exec"), scope)
    printed.append(out.getvalue())
json.dump(printed, sys.stdout)
"""


def check(tool, lesson, options):
    label = " ".join([lesson] + options)
    script = run([tool, lesson] + options + ["--py", "-"])
    notebook = run([tool, lesson] + options + ["--ipynb", "-"])
    screen = run([tool, lesson] + options + ["--color", "never"])
    if script.returncode or notebook.returncode or screen.returncode:
        return label, "the tool failed: " + (script.stderr or notebook.stderr or screen.stderr).strip()
    expected = "".join("".join(cell["outputs"][0]["text"]) if cell["outputs"] else ""
                       for cell in json.loads(notebook.stdout)["cells"] if cell["cell_type"] == "code")
    shown = screen_output_lines(screen.stdout)
    stored = [line for line in expected.split("\n") if line.strip()]
    if shown != stored:
        diff = "\n".join(list(difflib.unified_diff(shown, stored, "screen", "ipynb outputs", lineterm="", n=1))[:30])
        return label, "the notebook's outputs are not the screen's:\n" + diff
    cells = [c for c in json.loads(notebook.stdout)["cells"] if c["cell_type"] == "code"]
    ran = run([sys.executable, "-c", RUN_CELLS], stdin=notebook.stdout)
    if ran.returncode:
        return label, "the notebook's cells failed in Python:\n" + ran.stderr.strip()[-2000:]
    for cell, printed in zip(cells, json.loads(ran.stdout)):
        stored = "".join(cell["outputs"][0]["text"]) if cell["outputs"] else ""
        if printed != stored:
            return label, f"In [{cell['execution_count']}] of the notebook prints something else than its stored output"
    got = run([sys.executable, "-"], stdin=script.stdout)
    if got.returncode:
        return label, "the script failed in Python:\n" + got.stderr.strip()[-2000:]
    if got.stdout != expected:
        diff = "\n".join(list(difflib.unified_diff(expected.split("\n"), got.stdout.split("\n"), "attn-tutor",
                                                   "PyTorch", lineterm="", n=1))[:40])
        return label, "PyTorch prints something else:\n" + diff
    return label, None


def main(argv):
    tool, only, quick = TOOL, None, False
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--lesson":
            only = args.pop(0)
        elif a == "--quick":
            quick = True
        else:
            tool = a
    try:
        import torch
        print("PyTorch", torch.__version__, "at", sys.executable)
    except ImportError:
        print("check_py_export.py: this Python has no torch; run it with /usr/bin/python3", file=sys.stderr)
        return 2
    failed = 0
    total = 0
    for lesson in LESSONS:
        if only and lesson != only:
            continue
        common = [o for o in COMMON if not (o and o[0] in REFUSED.get(lesson, ()))]
        sets = [[]] if quick else common + EXTRA[lesson]
        for options in sets:
            total += 1
            label, problem = check(tool, lesson, options)
            print(("ok       " if problem is None else "MISMATCH ") + label)
            if problem:
                failed += 1
                print("  " + problem.replace("\n", "\n  "))
    print(f"{total - failed} of {total} matched")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
