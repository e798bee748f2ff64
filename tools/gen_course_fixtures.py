#!/usr/bin/python3
"""Expected values of `attn-tutor course-mha` by real PyTorch (1.13), and a check of the CLI against it.

Runs a course's multi-head attention code (the hyper-parameters as globals, `Attention`,
`MultiHeadAttention`) with torch, cell by cell in the order the lesson runs them, for random cases:
--preset small (the lesson's inputs as x = torch.stack((inputs, inputs)), 2-12 tokens of 1-8 numbers,
--num-heads dividing d_in or the default, sometimes --d-model equal to d_in) and --preset post
(x = torch.randn(2, T, d_model) after construction; --d-model 1-128 or the default 512, --num-heads
dividing it or the default 8, --tokens for T = 2-8 or the default 6), with --seed (none = 123,
negatives, 0, up to 2^64-1), --dropout (default 0.1, 0, 0.5, 1.0, random), --context-length and, for
some, --bernoulli mkl (the independent MKL model of tools/torch_mkl.py). Then the lesson's
last cell: each head against the book's CausalAttention with copied weights, with
torch.get_rng_state / set_rng_state so both draw the same dropout mask.

Two modes (both need torch and numpy; deterministic for a given --rng-seed):

  Fixture (default): writes tests/fixtures/course_pytorch.json, which tests/test_course_fixtures.cpp
  replays against the CLI, so the tests never need torch.
      /usr/bin/python3 tools/gen_course_fixtures.py [--cases 40] [--out tests/fixtures/course_pytorch.json]

  Check: runs `attn-tutor course-mha --json -` (and the text output) for N random cases and compares
  EVERY tensor the lesson records, by name in order, shape and dtype: floats within --tol (1e-6), -inf
  and bool exactly, weights bit for bit, the zero pattern of every dropout output identical; checks that
  torch.equal(out_course, out_book) holds in torch for every head and that the CLI prints the same
  `i True 0.0` lines; and that each printed tensor's repr (grad_fn included) appears in the CLI's text.
      /usr/bin/python3 tools/gen_course_fixtures.py --check 300 [--exe build/attn-tutor] [--tol 1e-6]
  Exit status 0 when every case passes.

Fixture layout: {"generator", "torch", "tolerance", "exact": [names compared bit for bit],
 "zero_pattern": [names whose zeros must coincide], "cases": [{"id", "argv": [...],
 "inputs_file": <JSON for --inputs, or null>, "expected": [{"name", "occurrence", "shape", "data"}, ...]}]}.
"expected" holds some float32 tensors of the lesson (within a size budget per case), in the order the
lesson records them; "occurrence" k (from 1) means the CLI's k-th tensor of that name (the lesson
rebinds weights and out). -inf is the string "-inf".
"""
import argparse
import json
import os
import random
import sys
import tempfile
from collections import defaultdict

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_chapter_fixtures as chapter  # noqa: E402  (the chapter's random cases)
import cli_compare  # noqa: E402
import common  # noqa: E402  (the binary's option table: case_argv)
import torch_book as tb  # noqa: E402
import torch_course as tc  # noqa: E402  (the course's classes)
import torch_mkl as mkl  # noqa: E402
from torch_book import CausalAttention  # noqa: E402

# ---- the lesson's cells -----------------------------------------------------------------------------

def config(case):
    """The hyper-parameters in force, as lessons/course_mha.cpp resolves them."""
    post = case["preset"] == "post"
    if post:
        T = len(case["tokens"]) if case["tokens"] is not None else 6
        dm = case["d_model"] if case["d_model"] is not None else 512
        heads = case["num_heads"] if case["num_heads"] is not None else 8
        cl = case["context_length"] if case["context_length"] is not None else 128
    else:
        T, dm = len(case["rows"]), len(case["rows"][0])
        heads = case["num_heads"] if case["num_heads"] is not None else (3 if dm % 3 == 0 else 2 if dm % 2 == 0 else 1)
        cl = case["context_length"] if case["context_length"] is not None else T
    return {"post": post, "T": T, "d_model": dm, "num_heads": heads, "context_length": cl,
            "dropout": 0.1 if case["dropout"] is None else case["dropout"],
            "seed": 123 if case["seed"] is None else case["seed"]}


def run_lesson(case, rec, prints=None):
    """The lesson's cells with torch. rec(name, tensor, shown) in the order attn-tutor records them;
    prints (a list) receives the `i True 0.0` lines of the comparison cell."""
    cfg = config(case)
    tc.set_hyperparameters(cfg)
    if not cfg["post"]:
        inputs = torch.tensor(case["rows"])
        x = torch.stack((inputs, inputs), dim=0)
        rec("x", x, False)
    torch.manual_seed(cfg["seed"])
    mha = tc.MultiHeadAttention()
    rec("mha.heads[0].Wq.weight", mha.heads[0].Wq.weight, True)
    if cfg["post"]:
        x = torch.randn(2, cfg["T"], tc.d_model)
        rec("x", x, True)
    mha.trace = {}
    mha.heads[0].trace = h = {}
    out = mha(x)
    rec("out", out, True)
    shown_kv = not cfg["post"]
    for key, name, shown in [("q", "q", True), ("k", "k", shown_kv), ("v", "v", shown_kv),
                             ("scores", "q @ k.transpose(-2, -1)", True), ("scaled", "weights", True),
                             ("mask", "self.mask[:T, :T]", True), ("mask_is_zero", "self.mask[:T, :T] == 0", True),
                             ("masked", "weights", True), ("softmaxed", "weights", True),
                             ("dropped", "weights", True), ("output", "output", True)]:
        rec(name, h[key], shown)
    t = mha.trace
    for i, o in enumerate(t["head_outputs_list"]):
        rec("head_outputs[%d]" % i, o, not cfg["post"])
    rec("head_outputs", t["head_outputs"], True)
    rec("self.projection_layer.weight", mha.projection_layer.weight, True)
    rec("self.projection_layer.bias", mha.projection_layer.bias, True)
    rec("out", t["projected"], True)
    rec("out", out, True)
    mha.trace = None
    mha.heads[0].trace = None

    for i, head in enumerate(mha.heads):
        ca = CausalAttention(tc.d_model, tc.d_model // tc.num_heads, tc.context_length, tc.dropout)
        with torch.no_grad():  # give the book's head this head's weights
            ca.W_query.weight.copy_(head.Wq.weight)
            ca.W_key.weight.copy_(head.Wk.weight)
            ca.W_value.weight.copy_(head.Wv.weight)
        state = torch.get_rng_state()
        out_course = head(x)
        torch.set_rng_state(state)  # the same dropout mask for both
        out_book = ca(x)
        rec("out_course", out_course, False)
        rec("out_book", out_book, False)
        if prints is not None:
            prints.append("%d %s %r" % (i, torch.equal(out_course, out_book),
                                        (out_course - out_book).abs().max().item()))


def run_book(case, with_grad=False, prints=None):
    """[(name, tensor, shown)] with detached copies (and the repr with autograd when with_grad)."""
    out = []

    def rec(name, value, shown):
        r = repr(value) if with_grad else None
        out.append((name, value.detach().clone(), shown, r))

    with mkl.bernoulli_path(case["bernoulli"]):
        if with_grad:
            run_lesson(case, rec, prints)
        else:
            with torch.no_grad():
                run_lesson(case, rec, prints)
    return out


# ---- random cases -----------------------------------------------------------------------------------

def divisors(n):
    return [k for k in range(1, n + 1) if n % k == 0]


def random_dropout(rng):
    # None: the course's 0.1
    return tb.random_rate(rng, [(0.3, None), (0.45, 0.0), (0.6, 0.5), (0.67, 1.0)], 0.72, (2, 3, 6))


def make_case(rng, preset, bernoulli="default"):
    case = {"preset": preset, "seed": chapter.random_seed(rng), "dropout": random_dropout(rng), "bernoulli": bernoulli,
            "rows": None, "inputs_file": None, "tokens": None, "d_model": None, "num_heads": None,
            "d_model_flag": False, "context_length": None}
    if preset == "small":
        n = tb.random_dim(rng, 2, 12, chapter.SMALL_DIM)
        d_in = tb.random_dim(rng, 1, 8, chapter.SMALL_DIM)
        big = rng.random() < 0.2
        rows = [[tb.random_value(rng, big) for _ in range(d_in)] for _ in range(n)]
        case["rows"] = rows
        case["inputs_file"] = ({"tokens": [rng.choice(tb.WORDS) for _ in range(n)], "inputs": rows}
                               if rng.random() < 0.5 else rows)
        if rng.random() < 0.7:
            case["num_heads"] = rng.choice(divisors(d_in))
        case["d_model_flag"] = rng.random() < 0.2  # --d-model equal to d_in is accepted
        T = n
    else:
        if rng.random() < 0.6:
            case["tokens"] = [rng.choice(tb.WORDS) for _ in range(rng.randint(2, 8))]
        T = len(case["tokens"]) if case["tokens"] else 6
        r = rng.random()
        if r < 0.12:
            pass  # the course's d_model 512 (and 8 heads unless given)
        elif r < 0.25:
            case["d_model"] = rng.choice([256, 384, 512, 768])
        else:
            case["d_model"] = rng.randint(1, 128)
        dm = case["d_model"] or 512
        if case["d_model"] is None or dm % 8 != 0 or rng.random() < 0.6:
            options = [k for k in divisors(dm) if k <= 64]
            case["num_heads"] = rng.choice(options)
        if case["d_model"] is None and rng.random() < 0.5:
            case["num_heads"] = None  # the course's 8
    if rng.random() < 0.3:
        case["context_length"] = T + rng.choice((0, 0, 1, 3, 20, 200))
    case["preset_flag"] = rng.random() < 0.3  # --preset small spelled out now and then
    case["argv"] = case_argv(case)
    return case


def case_argv(case):
    rate = 0.1 if case["dropout"] is None else case["dropout"]
    d_model = case["d_model"] if case["d_model"] is not None else \
        len(case["rows"][0]) if case["d_model_flag"] else None
    return common.case_argv("course-mha", [
        ("preset", case["preset"] if case["preset"] == "post" or case.get("preset_flag") else None),
        ("seed", case["seed"]), ("tokens", case["tokens"]), ("d_model", d_model), ("num_heads", case["num_heads"]),
        ("dropout", case["dropout"]), ("context_length", case["context_length"]),
        # a rate of 0 or 1 draws no mask: attn-tutor refuses --bernoulli then
        ("bernoulli", case["bernoulli"] if case["bernoulli"] != "default" and 0 < rate < 1 else None)],
        joined=("seed",))


def fixed_cases():
    """The lesson's defaults and some corners first."""
    def case(preset, **kw):
        c = {"preset": preset, "seed": None, "dropout": None, "bernoulli": "default", "rows": None,
             "inputs_file": None, "tokens": None, "d_model": None, "num_heads": None, "d_model_flag": False,
             "context_length": None}
        if preset == "small":
            c["rows"] = tb.BOOK_ROWS
            c["inputs_file"] = {"tokens": tb.BOOK_TOKENS, "inputs": tb.BOOK_ROWS}
        c.update(kw)
        c["argv"] = case_argv(c)
        return c
    return [case("small"), case("small", num_heads=1), case("small", dropout=0.0), case("small", dropout=1.0),
            case("small", seed=-1, dropout=0.5, bernoulli="mkl"),
            case("post", tokens=["Your", "journey"], post_settings=True),  # the course's settings, T = 2
            case("post", d_model=24, num_heads=4, tokens=["a", "b", "c"], context_length=3),
            case("post", d_model=768, num_heads=12, tokens=["a", "b"], dropout=0.0)]


# ---- fixture ----------------------------------------------------------------------------------------

# What the committed fixture keeps of a case, in this priority, while the case's values stay within its
# budget (check mode compares everything): the module's output first, then the attention weights, ...
PRIORITY = ["out", "weights", "output", "head_outputs", "out_course", "mha.heads[0].Wq.weight",
            "self.projection_layer.bias", "q", "head_outputs[0]"]  # out_course comes with its out_book
EXACT = ["mha.heads[0].Wq.weight", "self.projection_layer.bias"]
ZERO_PATTERN = ["weights", "output", "out", "out_course", "out_book"]
BUDGET = 500          # values per case
BUDGET_POST = 6200    # the course's own settings (d_model 512, 8 heads): its whole output


def fixture_entries(case):
    """[(name, occurrence, tensor)] in the lesson's order: the most telling tensors within the budget."""
    seen = defaultdict(int)
    recorded = []
    for name, t, _, _ in run_book(case):
        seen[name] += 1
        if (name in PRIORITY or name == "out_book") and t.dtype == torch.float32:
            recorded.append((name, seen[name], t))
    budget = BUDGET_POST if case.get("post_settings") else BUDGET
    keep = set()
    for name in PRIORITY:
        for i, (n, _, t) in reversed(list(enumerate(recorded))):  # the last "out" is the module's output
            pair = [i, i + 1] if n == "out_course" else [i]  # out_book follows its out_course
            size = sum(recorded[j][2].numel() for j in pair)
            if n == name and size <= budget:
                keep.update(pair)
                budget -= size
    return [r for i, r in enumerate(recorded) if i in keep]


def case_text(i, case):
    entries = [tb.entry_text(name, t, occurrence=k, inf_strings=True) for name, k, t in fixture_entries(case)]
    fields = ['"id": %d' % i, '"argv": %s' % json.dumps(case["argv"]), tb.inputs_field(case["inputs_file"])]
    return tb.case_block(fields, entries)


def write_fixture(args):
    rng = random.Random(args.rng_seed)
    cases = fixed_cases()
    while len(cases) < args.cases:
        preset = "small" if len(cases) % 3 else "post"
        cases.append(make_case(rng, preset, bernoulli="mkl" if rng.random() < 0.1 else "default"))
    text = ('{"generator": "tools/gen_course_fixtures.py --cases %d --rng-seed %d",\n'
            ' "torch": %s, "tolerance": 1e-6,\n "exact": %s,\n "zero_pattern": %s,\n "cases": [\n%s\n]}\n') % (
        args.cases, args.rng_seed, json.dumps(torch.__version__), json.dumps(EXACT), json.dumps(ZERO_PATTERN),
        ",\n".join(case_text(i, c) for i, c in enumerate(cases)))
    tb.write_fixture(args.out, text, "%d cases" % len(cases))


# ---- check ------------------------------------------------------------------------------------------

def run_cli(exe, case, tmp, json_out):
    inputs = tb.write_inputs(tmp, case["inputs_file"])
    return tb.run_cli(exe, "course-mha", case["argv"], inputs, json_out, options=("--color", "never"))


def Stats():
    return cli_compare.Stats(cases=0, failed=0, heads=0)


def compare(case, doc, text, tol, st, label):
    prints = []
    expected = [(name, want, want_repr if shown else None)
                for name, want, shown, want_repr in run_book(case, with_grad=True, prints=prints)]
    problems = cli_compare.compare(expected, doc, tol, st, label, exact=EXACT + ["self.projection_layer.weight"],
                                   zero_pattern=ZERO_PATTERN, masks=ZERO_PATTERN, text=text)
    cli_lines = [line for line in text.splitlines() if line[:1].isdigit() and (" True " in line or " False " in line)]
    if cli_lines != prints:
        problems.append("comparison lines differ: cli %s vs torch %s" % (cli_lines, prints))
    st.heads += len(prints)
    if any(" True " not in p for p in prints):
        problems.append("torch.equal(out_course, out_book) is False in torch: %s" % prints)
    return problems


def check(args):
    rng = random.Random(args.rng_seed)
    cases = list(fixed_cases())
    while len(cases) < args.check:
        preset = "small" if len(cases) % 2 else "post"
        cases.append(make_case(rng, preset, bernoulli="mkl" if rng.random() < 0.1 else "default"))
    stats = defaultdict(Stats)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, case in enumerate(cases):
            key = case["preset"] + (" [mkl]" if case["bernoulli"] == "mkl" else "")
            st = stats[key]
            st.cases += 1
            cmd, r = run_cli(args.exe, case, tmp, True)
            _, rt = run_cli(args.exe, case, tmp, False)
            if r.returncode != 0 or rt.returncode != 0:
                problems = ["exit %d: %s" % (r.returncode, r.stderr.strip()[:300])]
            else:
                problems = compare(case, json.loads(r.stdout), rt.stdout, args.tol, st, "case %d" % i)
            if problems:
                st.failed += 1
                failures.append((i, cmd, problems))
    print("%-14s %5s %6s %9s %11s %8s %7s  %s" % ("preset", "cases", "failed", "values", "max|diff|", "reprs",
                                                   "heads", "dropout outputs (zeros) with identical zero pattern"))
    for key in sorted(stats):
        s = stats[key]
        print("%-14s %5d %6d %9d %11.3g %8d %7d  %d (%d)" % (key, s.cases, s.failed, s.values, s.max_diff, s.reprs,
                                                              s.heads, s.mask_tensors, s.mask_entries))
        print("    max at %s; zeros of another sign than torch's (info): %d" % (s.max_where, s.zero_sign))
    for i, cmd, problems in failures[:20]:
        print("\nFAIL case %d: %s" % (i, " ".join(cmd)))
        for p in problems[:8]:
            print("  " + p)
    print("\n%d cases, %d failed" % (len(cases), len(failures)))
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=40, help="fixture cases (default %(default)s)")
    ap.add_argument("--out", default="tests/fixtures/course_pytorch.json")
    ap.add_argument("--rng-seed", type=int, default=20240602)
    ap.add_argument("--check", type=int, default=0, metavar="N", help="check N cases against the CLI instead")
    ap.add_argument("--exe", default=tb.default_exe())
    ap.add_argument("--tol", type=float, default=1e-6)
    args = ap.parse_args()
    torch.set_num_threads(1)
    mkl.self_check_mkl()
    if args.check:
        sys.exit(check(args))
    write_fixture(args)


if __name__ == "__main__":
    main()
