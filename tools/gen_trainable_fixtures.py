#!/usr/bin/python3
"""Expected values of `attn-tutor trainable` for random options, computed by real PyTorch (1.13).

Runs the book's §3.4.1-3.4.2 code (the step-by-step cells, SelfAttention_v1, SelfAttention_v2 and
exercise 3.1, written out below) with torch for random cases: --seed (none = the book's 123/789,
negatives, 0, up to 2^64-1), --inputs (2-16 rows, 1-16 columns), --d-out (1-16), --qkv-bias and
--init rand|randn. Writes one JSON fixture that tests/test_trainable_fixtures.cpp replays against the
CLI, so the tests and CI never need torch.

Regenerate (needs torch and numpy; deterministic for a given --cases/--rng-seed):
    /usr/bin/python3 tools/gen_trainable_fixtures.py --cases 60 --out tests/fixtures/trainable_pytorch.json

Fixture layout:
    {"generator": ..., "torch": "1.13...", "tolerance": 1e-6,
     "exact": [names compared bit for bit],
     "cases": [{"id": 0, "seed": "123" | null, "d_out": 3, "qkv_bias": false, "init": "rand",
                "argv": ["--seed", "123", "--d-out", "3", ...],   # besides --json - --inputs FILE
                "inputs_file": <the JSON written to the --inputs file>,
                "expected": [{"name": "inputs", "shape": [6, 3], "data": [[...], ...]}, ...]}]}
"expected" is in the order the lesson records its tensors (a name can repeat: sa_v1(inputs)).
Floats are written as the shortest text that reads back (decimal -> double -> float32) as the same
float32, so the weights can be compared bit for bit.

tools/check_trainable_against_torch.py imports make_case/run_book from here; the book's classes, the
random values and the float32 text are in tools/torch_book.py.
"""
import argparse
import json
import os
import random
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402  (the binary's option table: case_argv)
import torch_book as tb  # noqa: E402
from torch_book import SelfAttention_v1, SelfAttention_v2  # noqa: E402

# Tensors that must match bit for bit (the random weights, and what is only copied/selected).
EXACT = ["inputs", "x_2", "W_query", "W_key", "W_value", "d_k",
         "sa_v2.W_query.weight", "sa_v2.W_key.weight", "sa_v2.W_value.weight",
         "sa_v2.W_query.bias", "sa_v2.W_key.bias", "sa_v2.W_value.bias"]

# ---- the lesson, as the book runs it -------------------------------------------------------------

def run_book(rows, d_out, seed=None, qkv_bias=False, init="rand"):
    """The lesson's cells with torch; returns [(name, tensor)] in the order attn-tutor records them."""
    out = []
    rec = out.append
    seed1 = 123 if seed is None else seed
    seed_v2 = 789 if seed is None else seed
    draw = torch.rand if init == "rand" else torch.randn

    inputs = torch.tensor(rows)
    rec(("inputs", inputs))
    x_2 = inputs[1]  # second input element
    rec(("x_2", x_2))
    d_in = inputs.shape[1]

    torch.manual_seed(seed1)
    W_query = torch.nn.Parameter(draw(d_in, d_out), requires_grad=False)
    W_key = torch.nn.Parameter(draw(d_in, d_out), requires_grad=False)
    W_value = torch.nn.Parameter(draw(d_in, d_out), requires_grad=False)
    rec(("W_query", W_query))
    rec(("W_key", W_key))
    rec(("W_value", W_value))

    query_2 = x_2 @ W_query
    key_2 = x_2 @ W_key
    value_2 = x_2 @ W_value
    rec(("query_2", query_2))
    rec(("key_2", key_2))
    rec(("value_2", value_2))

    keys = inputs @ W_key
    values = inputs @ W_value
    rec(("keys", keys))
    rec(("values", values))

    keys_2 = keys[1]
    attn_score_22 = query_2.dot(keys_2)
    rec(("keys_2", keys_2))
    rec(("attn_score_22", attn_score_22))

    attn_scores_2 = query_2 @ keys.T
    rec(("attn_scores_2", attn_scores_2))

    d_k = keys.shape[-1]
    attn_weights_2 = torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)
    rec(("d_k", d_k))
    rec(("attn_weights_2", attn_weights_2))

    context_vec_2 = attn_weights_2 @ values
    rec(("context_vec_2", context_vec_2))

    torch.manual_seed(seed1)
    sa_v1 = SelfAttention_v1(d_in, d_out)
    rec(("sa_v1(inputs)", sa_v1(inputs)))

    torch.manual_seed(seed_v2)
    sa_v2 = SelfAttention_v2(d_in, d_out, qkv_bias=qkv_bias)
    rec(("sa_v2(inputs)", sa_v2(inputs)))
    rec(("sa_v2.W_query.weight", sa_v2.W_query.weight))
    rec(("sa_v2.W_key.weight", sa_v2.W_key.weight))
    rec(("sa_v2.W_value.weight", sa_v2.W_value.weight))
    if qkv_bias:
        rec(("sa_v2.W_query.bias", sa_v2.W_query.bias))
        rec(("sa_v2.W_key.bias", sa_v2.W_key.bias))
        rec(("sa_v2.W_value.bias", sa_v2.W_value.bias))

    # Exercise 3.1
    sa_v1.W_query = torch.nn.Parameter(sa_v2.W_query.weight.T)
    sa_v1.W_key = torch.nn.Parameter(sa_v2.W_key.weight.T)
    sa_v1.W_value = torch.nn.Parameter(sa_v2.W_value.weight.T)
    rec(("sa_v1(inputs)", sa_v1(inputs)))
    return out


# ---- random cases --------------------------------------------------------------------------------

SEED_CUTS = (0.15, 0.40, 0.60, 0.70, 0.85)  # none / a special / 0..1000 / -1000..-1 / 0..2^64-1 / negative


def random_seed(rng):
    """None (the book's seeds) or an integer torch.manual_seed accepts, -2^63 .. 2^64-1."""
    return tb.random_seed(rng, SEED_CUTS)


SMALL_DIM = 6  # with small_bias, dims are mostly at most this


def make_case(rng, small_bias=False):
    small = SMALL_DIM if small_bias else None
    n = tb.random_dim(rng, 2, 16, small)
    d_in = tb.random_dim(rng, 1, 16, small)
    d_out = tb.random_dim(rng, 1, 16, small)
    big = rng.random() < 0.2
    rows = [[tb.random_value(rng, big) for _ in range(d_in)] for _ in range(n)]
    if rng.random() < 0.5:
        doc = {"tokens": [rng.choice(tb.WORDS) for _ in range(n)], "inputs": rows}
    else:
        doc = rows
    case = {
        "seed": random_seed(rng),
        "d_out": d_out,
        "qkv_bias": rng.random() < 0.5,
        "init": "rand" if rng.random() < 0.6 else "randn",
        "rows": rows,
        "inputs_file": doc,
    }
    case["argv"] = case_argv(case)
    return case


def case_argv(case):
    """The CLI options of a case, besides --json - and --inputs FILE."""
    return common.case_argv("trainable", [("seed", case["seed"]), ("d_out", case["d_out"]),
                                          ("qkv_bias", case["qkv_bias"]),
                                          ("init", case["init"] if case["init"] != "rand" else None)])


def expected_of(case):
    return run_book(case["rows"], case["d_out"], seed=case["seed"], qkv_bias=case["qkv_bias"],
                    init=case["init"])


# ---- fixture text --------------------------------------------------------------------------------

def tensor_entry_text(name, t):
    if isinstance(t, int):  # d_k
        return '{"name": %s, "shape": [], "data": %d}' % (json.dumps(name), t)
    return tb.entry_text(name, t.detach())


def case_text(i, case):
    fields = [
        '"id": %d' % i,
        '"seed": %s' % ("null" if case["seed"] is None else json.dumps(str(case["seed"]))),
        '"d_out": %d' % case["d_out"],
        '"qkv_bias": %s' % ("true" if case["qkv_bias"] else "false"),
        '"init": %s' % json.dumps(case["init"]),
        '"argv": %s' % json.dumps(case["argv"]),
        tb.inputs_field(case["inputs_file"]),
    ]
    return tb.case_block(fields, [tensor_entry_text(name, t) for name, t in expected_of(case)])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=60)
    ap.add_argument("--out", default="tests/fixtures/trainable_pytorch.json")
    ap.add_argument("--rng-seed", type=int, default=20240531, help="seed of Python's random (default %(default)s)")
    args = ap.parse_args()

    torch.set_num_threads(1)
    rng = random.Random(args.rng_seed)
    cases = []
    # The book's own example first, then the corners, then random cases (mostly small dims).
    book = tb.BOOK_ROWS
    fixed = [
        dict(seed=None, d_out=2, qkv_bias=False, init="rand", rows=book,
             inputs_file={"tokens": tb.BOOK_TOKENS, "inputs": book}),
        dict(seed=None, d_out=2, qkv_bias=True, init="randn", rows=book, inputs_file=book),
        dict(seed=2**64 - 1, d_out=1, qkv_bias=True, init="rand", rows=[[0.5], [-0.25]],
             inputs_file=[[0.5], [-0.25]]),
        dict(seed=-(2**63), d_out=16, qkv_bias=False, init="randn",
             rows=[[round(rng.uniform(-1, 1), 2) for _ in range(16)] for _ in range(16)], inputs_file=None),
    ]
    for c in fixed:
        if c["inputs_file"] is None:
            c["inputs_file"] = c["rows"]
        c["argv"] = case_argv(c)
        cases.append(c)
    while len(cases) < args.cases:
        cases.append(make_case(rng, small_bias=True))
    cases = cases[:args.cases]

    text = ('{"generator": "tools/gen_trainable_fixtures.py --cases %d --rng-seed %d",\n'
            ' "torch": %s, "numpy": %s, "tolerance": 1e-6,\n'
            ' "exact": %s,\n'
            ' "cases": [\n%s\n]}\n') % (args.cases, args.rng_seed, json.dumps(torch.__version__),
                                        json.dumps(np.__version__), json.dumps(EXACT),
                                        ",\n".join(case_text(i, c) for i, c in enumerate(cases)))
    tb.write_fixture(args.out, text, "%d cases" % len(cases))


if __name__ == "__main__":
    main()
