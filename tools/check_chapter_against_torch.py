#!/usr/bin/python3
"""End-to-end check of `attn-tutor causal-mask|dropout|wrapper|mha` against real PyTorch (1.13).

For each random case (see tools/gen_chapter_fixtures.py: --seed incl. none/negative/0/up to 2^64-1,
2-12 x 1-8 inputs, --d-out 1-8, --num-heads 1-4 (mha: dividing d_out), --qkv-bias, --dropout in
{default, 0, 0.1, 0.5, random, 1.0}, --context-length sometimes above the tokens, wrapper --no-reseed)
it runs the book's code with torch and
    attn-tutor LESSON --json - --inputs FILE [options]
then compares EVERY tensor the lesson records, by name (a repeated name in order of appearance), shape
and dtype: floats within --tol (1e-6), -inf/bool/int64 exactly, and the dropout masks: the zero
pattern of dropout(example), dropout(attn_weights) and every attn_weights must be identical, and
dropout(example) equal exactly. It reports max |cli - torch| per lesson for the acceptance tensors
(attn_weights, context_vec(s), dropout outputs, wrapper heads) and for all tensors.

--mkl-cases N adds cases with --bernoulli mkl, checked against the independent MKL model of
tools/torch_mkl.py (torch cannot run that path here); wrapper cases with several heads and
dropout check that each MKL dropout consumes exactly one draw (the shift).

It also reports, for information (not failures): zeros whose sign differs from torch's (-0.0 vs 0.0,
equal as numbers but printed differently), and how the wrapper's head cell differs when executed
literally (`outs = [head(batch) for head in mha.heads]` after mha(batch) redraws the dropout masks).

Usage (needs torch; not part of the tests):
    /usr/bin/python3 tools/check_chapter_against_torch.py [--cases 300] [--mkl-cases 60]
        [--exe build/attn-tutor] [--rng-seed N] [--tol 1e-6] [--gpt2 2]
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
import gen_chapter_fixtures as gen  # noqa: E402
import torch_book as tb  # noqa: E402
import torch_mkl as mkl  # noqa: E402

# The recorded tensors that are a dropout's output (the wrapper records none: its masks are only seen
# through the heads' context vectors).
MASK_NAMES = {"causal-mask": set(), "dropout": {"dropout(example)", "dropout(attn_weights)"}, "wrapper": set(),
              "mha": {"attn_weights"}}

def Stats():
    """The run's counters (cli_compare.Stats; dropout_cases: cases that drew a dropout mask, 0 < p < 1)."""
    return cli_compare.Stats(cases=0, failed=0, dropout_cases=0)


def compare(case, doc, tol, st, label):
    p = case["dropout"]
    draws_mask = (case["lesson"] == "dropout" and (0.5 if p is None else p) not in (0.0, 1.0)) or \
        (case["lesson"] in ("wrapper", "mha") and p is not None and 0.0 < p < 1.0)
    st.dropout_cases += draws_mask
    expected = [(name, value, None) for name, value in gen.run_book(case)]
    return cli_compare.compare(expected, doc, tol, st, label, exact=gen.EXACT, zero_pattern=gen.ZERO_PATTERN,
                               masks=MASK_NAMES[case["lesson"]] if draws_mask else (), accept=gen.ACCEPT_NAMES)


def run_cli(exe, case, tmp):
    return tb.run_cli(exe, case["lesson"], case["argv"], tb.write_inputs(tmp, case["inputs_file"]))


def literal_head_diff(case):
    """max |heads recorded inside mha(batch) - heads of the cell executed literally| (wrapper)."""
    a = [t for n, t in gen.run_book(case) if n.startswith("head_outputs[")]
    b = [t for n, t in gen.run_book(case, literal_heads=True) if n.startswith("head_outputs[")]
    return max(float((x - y).abs().max()) for x, y in zip(a, b))


def shift_matters(case):
    """An MKL wrapper case where a later dropout draws after an earlier one (>= 2 heads, 0 < p < 1)."""
    p = case["dropout"]
    return case["bernoulli"] == "mkl" and case["lesson"] == "wrapper" and (case["num_heads"] or 2) >= 2 \
        and p is not None and 0 < p < 1


def no_shift_model_differs(case):
    """Whether the counter-model (an MKL dropout consumes 2*numel draws) gives other numbers at all
    (not when, e.g., p = 1e-9 keeps every entry whatever the draws)."""
    a = gen.run_book(case)
    with mkl.no_shift():
        b = gen.run_book(case)
    return any(not torch.equal(x, y) for (_, x), (_, y) in zip(a, b))


def agrees_with_no_shift_model(case, doc, tol):
    """True if the CLI also matches the counter-model where an MKL dropout consumes 2*numel draws."""
    with mkl.no_shift():
        return not compare(case, doc, tol, Stats(), "no-shift")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    tb.add_check_args(ap, cases=300, rng_seed=777)  # --cases: default-path cases in all, split over 4 lessons
    ap.add_argument("--mkl-cases", type=int, default=60, help="--bernoulli mkl cases in all")
    ap.add_argument("--gpt2", type=int, default=0, help="extra mha --gpt2 cases")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()

    torch.set_num_threads(1)
    mkl.self_check_mkl()
    rng = random.Random(args.rng_seed)
    cases = []
    for i in range(args.cases):
        cases.append(gen.make_case(rng, gen.LESSONS[i % 4]))
    mkl_lessons = ["dropout", "wrapper", "mha", "dropout", "wrapper", "causal-mask"]
    for i in range(args.mkl_cases):
        cases.append(gen.make_case(rng, mkl_lessons[i % len(mkl_lessons)], bernoulli="mkl"))
    for i in range(args.gpt2):
        c = gen.make_case(rng, "mha")
        c["gpt2"] = True
        c["argv"] = gen.case_argv(c)
        cases.append(c)

    stats = defaultdict(Stats)
    failures = []
    literal = {"cases": 0, "differ": 0, "max": 0.0}
    shift = {"cases": 0, "cli_matches_1_draw": 0, "cli_matches_2n_draws": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for i, case in enumerate(cases):
            key = case["lesson"] + (" [mkl]" if case["bernoulli"] == "mkl" else "") + \
                (" [gpt2]" if case.get("gpt2") else "")
            st = stats[key]
            st.cases += 1
            cmd, r = run_cli(args.exe, case, tmp)
            label = "case %d" % i
            if r.returncode != 0:
                problems = ["exit %d: %s" % (r.returncode, r.stderr.strip()[:300])]
            else:
                problems = compare(case, json.loads(r.stdout), args.tol, st, label)
            if r.returncode == 0 and shift_matters(case) and no_shift_model_differs(case):
                shift["cases"] += 1
                shift["cli_matches_1_draw"] += not problems
                if agrees_with_no_shift_model(case, json.loads(r.stdout), args.tol):
                    shift["cli_matches_2n_draws"] += 1
                    problems.append("the CLI also matches the no-shift model (2*numel draws per MKL dropout)")
            if problems:
                st.failed += 1
                failures.append((label, cmd, case, problems))
            if case["lesson"] == "wrapper" and case["dropout"] is not None and 0 < case["dropout"] < 1:
                literal["cases"] += 1
                d = literal_head_diff(case)
                literal["max"] = max(literal["max"], d)
                literal["differ"] += d > 0

    print("%-22s %5s %6s %8s %12s %12s  %s" % ("lesson", "cases", "failed", "values", "max|d| acc.",
                                               "max|d| all", "dropout masks identical"))
    for key in sorted(stats):
        s = stats[key]
        print("%-22s %5d %6d %8d %12.3g %12.3g  %d/%d tensors (%d dropped entries) in %d cases that drew masks"
              % (key, s.cases, s.failed, s.values, s.max_accept, s.max_diff, s.mask_identical, s.mask_tensors,
                 s.mask_entries, s.dropout_cases))
        if args.verbose:
            print("    max at: %s | %s" % (s.max_accept_where, s.max_where))
    for key in sorted(stats):
        s = stats[key]
        if s.zero_sign:
            print("sign of zero differs (info; prints -0.0000 vs 0.0000) in %s: %d cases, %s"
                  % (key, len(s.zero_sign_cases), dict(s.zero_sign_names)))
    print("wrapper head cell executed literally (info): %d dropout cases, %d differ from the heads inside "
          "mha(batch), max %.3g" % (literal["cases"], literal["differ"], literal["max"]))
    print("MKL shift (wrapper, >= 2 heads, 0 < p < 1, where it changes the numbers): %d cases; the CLI matches the model with 1 draw per "
          "dropout in %d, the counter-model with 2*numel draws in %d"
          % (shift["cases"], shift["cli_matches_1_draw"], shift["cli_matches_2n_draws"]))
    return tb.print_failures(failures, len(cases), shown=20, problems_shown=10)


if __name__ == "__main__":
    sys.exit(main())
