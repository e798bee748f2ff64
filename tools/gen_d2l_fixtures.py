#!/usr/bin/python3
"""Expected values of `attn-tutor d2l-mha` for random options, by real PyTorch (1.13).

Runs d2l's code as the lesson replays it (sequence_mask, masked_softmax, DotProductAttention,
transpose_qkv, transpose_output and MultiHeadAttention, as d2l defines them: tools/torch_d2l.py) with
torch for random cases: --seed (none = the lesson's 123, negatives, 0, up to 2^64-1), --num-hiddens
and --num-heads (num_hiddens a multiple of the heads), --valid-lens (one per sequence as "3,2" or
"[3, 2]", one per query as "[[..],[..]]", lengths 0 .. number of keys), --dropout (none = d2l.ai §11.5's
0.5 in eval mode, 0, or a rate that turns on train mode), --qkv-bias (d2l's bias=True) and the queries:
d2l.ai §11.5's torch.ones, --inputs FILE (2-8 rows of 1-8 numbers) or --tokens (seeded torch.rand).
Writes one JSON fixture that tests/test_d2l_fixtures.cpp replays against the CLI; the tests never
need torch.

Regenerate (needs torch; deterministic for given --cases/--rng-seed):
    /usr/bin/python3 tools/gen_d2l_fixtures.py --out tests/fixtures/d2l_pytorch.json

Fixture layout:
    {"generator": ..., "torch": "1.13...", "tolerance": 1e-6,
     "zero_pattern": [names whose zero entries must coincide exactly: the dropout output],
     "cases": [{"id": 0, "argv": ["--seed=-5", "--num-heads", "2", ...],
                "inputs_file": <JSON for an --inputs file, or null>,
                "expected": [{"name": "self.attention_weights", "shape": [4, 4, 6], "data": [...]}, ...]}]}
"expected" holds a subset of the lesson's float32 tensors (FIXTURE_NAMES), every occurrence in the
order the lesson records it. Floats are the shortest text that reads back as the same float32.

tools/check_d2l_against_torch.py imports make_case/run_lesson from here and compares every tensor;
the random seeds and the float32 text are in tools/torch_book.py.
"""
import argparse
import json
import math
import os
import random
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402  (the binary's option table: case_argv)
import torch_book as tb  # noqa: E402
from torch_d2l import MultiHeadAttention, masked_softmax, transpose_output, transpose_qkv  # noqa: E402

DEFAULT_SEED = 123
NUM_HIDDENS, NUM_HEADS, DROPOUT = 100, 5, 0.5
BATCH_SIZE, NUM_QUERIES, NUM_KVPAIRS = 2, 4, 6

# The float32 tensors the fixture stores (all occurrences, in order).
FIXTURE_NAMES = ["masked_softmax(X, valid_lens)", "self.attention_weights", "self.dropout(self.attention_weights)",
                 "attention(X, Y, Y, valid_lens)", "attention(X, X, X, valid_lens)"]
ZERO_PATTERN = ["self.dropout(self.attention_weights)", "self.attention_weights"]

WORDS = ["Your", "journey", "starts", "with", "one", "step", "the", "cat", "sat", "on", "a", "mat",
         "attention", "is", "all", "we", "need", "hello", "world"]
SEED_SPECIALS = [0, 1, -1, 123, 789, 2**31 - 1, 2**32 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 1, -(2**63), -123]


# ---- the lesson, cell by cell ---------------------------------------------------------------------

def lens_tensor(text):
    """--valid-lens text -> int64 tensor (the lesson's accepted forms)."""
    s = "".join(text.split())
    if s.startswith("[["):
        return torch.tensor(json.loads(s))
    if s.startswith("["):
        return torch.tensor(json.loads(s))
    return torch.tensor([int(x) for x in s.split(",")])


def run_lesson(case, rec):
    """The lesson's cells with torch. rec(name, value, shown): every tensor in the order attn-tutor
    records it; shown=True for the ones it prints (their repr must appear in its text output)."""
    seed = DEFAULT_SEED if case["seed"] is None else case["seed"]

    # masked_softmax demo (d2l's own: 1-D then 2-D valid_lens)
    torch.manual_seed(seed)
    X = torch.rand(2, 2, 4)
    valid_lens = torch.tensor([2, 3])
    rec("X", X, True)  # the lesson records in the code's order: X, then valid_lens
    rec("valid_lens", valid_lens, False)
    rec("masked_softmax(X, valid_lens)", masked_softmax(X.clone(), valid_lens), True)
    shape = X.shape
    valid_lens = torch.repeat_interleave(valid_lens, shape[1])
    rec("valid_lens", valid_lens, True)
    X = X.reshape(-1, shape[-1])
    maxlen = X.size(1)
    mask = torch.arange((maxlen), dtype=torch.float32)[None, :] < valid_lens[:, None]
    rec("X", X.clone(), True)
    rec("mask", mask, True)
    X[~mask] = -1e6
    rec("X", X, True)
    rec("nn.functional.softmax(X.reshape(shape), dim=-1)", nn.functional.softmax(X.reshape(shape), dim=-1), True)
    X = torch.rand(2, 2, 4)
    valid_lens = torch.tensor([[1, 3], [2, 4]])
    rec("X", X.clone(), False)
    rec("valid_lens", valid_lens, False)
    rec("valid_lens.reshape(-1)", valid_lens.reshape(-1), True)
    rec("masked_softmax(X, valid_lens)", masked_softmax(X, valid_lens), True)

    # transpose_qkv on d2l.ai §11.5's integers
    num_heads = 2
    X = torch.tensor([[[10, 11, 12, 13], [14, 15, 16, 17]], [[20, 21, 22, 23], [24, 25, 26, 27]]])
    rec("X", X, True)
    X_reshaped = X.reshape(X.shape[0], X.shape[1], num_heads, -1)
    rec("X_reshaped", X_reshaped, True)
    X_permuted = X_reshaped.permute(0, 2, 1, 3)
    rec("X_permuted", X_permuted, True)
    X_final = X_permuted.reshape(-1, X_permuted.shape[2], X_permuted.shape[3])
    rec("X_final", X_final, True)
    assert torch.equal(X_final, transpose_qkv(X, num_heads))
    b, num_tokens, d_out = X.shape
    head_dim = d_out // num_heads
    X_book = X.view(b, num_tokens, num_heads, head_dim).transpose(1, 2)
    rec("X_book", X_book, False)
    assert torch.equal(X_book, X_permuted) and torch.equal(X_book.reshape(-1, num_tokens, head_dim), X_final)
    Z = X_final.reshape(-1, num_heads, X_final.shape[1], X_final.shape[2])
    rec("Z", Z, True)
    Z = Z.permute(0, 2, 1, 3)
    rec("Z", Z, True)
    Z = Z.reshape(Z.shape[0], Z.shape[1], -1)
    rec("Z", Z, True)
    assert torch.equal(Z, X)

    # d2l.ai §11.5's run
    num_hiddens = case["num_hiddens"] or NUM_HIDDENS
    num_heads = case["num_heads"] or NUM_HEADS
    p = DROPOUT if case["dropout"] is None else case["dropout"]
    training = case["dropout"] is not None and case["dropout"] > 0
    rows = case["rows"]
    if case["tokens"] is not None:
        torch.manual_seed(seed)
        rows = torch.rand(len(case["tokens"]), case["d_in"]).tolist()
    own = rows is not None
    if own:
        inputs = torch.tensor(rows)
        X = torch.stack((inputs, inputs), dim=0)
        Y = X
        in_size = X.shape[-1]
        nq = nk = X.shape[1]
    else:
        in_size, nq, nk = num_hiddens, NUM_QUERIES, NUM_KVPAIRS
    torch.manual_seed(seed)
    attention = MultiHeadAttention(in_size, in_size, in_size, num_hiddens, num_heads, p, bias=case["qkv_bias"])
    attention.train() if training else attention.eval()
    if case["valid_lens"] is None:
        valid_lens = torch.tensor([min(3, nk), min(2, nk)])
    else:
        valid_lens = lens_tensor(case["valid_lens"])
    if not own:
        X = torch.ones((BATCH_SIZE, NUM_QUERIES, num_hiddens))
        Y = torch.ones((BATCH_SIZE, NUM_KVPAIRS, num_hiddens))
    call = "attention(X, X, X, valid_lens)" if own else "attention(X, Y, Y, valid_lens)"
    if own:  # the lesson's order: its inputs, then valid_lens; on d2l.ai's ones, valid_lens first
        rec("X", X, False)
        rec("valid_lens", valid_lens, False)
    else:
        rec("valid_lens", valid_lens, False)
        rec("X", X, False)
        rec("Y", Y, False)

    # the module's own forward, then the same steps written out (same generator state)
    state = torch.get_rng_state()
    result_module = attention(X, Y, Y, valid_lens)
    torch.set_rng_state(state)
    self = attention
    queries = transpose_qkv(self.W_q(X), self.num_heads)
    keys = transpose_qkv(self.W_k(Y), self.num_heads)
    values = transpose_qkv(self.W_v(Y), self.num_heads)
    vl = torch.repeat_interleave(valid_lens, repeats=self.num_heads, dim=0)
    d = queries.shape[-1]
    scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
    scores_before = scores.clone()
    shape = scores.shape
    vl_rows = torch.repeat_interleave(vl, shape[1]) if vl.dim() == 1 else vl.reshape(-1)
    mask = torch.arange((shape[-1]), dtype=torch.float32)[None, :] < vl_rows[:, None]
    weights = masked_softmax(scores, vl)
    dropped = self.attention.dropout(weights)
    output = torch.bmm(dropped, values)
    output_concat = transpose_output(output, self.num_heads)
    result = self.W_o(output_concat)
    assert torch.equal(result, result_module), "the written-out steps differ from the module's forward"

    rec(call, result, False)
    rec("self.W_q.weight", attention.W_q.weight, True)
    rec("queries", queries, False)
    rec("keys", keys, False)
    rec("values", values, False)
    rec("queries[0]", queries[0], True)
    rec("valid_lens", vl, True)
    rec("scores", scores_before, False)
    rec("mask", mask, False)
    rec("self.attention_weights", weights, True)
    if training:
        rec("self.dropout(self.attention_weights)", dropped, True)
    rec("output", output, False)
    rec("output_concat", output_concat, False)


def run_case(case):
    """[(name, detached tensor, shown, repr)] in the order attn-tutor records them."""
    out = []

    def rec(name, value, shown):
        out.append((name, value.detach().clone(), shown, repr(value) if shown else None))

    run_lesson(case, rec)
    return out


# ---- random cases --------------------------------------------------------------------------------

SEED_CUTS = (0.15, 0.35, 0.6, 0.7, 0.88)  # none / a special / 0..1000 / -1000..-1 / 0..2^64-1 / negative


def random_seed(rng):
    return tb.random_seed(rng, SEED_CUTS, SEED_SPECIALS)


def random_value(rng):
    digits = rng.choice((2, 2, 3))
    if rng.random() < 0.1:
        return round(rng.uniform(-4.0, 4.0), digits)
    return round(rng.uniform(-1.0, 1.0), digits)


def random_lens_text(rng, nq, nk):
    """(--valid-lens text or None for the default)."""
    r = rng.random()
    if r < 0.2:
        return None
    def length():
        x = rng.random()
        if x < 0.1:
            return 0
        if x < 0.25:
            return nk
        return rng.randint(1, nk)
    if r < 0.6:
        a, b = length(), length()
        return rng.choice(["%d,%d" % (a, b), "[%d, %d]" % (a, b), " %d , %d " % (a, b)])
    rows = [[length() for _ in range(nq)] for _ in range(BATCH_SIZE)]
    text = json.dumps(rows)
    return text.replace(" ", "") if rng.random() < 0.5 else text


def random_dropout(rng):
    r = rng.random()
    if r < 0.45:
        return None
    if r < 0.55:
        return 0.0
    if r < 0.62:
        return 1.0
    if r < 0.7:
        return 0.5
    return round(rng.uniform(0.01, 0.99), rng.choice((1, 2, 3)))


def make_case(rng, small=True):
    """small: sizes that keep the fixture compact (num_hiddens <= 24)."""
    num_heads = None if rng.random() < 0.2 else rng.randint(1, 6)
    h = num_heads or NUM_HEADS
    if not small and rng.random() < 0.15:
        num_hiddens = None if h in (1, 2, 4, 5) and rng.random() < 0.5 else h * rng.randint(1, 40)
    else:
        num_hiddens = h * rng.randint(1, max(1, 24 // h))
    if num_hiddens == NUM_HIDDENS and rng.random() < 0.5:
        num_hiddens = None
    r = rng.random()
    rows, tokens, d_in = None, None, 3
    if r < 0.35:
        pass  # d2l.ai §11.5's torch.ones
    elif r < 0.85:
        n, d_in = rng.randint(2, 8), rng.randint(1, 8)
        rows = [[random_value(rng) for _ in range(d_in)] for _ in range(n)]
    else:
        n, d_in = rng.randint(2, 7), rng.randint(1, 6)
        tokens = [rng.choice(WORDS) for _ in range(n)]
    own = rows is not None or tokens is not None
    nq = len(rows) if rows is not None else (len(tokens) if tokens is not None else NUM_QUERIES)
    nk = nq if own else NUM_KVPAIRS
    case = {
        "seed": random_seed(rng),
        "num_heads": num_heads,
        "num_hiddens": num_hiddens,
        "valid_lens": random_lens_text(rng, nq, nk),
        "dropout": random_dropout(rng),
        "qkv_bias": rng.random() < 0.3,
        "rows": rows,
        "tokens": tokens,
        "d_in": d_in,
    }
    case["inputs_file"] = None
    if rows is not None:
        case["inputs_file"] = {"tokens": [rng.choice(WORDS) for _ in rows], "inputs": rows} \
            if rng.random() < 0.4 else rows
    case["argv"] = case_argv(case)
    return case


def case_argv(case):
    """CLI options besides --json - (and --inputs FILE, added by the runner when inputs_file is set)."""
    return common.case_argv("d2l-mha", [
        ("seed", case["seed"]), ("num_hiddens", case["num_hiddens"]), ("num_heads", case["num_heads"]),
        ("valid_lens", case["valid_lens"]), ("dropout", case["dropout"]), ("qkv_bias", case["qkv_bias"]),
        ("tokens", case["tokens"]), ("d_in", case["d_in"] if case["tokens"] is not None else None)],
        joined=("seed", "valid_lens"))


def fixed_cases():
    """d2l.ai §11.5's run and the corners first."""
    def case(**kw):
        c = dict(seed=None, num_heads=None, num_hiddens=None, valid_lens=None, dropout=None, qkv_bias=False,
                 rows=None, tokens=None, d_in=3)
        c.update(kw)
        c["inputs_file"] = c["rows"]
        c["argv"] = case_argv(c)
        return c
    book = tb.BOOK_ROWS
    return [
        case(),  # d2l.ai §11.5: 100 hiddens, 5 heads, [3, 2], eval
        case(num_hiddens=10, valid_lens="[[1,2,3,4],[1,2,2,2]]"),
        case(num_hiddens=8, num_heads=2, valid_lens="0,6", seed=0),
        case(num_hiddens=6, num_heads=3, dropout=0.5, seed=-1),
        case(num_hiddens=4, num_heads=1, dropout=1.0, qkv_bias=True),
        case(num_hiddens=12, num_heads=4, rows=book, valid_lens="[[6,5,4,3,2,1],[0,1,2,3,4,5]]"),
        case(num_hiddens=6, num_heads=2, rows=book, dropout=0.1, seed=2**64 - 1, qkv_bias=True),
        case(num_hiddens=5, tokens=["the", "cat", "sat", "on", "the", "mat"], d_in=4),
    ]


# ---- fixture text --------------------------------------------------------------------------------

def case_text(i, case):
    entries = [tb.entry_text(name, t, sep=",") for name, t, _, _ in run_case(case) if name in FIXTURE_NAMES]
    fields = ['"id": %d' % i, '"argv": %s' % json.dumps(case["argv"]), tb.inputs_field(case["inputs_file"])]
    return tb.case_block(fields, entries)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=60, help="cases in all, the fixed ones included")
    ap.add_argument("--out", default="tests/fixtures/d2l_pytorch.json")
    ap.add_argument("--rng-seed", type=int, default=20240604)
    args = ap.parse_args()

    torch.set_num_threads(1)
    rng = random.Random(args.rng_seed)
    cases = fixed_cases()
    while len(cases) < args.cases:
        cases.append(make_case(rng, small=True))
    text = ('{"generator": "tools/gen_d2l_fixtures.py --cases %d --rng-seed %d",\n'
            ' "torch": %s, "tolerance": 1e-6,\n'
            ' "zero_pattern": %s,\n'
            ' "cases": [\n%s\n]}\n') % (args.cases, args.rng_seed, json.dumps(torch.__version__),
                                        json.dumps(ZERO_PATTERN),
                                        ",\n".join(case_text(i, c) for i, c in enumerate(cases)))
    tb.write_fixture(args.out, text, "%d cases" % len(cases))


if __name__ == "__main__":
    main()
