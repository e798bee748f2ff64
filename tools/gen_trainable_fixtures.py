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

tools/check_trainable_against_torch.py imports make_case/run_book from here.
"""
import argparse
import json
import math
import random
import sys

import numpy as np
import torch
import torch.nn as nn

# Tensors that must match bit for bit (the random weights, and what is only copied/selected).
EXACT = ["inputs", "x_2", "W_query", "W_key", "W_value", "d_k",
         "sa_v2.W_query.weight", "sa_v2.W_key.weight", "sa_v2.W_value.weight",
         "sa_v2.W_query.bias", "sa_v2.W_key.bias", "sa_v2.W_value.bias"]

WORDS = ["Your", "journey", "starts", "with", "one", "step", "the", "cat", "sat", "on", "a", "mat",
         "every", "effort", "moves", "you", "forward", "attention", "is", "all", "we", "need", "token",
         "embedding", "query", "key", "value", "hello", "world", "again"]

SEED_SPECIALS = [0, 1, -1, 123, 789, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**32 + 123, 2**63 - 1, 2**63,
                 2**64 - 1, -(2**63), -(2**31), -123, -789]


# ---- the book's classes (§3.4.2), verbatim -------------------------------------------------------

class SelfAttention_v1(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x):
        keys = x @ self.W_key
        queries = x @ self.W_query
        values = x @ self.W_value
        attn_scores = queries @ keys.T  # omega
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        context_vec = attn_weights @ values
        return context_vec


class SelfAttention_v2(nn.Module):
    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.T
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        context_vec = attn_weights @ values
        return context_vec


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

def random_seed(rng):
    """None (the book's seeds) or an integer torch.manual_seed accepts, -2^63 .. 2^64-1."""
    r = rng.random()
    if r < 0.15:
        return None
    if r < 0.40:
        return rng.choice(SEED_SPECIALS)
    if r < 0.60:
        return rng.randint(0, 1000)
    if r < 0.70:
        return -rng.randint(1, 1000)
    if r < 0.85:
        return rng.randint(0, 2**64 - 1)
    return rng.randint(-(2**63), -1)


def random_value(rng, big):
    """Like the book's embeddings: 2-3 decimals in [-1, 1]; with `big`, now and then up to +-4."""
    digits = rng.choice((2, 2, 3))
    if big and rng.random() < 0.15:
        return round(rng.uniform(-4.0, 4.0), digits)
    r = rng.random()
    if r < 0.03:
        return 0.0
    if r < 0.35:  # the book's values are all in [0, 1]
        return round(rng.uniform(0.0, 1.0), digits)
    return round(rng.uniform(-1.0, 1.0), digits)


def random_dim(rng, lo, hi, small_bias):
    """Uniform in [lo, hi], or (small_bias) mostly small so the fixture stays compact."""
    if small_bias and rng.random() < 0.75:
        return rng.randint(lo, min(hi, 6))
    return rng.randint(lo, hi)


def make_case(rng, small_bias=False):
    n = random_dim(rng, 2, 16, small_bias)
    d_in = random_dim(rng, 1, 16, small_bias)
    d_out = random_dim(rng, 1, 16, small_bias)
    big = rng.random() < 0.2
    rows = [[random_value(rng, big) for _ in range(d_in)] for _ in range(n)]
    if rng.random() < 0.5:
        doc = {"tokens": [rng.choice(WORDS) for _ in range(n)], "inputs": rows}
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
    argv = []
    if case["seed"] is not None:
        argv += ["--seed", str(case["seed"])]
    argv += ["--d-out", str(case["d_out"])]
    if case["qkv_bias"]:
        argv.append("--qkv-bias")
    if case["init"] != "rand":
        argv += ["--init", case["init"]]
    return argv


def expected_of(case):
    return run_book(case["rows"], case["d_out"], seed=case["seed"], qkv_bias=case["qkv_bias"],
                    init=case["init"])


# ---- float32 text --------------------------------------------------------------------------------

def f32_text(x):
    """Shortest decimal that reads back (via double, as nlohmann/strtod + static_cast<float> do) as x."""
    f = np.float32(x)
    if not math.isfinite(float(f)):
        raise ValueError("non-finite value %r" % float(f))
    s = np.format_float_positional(f, unique=True, trim="-") if 1e-5 <= abs(float(f)) < 1e7 or f == 0 \
        else np.format_float_scientific(f, unique=True, trim="-")
    if s == "-0":
        s = "-0.0"  # "-0" would read back as the integer 0 in most JSON parsers
    if np.float32(float(s)) != f or (f == 0 and math.copysign(1, float(s)) != math.copysign(1, float(f))):
        raise ValueError("%s does not read back as float32 %r" % (s, float(f)))
    return s


def data_text(v):
    if isinstance(v, list):
        return "[" + ", ".join(data_text(x) for x in v) + "]"
    return f32_text(v)


def tensor_entry_text(name, t):
    if isinstance(t, int):  # d_k
        return '{"name": %s, "shape": [], "data": %d}' % (json.dumps(name), t)
    t = t.detach()
    assert t.dtype == torch.float32, (name, t.dtype)
    return '{"name": %s, "shape": %s, "data": %s}' % (json.dumps(name), json.dumps(list(t.shape)),
                                                        data_text(t.tolist()))


def case_text(i, case):
    fields = [
        '"id": %d' % i,
        '"seed": %s' % ("null" if case["seed"] is None else json.dumps(str(case["seed"]))),
        '"d_out": %d' % case["d_out"],
        '"qkv_bias": %s' % ("true" if case["qkv_bias"] else "false"),
        '"init": %s' % json.dumps(case["init"]),
        '"argv": %s' % json.dumps(case["argv"]),
        '"inputs_file": %s' % json.dumps(case["inputs_file"], separators=(",", ":")),
    ]
    entries = ",\n    ".join(tensor_entry_text(name, t) for name, t in expected_of(case))
    return "  {" + ", ".join(fields) + ',\n   "expected": [\n    ' + entries + "]}"


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
    book = [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
            [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]
    fixed = [
        dict(seed=None, d_out=2, qkv_bias=False, init="rand", rows=book,
             inputs_file={"tokens": ["Your", "journey", "starts", "with", "one", "step"], "inputs": book}),
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
    json.loads(text)  # well-formed
    with open(args.out, "w") as f:
        f.write(text)
    print("wrote %d cases, %d bytes to %s" % (len(cases), len(text), args.out), file=sys.stderr)


if __name__ == "__main__":
    main()
