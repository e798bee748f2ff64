#!/usr/bin/python3
"""Expected values of `attn-tutor kv-cache|gqa|mla|swa` for random options, by real PyTorch (1.13).

Runs the lessons' cells with the bonus material's modules after chapter 3 (tools/torch_bonus.py: the KV
cache, GroupedQueryAttention, MultiHeadLatentAttention, MultiHeadAttentionWithSWA, written out from
rasbt/LLMs-from-scratch ch04/03-06) for random cases: --seed (none = 123, negatives, 0, up to 2^64-1),
--inputs (2-8 rows of 1-6 numbers, with or without words), --d-out, --num-heads, --qkv-bias and each
lesson's own option (--context-length, --num-kv-groups, --latent-dim, --window), each sometimes left to
the lesson's default. Writes one JSON fixture that tests/test_bonus_fixtures.cpp replays against the CLI
(the tests never need torch): every tensor the lesson records, in order, float32 within the tolerance,
bool masks and int64 positions exactly.

Also writes (--exports DIR) one correct learner export per lesson for `attn-tutor check`
(tests/fixtures/mistakes/correct-<lesson>.json, with python/export_pytorch.py), and prints (--reference)
the entries of tests/fixtures/book_reference.txt that `attn-tutor verify` checks for these lessons: the
text real PyTorch prints for them at the lessons' defaults.

Regenerate (needs torch and numpy; deterministic for given --cases/--rng-seed):
    /usr/bin/python3 tools/gen_bonus_fixtures.py --out tests/fixtures/bonus_pytorch.json \\
        --exports tests/fixtures/mistakes

Fixture layout:
    {"generator": ..., "torch": "1.13...", "tolerance": 1e-6,
     "cases": [{"id": 0, "lesson": "gqa", "argv": ["--seed=-5", "--num-kv-groups", "1", ...],
                "inputs_file": <the JSON written to the --inputs file, or null for the book's>,
                "expected": [{"name": "x", "shape": [1, 6, 3], "dtype": "float32", "data": [...]}, ...]}]}
"expected" is every tensor of the lesson's JSON export in its order (names repeat: the k-th "out" of a
case is the k-th "out" of the CLI's JSON).
"""
import argparse
import json
import os
import random
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_book as tb  # noqa: E402
import torch_bonus as tbn  # noqa: E402
import common  # noqa: E402  (python/ on the path: the learners' exporter; the option table)
from export_pytorch import export  # noqa: E402

LESSONS = ["kv-cache", "gqa", "mla", "swa"]
SEED_CUTS = (0.15, 0.4, 0.6, 0.7, 0.85)
OWN_OPTION = {"kv-cache": "context_length", "gqa": "num_kv_groups", "mla": "latent_dim", "swa": "window"}


def data_text(t):
    if t.dtype == torch.bool:
        return json.dumps(t.tolist())
    if t.dtype == torch.int64:
        return json.dumps(t.tolist())
    return tb.data_text(t.tolist(), inf_strings=True)


def entry_text(name, t):
    dtype = {torch.bool: "bool", torch.int64: "int64", torch.float32: "float32"}[t.dtype]
    return '{"name": %s, "shape": %s, "dtype": "%s", "data": %s}' % (json.dumps(name), json.dumps(list(t.shape)),
                                                                     dtype, data_text(t))


def heads_and_width(rng):
    heads = rng.choice((1, 1, 2, 2, 2, 3, 4, 4))
    return heads, heads * rng.randint(1, 3)


def make_case(rng, lesson):
    n = tb.random_dim(rng, 2, 8, 6)
    d_in = tb.random_dim(rng, 1, 6, 4)
    big = rng.random() < 0.2
    rows = [[tb.random_value(rng, big) for _ in range(d_in)] for _ in range(n)]
    r = rng.random()
    if r < 0.15:
        rows, doc = tb.BOOK_ROWS, None
    elif r < 0.55:
        doc = {"tokens": [rng.choice(tb.WORDS) for _ in range(n)], "inputs": rows}
    else:
        doc = rows
    n = len(rows)
    heads, d_out = heads_and_width(rng)
    c = {"seed": tb.random_seed(rng, SEED_CUTS), "num_heads": heads, "d_out": d_out, "qkv_bias": rng.random() < 0.4}
    if lesson == "kv-cache":
        c["context_length"] = n + rng.choice((0, 1, 2, 5)) if rng.random() < 0.4 else None
    elif lesson == "gqa":
        heads = rng.choice((1, 2, 4, 4, 6, 8))
        c["num_heads"], c["d_out"] = heads, heads * rng.randint(1, 2)
        c["num_kv_groups"] = rng.choice([g for g in range(1, heads + 1) if heads % g == 0])
    elif lesson == "mla":
        c["latent_dim"] = rng.randint(1, 6)
    else:
        c["window"] = rng.randint(1, n + 2)
    if rng.random() < 0.2:  # now and then the lesson's own sizes
        c["num_heads"] = c["d_out"] = None
        if lesson == "gqa":
            c["num_kv_groups"] = None
    if rng.random() < 0.15:
        c[OWN_OPTION[lesson]] = None
    return {"lesson": lesson, "c": c, "rows": rows, "inputs_file": doc}


def case_argv(case):
    c = case["c"]
    return common.case_argv(case["lesson"], [(k, c.get(k)) for k in (
        "seed", "d_out", "num_heads", "context_length", "num_kv_groups", "latent_dim", "window", "qkv_bias")],
        joined=("seed",))


def fixed_cases():
    """The lessons' defaults on the book's embeddings, and the corners: MHA and MQA as GQA, W >= T, W = 1."""
    def case(lesson, **c):
        return {"lesson": lesson, "c": c, "rows": tb.BOOK_ROWS, "inputs_file": None}
    two = [[0.5], [-0.25]]
    return [case("kv-cache"), case("kv-cache", seed=-1, context_length=9, qkv_bias=True, num_heads=3, d_out=6),
            {"lesson": "kv-cache", "c": {"seed": 2**64 - 1, "d_out": 1, "num_heads": 1}, "rows": two,
             "inputs_file": two},
            case("gqa"), case("gqa", num_kv_groups=4), case("gqa", num_kv_groups=1, qkv_bias=True),
            case("gqa", seed=7, num_heads=6, d_out=12, num_kv_groups=3),
            case("mla"), case("mla", latent_dim=16), case("mla", seed=0, latent_dim=1, qkv_bias=True),
            case("swa"), case("swa", window=6), case("swa", window=1), case("swa", seed=-(2**63), window=2,
                                                                                qkv_bias=True)]


def case_text(i, case):
    fields = ['"id": %d' % i, '"lesson": %s' % json.dumps(case["lesson"]), '"argv": %s' % json.dumps(case["argv"]),
              tb.inputs_field(case["inputs_file"])]
    entries = [entry_text(name, t) for name, t in tbn.run_lesson(case["lesson"], case["c"], case["rows"])]
    return tb.case_block(fields, entries)


# ---- verify's entries and check's correct exports -------------------------------------------------------

REFERENCE = [  # (lesson, name, occurrence from 1, settings, the same as CLI words)
    ("kv-cache", "attn_weights", 1, {}, "-"), ("kv-cache", "full", 1, {}, "-"), ("kv-cache", "cache_k", 6, {}, "-"),
    ("kv-cache", "out", 6, {}, "-"), ("kv-cache", "mask_bool", 7, {}, "-"), ("kv-cache", "rest", 1, {}, "-"),
    ("gqa", "keys_new", 1, {}, "-"), ("gqa", "keys", 2, {}, "-"), ("gqa", "attn_weights", 1, {}, "-"),
    ("gqa", "full", 1, {}, "-"), ("gqa", "keys", 2, {"num_kv_groups": 1}, "--num-kv-groups 1"),
    ("mla", "latent", 1, {}, "-"), ("mla", "keys_all", 1, {}, "-"), ("mla", "attn_weights", 1, {}, "-"),
    ("mla", "full", 1, {}, "-"),
    ("swa", "mask_bool", 1, {}, "-"), ("swa", "attn_weights", 1, {}, "-"), ("swa", "full", 1, {}, "-"),
    ("swa", "full", 1, {"window": 6}, "--window 6"),
]
SOURCE = {"kv-cache": "ch04/03_kv-cache", "gqa": "ch04/04_gqa", "mla": "ch04/05_mla", "swa": "ch04/06_swa"}


def print_reference():
    version = ".".join(torch.__version__.split(".")[:2])
    for lesson, name, k, c, words in REFERENCE:
        got = tbn.run_lesson(lesson, c, tb.BOOK_ROWS)
        t = [v for n, v in got if n == name][k - 1]
        print("=== %s | %s | %s | the book's bonus material, %s (real PyTorch %s) | bonus %s"
              % (lesson, name, words, SOURCE[lesson], version, SOURCE[lesson]))
        print(t)


CORRECT = {  # lesson: (settings, the tensors exported) -- some with the lesson's options
    "kv-cache": ({"seed": 7, "d_out": 3, "num_heads": 1, "context_length": 8, "qkv_bias": True},
                 ["full", "cache_k", "out", "rest"]),
    "gqa": ({"seed": -5, "num_kv_groups": 1}, ["keys", "attn_weights", "full", "gqa.cache_k"]),
    "mla": ({"latent_dim": 3, "qkv_bias": True}, ["latent", "keys_all", "full", "mla.cache_c_kv"]),
    "swa": ({"window": 2, "seed": 2**64 - 1}, ["mask_bool", "attn_weights", "full", "swa.cache_k"]),
}


def write_exports(folder):
    for lesson, (c, names) in CORRECT.items():
        got = tbn.run_lesson(lesson, c, tb.BOOK_ROWS)
        tensors = {}
        for name in names:  # the last occurrence: the cache when it is full, the last step's output
            tensors[name] = [v for n, v in got if n == name][-1]
        path = os.path.join(folder, "correct-%s.json" % lesson)
        export(tensors, lesson, path, **c)
        print("wrote %s" % path, file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common.add_generator_args(ap, 40, "tests/fixtures/bonus_pytorch.json", "correct-<lesson>.json", 20250915,
                              cases_help="random cases per lesson")
    args = ap.parse_args()
    torch.set_num_threads(1)
    if args.reference:
        print_reference()
        return
    rng = random.Random(args.rng_seed)
    cases = fixed_cases()
    for lesson in LESSONS:
        cases += [make_case(rng, lesson) for _ in range(args.cases)]
    for case in cases:
        case["argv"] = case_argv(case)
    text = ('{"generator": "tools/gen_bonus_fixtures.py --cases %d --rng-seed %d",\n'
            ' "torch": %s, "tolerance": 1e-6,\n'
            ' "cases": [\n%s\n]}\n') % (args.cases, args.rng_seed, json.dumps(torch.__version__),
                                        ",\n".join(case_text(i, c) for i, c in enumerate(cases)))
    tb.write_fixture(args.out, text, "%d cases" % len(cases))
    if args.exports:
        write_exports(args.exports)


if __name__ == "__main__":
    main()
