#!/usr/bin/python3
"""Expected values of `attn-tutor causal-mask|dropout|wrapper|mha` for random options, by real PyTorch (1.13).

Runs the book's §3.5.1-3.6.2 code (SelfAttention_v2, the causal mask, Dropout, CausalAttention,
MultiHeadAttentionWrapper, MultiHeadAttention; the cells written out below, in the order the lessons
run them) with torch for random cases: --seed (none = the book's 789/123, negatives, 0, up to 2^64-1),
--inputs (2-12 rows, 1-8 columns), --d-out (1-8; for mha a multiple of --num-heads, 1-4), --num-heads,
--qkv-bias, --dropout (0, 0.1, 0.5, a random rate, 1.0, or the lesson's default), --context-length
(sometimes more than the tokens) and, for wrapper, --no-reseed. Writes one JSON fixture that
tests/test_chapter_fixtures.cpp replays against the CLI, so the tests and CI never need torch.

The MKL dropout path (--bernoulli mkl) cannot run in torch on this machine; its cases use the
independent model of tools/torch_mkl.py (self-checked against the spec's test vector), and for the
dropout lesson the seed draw is cross-checked against numpy's MT19937.

Regenerate (needs torch and numpy; deterministic for given --cases/--mkl-cases/--rng-seed):
    /usr/bin/python3 tools/gen_chapter_fixtures.py --out tests/fixtures/chapter_pytorch.json

Fixture layout:
    {"generator": ..., "torch": "1.13...", "tolerance": 1e-6,
     "exact": [names compared exactly: the dropout output of ones],
     "zero_pattern": [names whose zero entries must coincide exactly: the dropout outputs (masks), and
                      every attn_weights (mha's is after self.dropout)],
     "cases": [{"id": 0, "lesson": "mha", "argv": ["--seed", "-5", "--d-out", "4", ...],
                "inputs_file": <the JSON written to the --inputs file>,
                "expected": [{"name": "attn_weights", "shape": [2, 2, 6, 6], "data": [...]}, ...]}],
     "mkl_cases": [same layout, argv includes "--bernoulli", "mkl"]}
"expected" holds a subset of the lesson's tensors (attn_weights, context_vec(s), the dropout outputs,
the wrapper's head outputs), each in the order the lesson records it: the k-th "attn_weights" of the
case is the k-th "attn_weights" of the CLI's JSON. Floats are written as the shortest text that reads
back (decimal -> double -> float32) as the same float32. For the names in "zero_pattern" an entry must
be 0 in the CLI iff it is 0 in torch (dropout mask identity), besides the 1e-6 tolerance.

tools/check_chapter_against_torch.py imports make_case/run_book from here and compares every tensor;
the book's classes, the random values and the float32 text are in tools/torch_book.py.
"""
import argparse
import json
import os
import random
import sys

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402  (the binary's option table: case_argv)
import torch_book as tb  # noqa: E402
import torch_mkl as mkl  # noqa: E402
from torch_book import (CausalAttention, MultiHeadAttention, MultiHeadAttentionWrapper,  # noqa: E402
                        SelfAttention_v2)

LESSONS = ["causal-mask", "dropout", "wrapper", "mha"]

# Tensors of each lesson stored in the fixture (all occurrences, in order).
FIXTURE_NAMES = {
    "causal-mask": ["attn_weights", "masked_simple_norm", "context_vec"],
    "dropout": ["attn_weights", "dropout(example)", "dropout(attn_weights)", "dropout(attn_weights).sum(dim=-1)",
                "context_vecs"],
    "wrapper": ["context_vecs", "head_outputs[0]", "head_outputs[1]", "head_outputs[2]",
                "head_outputs[3]", "torch.cat(head_outputs, dim=-1)"],
    "mha": ["attn_weights", "context_vec", "context_vecs"],
}
# The acceptance tensors (the ones the check tool reports separately).
ACCEPT_NAMES = {"attn_weights", "context_vec", "context_vecs", "dropout(example)", "dropout(attn_weights)",
                "head_outputs[0]", "head_outputs[1]", "head_outputs[2]", "head_outputs[3]",
                "torch.cat(head_outputs, dim=-1)"}
EXACT = ["dropout(example)"]
ZERO_PATTERN = ["dropout(example)", "dropout(attn_weights)", "attn_weights"]  # dropout outputs: the masks

# ---- the lessons, as the book runs them -----------------------------------------------------------

def _seed(case, book):
    return book if case["seed"] is None else case["seed"]


def _sa_v2_scores(case):
    """The section's first cells: SelfAttention_v2 (seed 789) on the inputs, its queries and keys and the
    attention scores; returns (inputs, sa_v2, queries, keys, attn_scores)."""
    inputs = torch.tensor(case["rows"])
    torch.manual_seed(_seed(case, 789))
    sa_v2 = SelfAttention_v2(inputs.shape[1], case["d_out"], qkv_bias=case["qkv_bias"])
    queries = sa_v2.W_query(inputs)
    keys = sa_v2.W_key(inputs)
    return inputs, sa_v2, queries, keys, queries @ keys.T


def run_causal_mask(case, rec):
    inputs, sa_v2, queries, keys, attn_scores = _sa_v2_scores(case)
    attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=1)
    rec("queries", queries)
    rec("keys", keys)
    rec("attn_scores", attn_scores)
    rec("attn_weights", attn_weights)

    context_length = attn_scores.shape[0]
    mask_simple = torch.tril(torch.ones(context_length, context_length))
    rec("context_length", context_length)
    rec("mask_simple", mask_simple)
    masked_simple = attn_weights * mask_simple
    rec("masked_simple", masked_simple)
    row_sums = masked_simple.sum(dim=-1, keepdim=True)
    masked_simple_norm = masked_simple / row_sums
    rec("row_sums", row_sums)
    rec("masked_simple_norm", masked_simple_norm)

    mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)
    masked = attn_scores.masked_fill(mask.bool(), -torch.inf)
    rec("mask", mask)
    rec("masked", masked)
    attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=1)
    rec("attn_weights", attn_weights)
    rec("(masked_simple_norm - attn_weights).abs().max()", (masked_simple_norm - attn_weights).abs().max())
    rec("mask_simple.bool()", mask_simple.bool())
    rec("mask.bool()", mask.bool())

    values = sa_v2.W_value(inputs)
    context_vec = attn_weights @ values
    rec("values", values)
    rec("context_vec", context_vec)


def run_dropout(case, rec):
    p = 0.5 if case["dropout"] is None else case["dropout"]
    inputs, _, _, keys, attn_scores = _sa_v2_scores(case)
    d_in, d_out = inputs.shape[1], case["d_out"]
    context_length = attn_scores.shape[0]
    mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)
    masked = attn_scores.masked_fill(mask.bool(), -torch.inf)
    attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=1)
    rec("attn_weights", attn_weights)

    n = inputs.shape[0]
    torch.manual_seed(_seed(case, 123))
    dropout = torch.nn.Dropout(p)
    example = torch.ones(n, n)
    rec("example", example)
    first = len(mkl.MKL_SEED_LOG)
    rec("dropout(example)", dropout(example))
    if case["bernoulli"] == "mkl" and 0 < p < 1:  # the seed draw, cross-checked with numpy's mt19937
        assert mkl.MKL_SEED_LOG[first] == mkl.numpy_first_draw(_seed(case, 123)), case
    torch.manual_seed(_seed(case, 123))
    rec("dropout(attn_weights)", dropout(attn_weights))
    torch.manual_seed(_seed(case, 123))
    rec("dropout(attn_weights).sum(dim=-1)", dropout(attn_weights).sum(dim=-1))

    batch = torch.stack((inputs, inputs), dim=0)
    rec("batch", batch)
    torch.manual_seed(_seed(case, 123))
    context_length = case["context_length"] if case["context_length"] is not None else batch.shape[1]
    # The tool gives this CausalAttention the --qkv-bias too (its code cell omits qkv_bias=...).
    ca = CausalAttention(d_in, d_out, context_length, 0.0, qkv_bias=case["qkv_bias"])
    ca.trace = {}
    context_vecs = ca(batch)
    t = ca.trace
    rec("keys", t["keys"])
    rec("queries", t["queries"])
    rec("values", t["values"])
    rec("attn_scores", t["attn_scores"])
    rec("attn_weights", t["attn_weights"])
    rec("context_vecs", context_vecs)


def run_wrapper(case, rec, literal_heads=False):
    """literal_heads: run the cell `outs = [head(batch) for head in mha.heads]` as written (a second
    forward, new dropout draws) instead of recording what each head returned inside mha(batch)."""
    p = 0.0 if case["dropout"] is None else case["dropout"]
    inputs = torch.tensor(case["rows"])
    batch = torch.stack((inputs, inputs), dim=0)
    rec("batch", batch)
    d_in, d_out = inputs.shape[1], case["d_out"]
    if case["no_reseed"]:
        torch.manual_seed(_seed(case, 123))
        context_length = batch.shape[1]
        ca = CausalAttention(d_in, d_out, context_length, 0.0, qkv_bias=case["qkv_bias"])
        context_vecs = ca(batch)
    else:
        torch.manual_seed(_seed(case, 123))
    context_length = case["context_length"] if case["context_length"] is not None else batch.shape[1]
    mha = MultiHeadAttentionWrapper(d_in, d_out, context_length, p, num_heads=case["num_heads"],
                                    qkv_bias=case["qkv_bias"])
    captured = []
    hooks = [head.register_forward_hook(lambda mod, inp, out: captured.append(out)) for head in mha.heads]
    context_vecs = mha(batch)
    for h in hooks:
        h.remove()
    rec("context_vecs", context_vecs)
    outs = [head(batch) for head in mha.heads] if literal_heads else captured
    for i, out in enumerate(outs):
        rec("head_outputs[%d]" % i, out)
    rec("torch.cat(head_outputs, dim=-1)", torch.cat(outs, dim=-1))


BOOK_A = torch.tensor([[[[0.2745, 0.6584, 0.2775, 0.8573],
                         [0.8993, 0.0390, 0.9268, 0.7388],
                         [0.7179, 0.7058, 0.9156, 0.4340]],
                        [[0.0772, 0.3565, 0.1479, 0.5331],
                         [0.4066, 0.2318, 0.4545, 0.9737],
                         [0.4606, 0.5159, 0.4220, 0.5786]]]])


def run_mha(case, rec):
    p = 0.0 if case["dropout"] is None else case["dropout"]
    a = BOOK_A
    rec("a", a)
    rec("a @ a.transpose(2, 3)", a @ a.transpose(2, 3))
    first_head = a[0, 0, :, :]
    first_res = first_head @ first_head.T
    rec("first_head", first_head)
    rec("first_res", first_res)
    second_head = a[0, 1, :, :]
    second_res = second_head @ second_head.T
    rec("second_head", second_head)
    rec("second_res", second_res)

    inputs = torch.tensor(case["rows"])
    batch = torch.stack((inputs, inputs), dim=0)
    rec("batch", batch)
    torch.manual_seed(_seed(case, 123))
    batch_size, context_length, d_in = batch.shape
    if case["context_length"] is not None:
        context_length = case["context_length"]
    d_out = case["d_out"]
    mha = MultiHeadAttention(d_in, d_out, context_length, p, num_heads=case["num_heads"],
                             qkv_bias=case["qkv_bias"])
    mha.trace = {}
    context_vecs = mha(batch)
    t = mha.trace
    t["context_heads"] = t["context_transposed"].transpose(1, 2)  # the book's forward transposes it on that line
    rec("context_vecs", context_vecs)
    for key, name in [("keys", "keys"), ("queries", "queries"), ("values", "values"),
                      ("keys_view", "keys"), ("queries_view", "queries"), ("values_view", "values"),
                      ("keys_heads", "keys"), ("queries_heads", "queries"), ("values_heads", "values"),
                      ("attn_scores", "attn_scores"), ("mask_bool", "mask_bool"), ("masked_scores", "attn_scores"),
                      ("attn_weights", "attn_weights"), ("context_heads", "attn_weights @ values"),
                      ("context_transposed", "context_vec"), ("context_merged", "context_vec")]:
        rec(name, t[key])
    rec("mha.out_proj.weight", mha.out_proj.weight)
    rec("mha.out_proj.bias", mha.out_proj.bias)
    rec("context_vecs", context_vecs)
    if case.get("gpt2"):
        torch.manual_seed(_seed(case, 123))
        mha = MultiHeadAttention(d_in=768, d_out=768, context_length=1024, dropout=0.0, num_heads=12)
        x = torch.rand(2, 6, 768)
        rec("x", x)
        rec("context_vecs", mha(x))


RUNNERS = {"causal-mask": run_causal_mask, "dropout": run_dropout, "wrapper": run_wrapper, "mha": run_mha}


def run_book(case, **kw):
    """The lesson's cells with torch; returns [(name, value)] in the order attn-tutor records them.
    value: a detached torch tensor or a Python int (context_length)."""
    out = []

    def rec(name, value):
        out.append((name, value.detach().clone() if isinstance(value, torch.Tensor) else value))

    with torch.no_grad(), mkl.bernoulli_path(case["bernoulli"]):
        RUNNERS[case["lesson"]](case, rec, **kw)
    return out


# ---- random cases --------------------------------------------------------------------------------

SEED_CUTS = (0.12, 0.37, 0.57, 0.67, 0.85)  # none / a special / 0..1000 / -1000..-1 / 0..2^64-1 / negative
SMALL_DIM = 5  # with small_bias, dims are mostly at most this


def random_seed(rng):
    """None (the book's seeds) or an integer torch.manual_seed accepts, -2^63 .. 2^64-1."""
    return tb.random_seed(rng, SEED_CUTS)


def random_dropout(rng, lesson):
    # None: the lesson's default, 0.5 (dropout), 0.0 (wrapper, mha)
    return tb.random_rate(rng, [(0.15, None), (0.27, 0.0), (0.42, 0.1), (0.60, 0.5), (0.70, 1.0)], 0.75,
                          (2, 3, 6, 17))


def make_case(rng, lesson, small_bias=False, bernoulli="default"):
    small = SMALL_DIM if small_bias else None
    n = tb.random_dim(rng, 2, 12, small)
    d_in = tb.random_dim(rng, 1, 8, small)
    big = rng.random() < 0.2
    rows = [[tb.random_value(rng, big) for _ in range(d_in)] for _ in range(n)]
    doc = {"tokens": [rng.choice(tb.WORDS) for _ in range(n)], "inputs": rows} if rng.random() < 0.5 else rows
    num_heads = None
    if lesson == "mha":
        num_heads = rng.randint(1, 4)
        d_out = num_heads * rng.randint(1, 8 // num_heads)
    else:
        d_out = tb.random_dim(rng, 1, 8, small)
        if lesson == "wrapper":
            num_heads = rng.randint(1, 4)
    case = {
        "lesson": lesson,
        "seed": random_seed(rng),
        "d_out": d_out,
        "d_out_flag": not (d_out == 2 and rng.random() < 0.3),  # now and then rely on the default 2
        "num_heads": num_heads,
        "qkv_bias": rng.random() < 0.5,
        "dropout": random_dropout(rng, lesson) if lesson != "causal-mask" else None,
        "context_length": (n + rng.choice((0, 0, 1, 3, 20))) if rng.random() < 0.35 else None,
        "no_reseed": lesson == "wrapper" and rng.random() < 0.25,
        "bernoulli": bernoulli,
        "rows": rows,
        "inputs_file": doc,
    }
    if num_heads == 2 and rng.random() < 0.3:
        case["num_heads_flag"] = False  # the default 2
    case["argv"] = case_argv(case)
    return case


def case_argv(case):
    """The CLI options of a case, besides --json - and --inputs FILE."""
    # attn-tutor refuses an option with no effect: causal-mask's mask is the scores' size (no
    # --context-length), and a dropout rate of 0 or 1 draws no mask (no --bernoulli).
    rate = case["dropout"] if case["dropout"] is not None else {"dropout": 0.5}.get(case["lesson"], 0.0)
    return common.case_argv(case["lesson"], [
        ("seed", case["seed"]), ("d_out", case["d_out"] if case.get("d_out_flag", True) else None),
        ("num_heads", case["num_heads"] if case.get("num_heads_flag", True) else None),
        ("qkv_bias", case["qkv_bias"]), ("dropout", case["dropout"]),
        ("context_length", case["context_length"] if case["lesson"] != "causal-mask" else None),
        ("no_reseed", case["no_reseed"]),
        ("bernoulli", case["bernoulli"] if case["bernoulli"] != "default" and 0 < rate < 1 else None),
        ("gpt2", case.get("gpt2"))], joined=("seed",))


def fixed_cases(rng):
    """The book's own runs and some corners, first."""
    def case(lesson, **kw):
        c = dict(lesson=lesson, seed=None, d_out=2, num_heads=2 if lesson in ("wrapper", "mha") else None,
                 qkv_bias=False, dropout=None, context_length=None, no_reseed=False, bernoulli="default",
                 rows=tb.BOOK_ROWS, inputs_file={"tokens": tb.BOOK_TOKENS, "inputs": tb.BOOK_ROWS})
        c.update(kw)
        c["argv"] = case_argv(c)
        return c
    two = [[0.5], [-0.25]]
    big = [[round(rng.uniform(-1, 1), 2) for _ in range(8)] for _ in range(12)]
    return {
        "causal-mask": [case("causal-mask"),
                        case("causal-mask", seed=2**64 - 1, d_out=1, qkv_bias=True, rows=two, inputs_file=two),
                        case("causal-mask", seed=-(2**63), d_out=8, rows=big, inputs_file=big, context_length=20)],
        "dropout": [case("dropout"), case("dropout", dropout=1.0), case("dropout", dropout=0.0),
                    case("dropout", seed=-1, d_out=8, dropout=0.1, rows=big, inputs_file=big, context_length=15)],
        "wrapper": [case("wrapper"), case("wrapper", no_reseed=True), case("wrapper", dropout=0.5),
                    case("wrapper", seed=2**32 + 123, dropout=1.0, num_heads=3, qkv_bias=True)],
        "mha": [case("mha"), case("mha", dropout=0.5), case("mha", dropout=1.0, qkv_bias=True),
                case("mha", seed=-789, d_out=8, num_heads=4, dropout=0.1, rows=big, inputs_file=big)],
    }


def fixed_mkl_cases():
    def case(lesson, **kw):
        c = dict(lesson=lesson, seed=None, d_out=2, num_heads=2 if lesson in ("wrapper", "mha") else None,
                 qkv_bias=False, dropout=None, context_length=None, no_reseed=False, bernoulli="mkl",
                 rows=tb.BOOK_ROWS, inputs_file=tb.BOOK_ROWS)
        c.update(kw)
        c["argv"] = case_argv(c)
        return c
    cases = [case("dropout"),  # a reader's run on Intel/Windows, §3.5.2
             case("dropout", seed=0), case("dropout", seed=-1), case("dropout", seed=2**64 - 1, dropout=0.1),
             case("dropout", seed=42, dropout=0.9), case("dropout", seed=2**32 + 123, dropout=0.123),
             case("dropout", seed=7, dropout=1.0),
             # the shift: each head's mask seed is the draw after the previous head's (1 draw, not 2*numel)
             case("wrapper", dropout=0.5, num_heads=3), case("wrapper", seed=-5, dropout=0.1, num_heads=4, d_out=3),
             case("wrapper", dropout=0.5, no_reseed=True),
             case("mha", dropout=0.5), case("mha", seed=99, dropout=0.25, d_out=4, num_heads=4, qkv_bias=True)]
    return cases


# ---- fixture text --------------------------------------------------------------------------------

def fixture_entries(case):
    keep = set(FIXTURE_NAMES[case["lesson"]])
    return [(name, t) for name, t in run_book(case) if name in keep]


def case_text(i, case):
    fields = [
        '"id": %d' % i,
        '"lesson": %s' % json.dumps(case["lesson"]),
        '"argv": %s' % json.dumps(case["argv"]),
        tb.inputs_field(case["inputs_file"]),
    ]
    return tb.case_block(fields, [tb.entry_text(name, t) for name, t in fixture_entries(case)])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=20, help="cases per lesson (default %(default)s)")
    ap.add_argument("--out", default="tests/fixtures/chapter_pytorch.json")
    ap.add_argument("--rng-seed", type=int, default=20240601, help="seed of Python's random (default %(default)s)")
    args = ap.parse_args()

    torch.set_num_threads(1)
    mkl.self_check_mkl()
    rng = random.Random(args.rng_seed)
    fixed = fixed_cases(rng)
    cases = []
    for lesson in LESSONS:
        mine = list(fixed[lesson])
        while len(mine) < args.cases:
            mine.append(make_case(rng, lesson, small_bias=True))
        cases += mine[:args.cases]
    mkl_cases = fixed_mkl_cases()

    text = ('{"generator": "tools/gen_chapter_fixtures.py --cases %d --rng-seed %d",\n'
            ' "torch": %s, "numpy": %s, "tolerance": 1e-6,\n'
            ' "exact": %s,\n'
            ' "zero_pattern": %s,\n'
            ' "cases": [\n%s\n],\n'
            ' "mkl_model": "docs/spec/torch-rng.md 7.2: one mt19937 draw seeds MCG31m1; torch for the rest",\n'
            ' "mkl_cases": [\n%s\n]}\n') % (
                args.cases, args.rng_seed, json.dumps(torch.__version__), json.dumps(np.__version__),
                json.dumps(EXACT), json.dumps(ZERO_PATTERN),
                ",\n".join(case_text(i, c) for i, c in enumerate(cases)),
                ",\n".join(case_text(1000 + i, c) for i, c in enumerate(mkl_cases)))
    tb.write_fixture(args.out, text, "%d cases + %d MKL cases" % (len(cases), len(mkl_cases)))


if __name__ == "__main__":
    main()
