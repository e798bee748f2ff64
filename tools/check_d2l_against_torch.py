#!/usr/bin/python3
"""End-to-end check of `attn-tutor d2l-mha` against real PyTorch (1.13).

For each random case (see tools/gen_d2l_fixtures.py: --seed incl. none/negative/0/up to 2^64-1,
--num-hiddens up to 240 with 1-6 heads or the post's 100 and 5, --valid-lens per sequence or per query
incl. 0 and all keys, --dropout none (eval) / 0 / a train-mode rate / 1, --qkv-bias, and the queries:
torch.ones as in the post, an --inputs file or --tokens) it runs d2l's code with torch and
    attn-tutor d2l-mha --json - [options]        and        attn-tutor d2l-mha [options]
then compares EVERY tensor the lesson records, by name (a repeated name in order of appearance), shape
and dtype: floats within --tol (1e-6), int64/bool exactly, the zero pattern of the attention weights and
of the dropout output identically; and every tensor the lesson prints must appear in its text output
exactly as torch's repr() prints it (grad_fn suffix included). It reports max |cli - torch| and how
many floats are bit-identical.

Usage (needs torch; not part of the tests):
    /usr/bin/python3 tools/check_d2l_against_torch.py [--cases 300] [--exe build/attn-tutor] [--rng-seed N]
Exit status 0 when every case passes.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
from collections import defaultdict

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_d2l_fixtures as gen  # noqa: E402

DTYPES = {torch.float32: "float32", torch.bool: "bool", torch.int64: "int64"}


def flatten(v):
    if isinstance(v, list):
        out = []
        for x in v:
            out.extend(flatten(x))
        return out
    return [v]


def run_cli(exe, case, tmp, json_out):
    argv = list(case["argv"])
    if case["inputs_file"] is not None:
        path = os.path.join(tmp, "inputs.json")
        with open(path, "w") as f:
            json.dump(case["inputs_file"], f)
        argv += ["--inputs", path]
    cmd = [exe, "d2l-mha"] + (["--json", "-"] if json_out else []) + argv
    return cmd, subprocess.run(cmd, capture_output=True, text=True)


class Stats:
    def __init__(self):
        self.values = 0
        self.floats = 0
        self.bit_identical = 0
        self.zero_sign = 0
        self.max_diff = 0.0
        self.max_where = ""
        self.reprs = 0
        self.mask_cases = 0


def compare(case, doc, text, tol, st, label):
    problems = []
    expected = gen.run_case(case)
    got = defaultdict(list)
    order_got = []
    for t in doc.get("tensors", []):
        got[t["name"]].append(t)
        order_got.append(t["name"])
    order_exp = [n for n, _, _, _ in expected]
    if order_got != order_exp:
        problems.append("tensor names differ: cli %s vs torch %s" % (order_got, order_exp))
    seen = defaultdict(int)
    for name, want, shown, want_repr in expected:
        k = seen[name]
        seen[name] += 1
        where = "%s #%d" % (name, k + 1)
        if shown:
            st.reprs += 1
            if want_repr not in text:
                problems.append("%s: torch prints\n%s\nwhich is not in the CLI's text output" % (where, want_repr))
        if k >= len(got[name]):
            problems.append(where + " missing from the CLI output")
            continue
        t = got[name][k]
        wshape, wdtype, wvals = list(want.shape), DTYPES[want.dtype], flatten(want.tolist())
        if t["shape"] != wshape or t["dtype"] != wdtype:
            problems.append("%s: shape/dtype %s %s vs torch %s %s" % (where, t["shape"], t["dtype"], wshape, wdtype))
            continue
        cvals = flatten(t["data"])
        if len(cvals) != len(wvals):
            problems.append("%s: %d values vs torch %d" % (where, len(cvals), len(wvals)))
            continue
        bad = 0
        for i, (c, w) in enumerate(zip(cvals, wvals)):
            st.values += 1
            if wdtype != "float32":
                bad += c != w
                continue
            if isinstance(c, str):
                c = {"-inf": -math.inf, "inf": math.inf, "nan": math.nan}[c]
            c32, w32 = np.float32(c), np.float32(w)
            st.floats += 1
            if c32.tobytes() == w32.tobytes():
                st.bit_identical += 1
            elif c32 == 0 and w32 == 0:
                st.zero_sign += 1
            d = abs(float(c32) - float(w32))
            if not d <= tol:
                bad += 1
            if d > st.max_diff:
                st.max_diff, st.max_where = d, "%s %s[%d]" % (label, where, i)
        if name in gen.ZERO_PATTERN and wdtype == "float32":
            zc = [float(np.float32(v)) == 0.0 for v in cvals]
            zw = [float(np.float32(v)) == 0.0 for v in wvals]
            if zc != zw:
                problems.append("%s: zero pattern differs at %d entries" % (where, sum(a != b for a, b in zip(zc, zw))))
        if bad:
            problems.append("%s: %d of %d values differ (tol %g)" % (where, bad, len(wvals), tol))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--exe", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build",
                                                  "attn-tutor"))
    ap.add_argument("--rng-seed", type=int, default=4004)
    ap.add_argument("--tol", type=float, default=1e-6)
    args = ap.parse_args()

    torch.set_num_threads(1)
    rng = random.Random(args.rng_seed)
    cases = gen.fixed_cases()
    while len(cases) < args.cases:
        cases.append(gen.make_case(rng, small=False))
    st = Stats()
    kinds = defaultdict(int)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, case in enumerate(cases):
            label = "case %d" % i
            kinds["ones" if case["rows"] is None and case["tokens"] is None else
                  ("inputs" if case["rows"] is not None else "tokens")] += 1
            kinds["valid_lens per query" if case["valid_lens"] and case["valid_lens"].strip().startswith("[[")
                  else "valid_lens per sequence"] += 1
            kinds["train mode" if case["dropout"] else "eval mode"] += 1
            if case["dropout"] and 0 < case["dropout"] < 1:
                st.mask_cases += 1
            cmd, r = run_cli(args.exe, case, tmp, True)
            _, rt = run_cli(args.exe, case, tmp, False)
            if r.returncode != 0 or rt.returncode != 0:
                problems = ["exit %d/%d: %s" % (r.returncode, rt.returncode, (r.stderr + rt.stderr).strip()[:300])]
            else:
                problems = compare(case, json.loads(r.stdout), rt.stdout, args.tol, st, label)
            if problems:
                failures.append((label, cmd, case, problems))
    print("cases: %d (%s)" % (len(cases), ", ".join("%s %d" % kv for kv in sorted(kinds.items()))))
    print("train-mode cases that drew dropout masks: %d" % st.mask_cases)
    print("values compared: %d (%d float32, %d bit-identical = %.4f%%, %d zeros of another sign)"
          % (st.values, st.floats, st.bit_identical, 100.0 * st.bit_identical / max(1, st.floats), st.zero_sign))
    print("printed tensors found verbatim (torch repr) in the text output: %d" % st.reprs)
    print("max |cli - torch| = %.3g at %s" % (st.max_diff, st.max_where))
    for label, cmd, case, problems in failures[:10]:
        print("\nFAIL %s: %s" % (label, " ".join(cmd)))
        print("  inputs: %s" % json.dumps(case["inputs_file"]))
        for p in problems[:6]:
            print("  " + p)
    print("\n%d of %d cases passed" % (len(cases) - len(failures), len(cases)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
