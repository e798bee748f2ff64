#!/usr/bin/python3
"""End-to-end check of `attn-tutor d2l-mha` against real PyTorch (1.13).

For each random case (see tools/gen_d2l_fixtures.py: --seed incl. none/negative/0/up to 2^64-1,
--num-hiddens up to 240 with 1-6 heads or d2l.ai §11.5's 100 and 5, --valid-lens per sequence or per query
incl. 0 and all keys, --dropout none (eval) / 0 / a train-mode rate / 1, --qkv-bias, and the queries:
torch.ones as in d2l.ai §11.5, an --inputs file or --tokens) it runs d2l's code with torch and
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
import os
import random
import sys
import tempfile
from collections import defaultdict

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_compare  # noqa: E402
import gen_d2l_fixtures as gen  # noqa: E402
import torch_book as tb  # noqa: E402


def run_cli(exe, case, tmp, json_out):
    return tb.run_cli(exe, "d2l-mha", case["argv"], tb.write_inputs(tmp, case["inputs_file"]), json_out)


def compare(case, doc, text, tol, st, label):
    expected = [(name, want, want_repr if shown else None) for name, want, shown, want_repr in gen.run_case(case)]
    return cli_compare.compare(expected, doc, tol, st, label, zero_pattern=gen.ZERO_PATTERN, text=text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    tb.add_check_args(ap, cases=300, rng_seed=4004)
    args = ap.parse_args()

    torch.set_num_threads(1)
    rng = random.Random(args.rng_seed)
    cases = gen.fixed_cases()
    while len(cases) < args.cases:
        cases.append(gen.make_case(rng, small=False))
    st = cli_compare.Stats(mask_cases=0)
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
    return tb.print_failures(failures, len(cases), shown=10, problems_shown=6)


if __name__ == "__main__":
    sys.exit(main())
