#!/usr/bin/python3
"""End-to-end check of `attn-tutor trainable` against real PyTorch (1.13) for many random options.

For each random case (see tools/gen_trainable_fixtures.py: --seed incl. none/negative/0/up to 2^64-1,
2-16 x 1-16 inputs, --d-out 1-16, --qkv-bias, --init rand|randn) it runs the book's code with torch and
    attn-tutor trainable --json - --inputs FILE [--seed S] --d-out D [--qkv-bias] [--init randn]
then compares every tensor by name (a repeated name in order of appearance), its shape and dtype, and
requires |cli - torch| <= 1e-6 everywhere and bit-exact weights (W_query/W_key/W_value,
sa_v2.*.weight/bias, plus inputs, x_2 and d_k).

Usage (needs torch; not part of the tests):
    /usr/bin/python3 tools/check_trainable_against_torch.py [--cases 300] [--exe build/attn-tutor]
        [--rng-seed N] [--tol 1e-6] [--keep-failures DIR]
Exit status 0 when every case passes.
"""
import argparse
import json
import os
import random
import shlex
import sys
import tempfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_compare  # noqa: E402
import gen_trainable_fixtures as gen  # noqa: E402
import torch_book as tb  # noqa: E402


def parse_json_int(text):
    """JSON "-0" (how the CLI writes a float32 negative zero) is -0.0, not the integer 0."""
    return -0.0 if text == "-0" else int(text)


def compare_case(case, cli_doc, tol, stats, label):
    """Problems found (a list of strings); updates stats."""
    expected = [(name, t, None) for name, t in gen.expected_of(case)]
    return cli_compare.compare(expected, cli_doc, tol, stats, label, exact=gen.EXACT)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    tb.add_check_args(ap, cases=300, rng_seed=1)
    ap.add_argument("--keep-failures", metavar="DIR", help="copy the inputs file of failing cases here")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    torch.set_num_threads(1)
    rng = random.Random(args.rng_seed)
    stats = cli_compare.Stats()
    failures = 0
    tmp = tempfile.mkdtemp(prefix="attn-check-")
    for i in range(args.cases):
        case = gen.make_case(rng)
        path = tb.write_inputs(tmp, case["inputs_file"], "inputs%d.json" % i)
        cmd, r = tb.run_cli(args.exe, "trainable", case["argv"], path)  # cmd[5] is the inputs file
        problems = []
        if r.returncode != 0:
            problems.append("exit %d: %s" % (r.returncode, r.stderr.strip()))
        else:
            try:
                doc = json.loads(r.stdout, parse_int=parse_json_int)
                problems = compare_case(case, doc, args.tol, stats, "case %d" % i)
            except ValueError as e:
                problems.append("invalid JSON: %s" % e)
        shape = (len(case["rows"]), len(case["rows"][0]))
        if problems:
            failures += 1
            if args.keep_failures:
                os.makedirs(args.keep_failures, exist_ok=True)
                cmd[5] = tb.write_inputs(args.keep_failures, case["inputs_file"], "case%d.json" % i)
            print("FAIL case %d (inputs %dx%d): %s" % (i, shape[0], shape[1], shlex.join(cmd)))
            for p in problems[:8]:
                print("   ", p)
            if len(problems) > 8:
                print("    ... %d more" % (len(problems) - 8))
        elif args.verbose:
            print("ok   case %d (inputs %dx%d) %s" % (i, shape[0], shape[1], " ".join(case["argv"])))

    print("torch %s, %d cases, %d failed" % (torch.__version__, args.cases, failures))
    print("values compared: %d, bit-identical to torch: %d; weights/exact values: %d"
          % (stats.values, stats.bit_identical, stats.exact_values))
    print("max abs diff: %.3g at %s" % (stats.max_diff, stats.max_where))
    for name, d in sorted(stats.per_name.items(), key=lambda kv: -kv[1]):
        print("  %-22s max abs diff %.3g" % (name, d))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
