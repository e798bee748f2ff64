"""Shared by the fixture generators (tools/gen_*_fixtures.py) and the checks against torch
(tools/check_*_against_torch.py): the book's modules, the random-case helpers, the float32 text of the
fixtures, and running the CLI and pairing its tensors with torch's.

The scripts run as `/usr/bin/python3 tools/<script>.py` and import this module from their own directory.
Needs torch and numpy.
"""
import json
import math
import os
import subprocess
import sys
from collections import defaultdict

import numpy as np
import torch

import book_listings

# ---- the book's classes (§3.4.2, listings 3.1-3.5), verbatim in book_listings.py -----------------------
# `module.trace = {}` before a call records the forward's intermediates into that dict (recorded() below);
# the classes' text stays the book's.

SelfAttention_v1, SelfAttention_v2 = book_listings.SelfAttention_v1, book_listings.SelfAttention_v2
CausalAttention, MultiHeadAttention = book_listings.CausalAttention, book_listings.MultiHeadAttention
MultiHeadAttentionWrapper = book_listings.MultiHeadAttentionWrapper


def local_values(forward, module, *args):
    """Runs forward(module, *args) under sys.settrace, watching its own frame only; returns (result, bound,
    last): bound[name] the values local `name` was given, each cloned when given (before an in-place change
    on a later line), and last[name] what it held at the return."""
    bound, last, code = defaultdict(list), {}, forward.__code__

    def in_forward(frame, event, arg):
        for name, v in frame.f_locals.items():
            if name not in last or last[name] is not v:
                bound[name].append(v.clone() if isinstance(v, torch.Tensor) else v)
                last[name] = v
        return in_forward

    def calls(frame, event, arg):
        return in_forward if frame.f_code is code else None

    previous = sys.gettrace()
    sys.settrace(calls)
    try:
        result = forward(module, *args)
    finally:
        sys.settrace(previous)
    return result, bound, last


def recorded(cls, entries):
    """cls.forward records, when module.trace is a dict, trace[key] = what entries[key] picks of the forward's
    locals: a name (its value at the return) or (name, k) (the k-th value it was given)."""
    forward = cls.forward

    def forward_recorded(self, *args):
        trace = getattr(self, "trace", None)
        if trace is None:
            return forward(self, *args)
        result, bound, last = local_values(forward, self, *args)
        for key, what in entries.items():
            trace[key] = bound[what[0]][what[1]] if isinstance(what, tuple) else last[what]
        return result

    cls.forward = forward_recorded


recorded(CausalAttention, {name: name for name in ("keys", "queries", "values", "attn_scores", "attn_weights")})
recorded(MultiHeadAttention, {
    "keys": ("keys", 0), "queries": ("queries", 0), "values": ("values", 0),
    "keys_view": ("keys", 1), "queries_view": ("queries", 1), "values_view": ("values", 1),
    "keys_heads": ("keys", 2), "queries_heads": ("queries", 2), "values_heads": ("values", 2),
    "attn_scores": ("attn_scores", 0), "mask_bool": "mask_bool", "masked_scores": "attn_scores",
    "attn_weights": "attn_weights", "context_transposed": ("context_vec", 0), "context_merged": ("context_vec", 1)})


# ---- random cases -----------------------------------------------------------------------------------

WORDS = ["Your", "journey", "starts", "with", "one", "step", "the", "cat", "sat", "on", "a", "mat",
         "every", "effort", "moves", "you", "forward", "attention", "is", "all", "we", "need", "token",
         "embedding", "query", "key", "value", "hello", "world", "again"]

SEED_SPECIALS = [0, 1, -1, 123, 789, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**32 + 123, 2**63 - 1, 2**63,
                 2**64 - 1, -(2**63), -(2**31), -123, -789]

BOOK_ROWS = [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
             [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]
BOOK_TOKENS = ["Your", "journey", "starts", "with", "one", "step"]


def book_batch():
    """§3.5.3's batch: the book's six embeddings twice, (2, 6, 3)."""
    inputs = torch.tensor(BOOK_ROWS)
    return torch.stack((inputs, inputs), dim=0)


def random_seed(rng, cuts, specials=SEED_SPECIALS):
    """None (the lesson's own seeds) or an integer torch.manual_seed accepts, -2^63 .. 2^64-1.
    cuts: the five increasing probabilities that end the bands none / a special / 0..1000 / -1000..-1 /
    0..2^64-1 (the rest: -2^63..-1)."""
    r = rng.random()
    if r < cuts[0]:
        return None
    if r < cuts[1]:
        return rng.choice(specials)
    if r < cuts[2]:
        return rng.randint(0, 1000)
    if r < cuts[3]:
        return -rng.randint(1, 1000)
    if r < cuts[4]:
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


def random_rate(rng, bands, odd_until, digits):
    """A --dropout rate. bands: [(p, rate)] in increasing p: that rate (None: the lesson's default) when
    rng.random() < p; then, below odd_until, one of a few odd rates; else uniform with `digits` decimals."""
    r = rng.random()
    for until, rate in bands:
        if r < until:
            return rate
    if r < odd_until:
        return rng.choice([1e-9, 0.999999, 0.15, 0.123, 0.9])
    return round(rng.uniform(0.0, 1.0), rng.choice(digits))


def random_dim(rng, lo, hi, small_max=None):
    """Uniform in [lo, hi], or (small_max given) mostly at most small_max so the fixture stays compact."""
    if small_max is not None and rng.random() < 0.75:
        return rng.randint(lo, min(hi, small_max))
    return rng.randint(lo, hi)


# ---- float32 text (the fixtures) --------------------------------------------------------------------

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


def data_text(v, sep=", ", inf_strings=False):
    """A nested list of floats as JSON; inf_strings: +-inf as the strings "inf"/"-inf"."""
    if isinstance(v, list):
        return "[" + sep.join(data_text(x, sep, inf_strings) for x in v) + "]"
    if inf_strings and math.isinf(v):
        return '"inf"' if v > 0 else '"-inf"'
    if inf_strings and math.isnan(v):  # swa's forward before its fix: rows with no key
        return '"nan"'
    return f32_text(v)


def entry_text(name, t, sep=", ", occurrence=None, inf_strings=False):
    """One "expected" entry: a float32 tensor's name, shape and data (and occurrence, when given)."""
    assert isinstance(t, torch.Tensor) and t.dtype == torch.float32, (name, t)
    occ = "" if occurrence is None else '"occurrence": %d, ' % occurrence
    return '{"name": %s, %s"shape": %s, "data": %s}' % (json.dumps(name), occ, json.dumps(list(t.shape)),
                                                        data_text(t.tolist(), sep, inf_strings))


def case_block(fields, entries):
    """One fixture case: its fields ('"id": 0', ...) on a line, then its expected entries one per line."""
    return "  {" + ", ".join(fields) + ',\n   "expected": [\n    ' + ",\n    ".join(entries) + "]}"


def inputs_field(inputs_file):
    return '"inputs_file": %s' % json.dumps(inputs_file, separators=(",", ":"))


def write_fixture(path, text, what):
    """Writes a fixture's text (checked to be JSON) and says so on stderr."""
    json.loads(text)  # well-formed
    with open(path, "w") as f:
        f.write(text)
    print("wrote %s, %d bytes to %s" % (what, len(text), path), file=sys.stderr)


# ---- the CLI against torch (the check tools) --------------------------------------------------------

DTYPES = {torch.float32: "float32", torch.bool: "bool", torch.int64: "int64"}
NONFINITE = {"-inf": -math.inf, "inf": math.inf, "nan": math.nan}


def default_exe():
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "attn-tutor")


def add_check_args(ap, cases, rng_seed):
    """The options every check tool has: --cases, --exe, --rng-seed, --tol."""
    ap.add_argument("--cases", type=int, default=cases)
    ap.add_argument("--exe", default=default_exe())
    ap.add_argument("--rng-seed", type=int, default=rng_seed)
    ap.add_argument("--tol", type=float, default=1e-6)


def flatten(v):
    if isinstance(v, list):
        out = []
        for x in v:
            out.extend(flatten(x))
        return out
    return [v]


def cli_value(v):
    """A value of the CLI's JSON: "-inf", "inf" and "nan" (any case) as floats, anything else as it is."""
    if isinstance(v, str):
        return NONFINITE.get(v.lower(), v)
    return v


def zero_pattern(values):
    """Which of the values (CLI or torch) are zero as float32."""
    return [float(np.float32(cli_value(v))) == 0.0 for v in values]


def write_inputs(tmp, inputs_file, name="inputs.json"):
    """Writes a case's --inputs file in tmp; returns its path (None when the case has none)."""
    if inputs_file is None:
        return None
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        json.dump(inputs_file, f)
    return path


def run_cli(exe, lesson, argv, inputs=None, json_out=True, options=()):
    """Runs `attn-tutor LESSON [options] [--json -] [--inputs FILE] ARGV`; returns (cmd, CompletedProcess)."""
    cmd = [exe, lesson] + list(options) + (["--json", "-"] if json_out else []) + \
        (["--inputs", inputs] if inputs is not None else []) + list(argv)
    return cmd, subprocess.run(cmd, capture_output=True, text=True)


def paired(names, doc, problems):
    """Pairs the expected tensor names (a repeated name: in order of appearance) with the tensors of the
    CLI's JSON document `doc`: yields (i, where, tensor) for names[i], where = "name #k" and tensor the CLI's
    k-th of that name, or None (reported in problems) when it has fewer. A different sequence of names is
    reported in problems too."""
    got = defaultdict(list)
    order_got = []
    for t in doc.get("tensors", []):
        got[t["name"]].append(t)
        order_got.append(t["name"])
    if order_got != list(names):
        problems.append("tensor names differ: cli %s vs torch %s" % (order_got, list(names)))
    seen = defaultdict(int)
    for i, name in enumerate(names):
        k = seen[name]
        seen[name] += 1
        where = "%s #%d" % (name, k + 1)
        if k >= len(got[name]):
            problems.append(where + " missing from the CLI output")
            yield i, where, None
        else:
            yield i, where, got[name][k]


def print_failures(failures, cases, shown=20, problems_shown=10):
    """failures: [(label, cmd, case, problems)]. Prints the first ones and the count; returns the exit status."""
    for label, cmd, case, problems in failures[:shown]:
        print("\nFAIL %s: %s" % (label, " ".join(cmd)))
        print("  inputs: %s" % json.dumps(case["inputs_file"]))
        for p in problems[:problems_shown]:
            print("  " + p)
    print("\n%d of %d cases passed" % (cases - len(failures), cases))
    return 1 if failures else 0
