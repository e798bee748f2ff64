#!/usr/bin/env python3
"""Runs the classes the lessons after the chapter show (kv-cache, gqa, mla, swa), taken from the tool's own
`--ipynb -` export, in real PyTorch: every tensor the lesson's `--json -` export holds is compared with
what those cells compute, and the bonus material's own equivalence checks run on the shown classes.
Needs torch: run it with the Python that has it (Debian's python3-torch: /usr/bin/python3). Not part of CI.

    /usr/bin/python3 tools/check_bonus_listings.py [build/attn-tutor] [--lesson NAME] [--bonus DIR]

1. The lesson's notebook cells run in order in one namespace (as Jupyter runs them). After each cell, every
   tensor the JSON export recorded in that cell is evaluated by its name (an expression such as
   `(out - full[:, 0:1, :]).abs().max()`, or a module attribute: `cache_k` is `mha.cache_k`) and must be
   bit-identical (float32 values, NaN where NaN, the bool and int64 ones exactly). A name bound several
   times within one cell (a loop, or gqa's attn_scores before and after its masked_fill) is compared at its
   last binding; the earlier ones are counted (a loop's printed lines are compared by
   tools/check_py_export.py, and tests/test_bonus_fixtures.cpp compares every binding with real PyTorch).
2. The equivalence checks of the bonus material (ch04/03_kv-cache/tests.py, ch04/06_swa/tests.py and the
   READMEs of 04_gqa and 05_mla), on the shown classes:
   - kv-cache, gqa, mla, swa: the tokens fed one at a time with use_cache=True, and a chunked prefill,
     give the uncached forward's output;
   - gqa with num_kv_groups = num_heads is multi-head attention (kv-cache's shown MultiHeadAttention with
     the same weights and a zero out_proj bias), and num_kv_groups = 1 is multi-query attention;
   - swa: tests.py's test_cached_prefill_matches_uncached_swa (seed 123, d_in = d_out = 8, 2 heads,
     window 4, 6 tokens: no NaN, allclose(atol=1e-6), a cache of 4), and the window >= the context
     equals multi-head attention; the lesson's pre-fix forward gives NaN on that same setting.
3. With --bonus DIR (a checkout of rasbt/LLMs-from-scratch), each shown class must equal the bonus file's
   class line for line, except the lines the lesson marks with "# added".

Exit status: 0 when everything matches, 1 otherwise.
"""
import copy
import json
import math
import os
import subprocess
import sys

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "build", "attn-tutor")

# lesson: (its module's name in the cells, the class it shows, the bonus file, the option sets to run)
LESSONS = {
    "kv-cache": ("mha", "MultiHeadAttention", "ch04/03_kv-cache/gpt_with_kv_cache.py",
                 [[], ["--seed", "7"], ["--num-heads", "1"], ["--d-out", "6", "--num-heads", "3"], ["--qkv-bias"],
                  ["--context-length", "9"]]),
    "gqa": ("gqa", "GroupedQueryAttention", "ch04/04_gqa/gpt_with_kv_gqa.py",
            [[], ["--seed", "7"], ["--num-kv-groups", "1"], ["--num-kv-groups", "4"], ["--qkv-bias"]]),
    "mla": ("mla", "MultiHeadLatentAttention", "ch04/05_mla/gpt_with_kv_mla.py",
            [[], ["--seed", "7"], ["--latent-dim", "3"], ["--num-heads", "1"], ["--qkv-bias"]]),
    "swa": ("swa", "MultiHeadAttentionWithSWA", "ch04/06_swa/gpt_with_kv_swa.py",
            [[], ["--seed", "7"], ["--window", "1"], ["--window", "2"], ["--window", "9"], ["--qkv-bias"],
             ["--tokens", "one two three four five six seven eight nine"]]),
}

# Names the JSON export gives a value that the cells compute inline: swa's "causal" is causal(x), the
# output of the module the cell names `causal`.
ALIASES = {"swa": {"causal": "causal(x)",
                   "(full - causal).abs().max(dim=-1).values": "(full - causal(x)).abs().max(dim=-1).values"}}

failures = []


def fail(where, what):
    failures.append(f"{where}: {what}")
    print(f"  FAIL {where}: {what}")


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def json_tensor(entry):
    """A tensor from the JSON export's entry ("nan", "inf", "-inf" as strings)."""
    def fix(v):
        if isinstance(v, list):
            return [fix(u) for u in v]
        if isinstance(v, str):
            return float(v)
        return v
    data = fix(entry["data"])
    dtype = {"float32": torch.float32, "bool": torch.bool, "int64": torch.int64}[entry["dtype"]]
    return torch.tensor(data, dtype=dtype).reshape(entry["shape"])


def same_bits(a, b):
    """Equal shape, dtype kind and values; NaN equals NaN (float32 compared as float32 bits)."""
    if tuple(a.shape) != tuple(b.shape):
        return False, f"shape {tuple(a.shape)} vs {tuple(b.shape)}"
    if b.dtype == torch.bool or b.dtype == torch.int64:
        return (torch.equal(a.to(b.dtype), b), "values differ")
    a32, b32 = a.to(torch.float32), b.to(torch.float32)
    both_nan = torch.isnan(a32) & torch.isnan(b32)
    equal = (a32.view(torch.int32) == b32.view(torch.int32)) | both_nan
    # -0.0 and 0.0: the JSON writes both as 0 or -0.0 as printed; compare as numbers there
    equal = equal | ((a32 == 0) & (b32 == 0))
    if bool(equal.all()):
        return True, ""
    diff = (a32 - b32).abs()
    return False, f"max |diff| {diff[~torch.isnan(diff)].max().item() if (~torch.isnan(diff)).any() else 'nan'}"


def class_lines(lines, cls):
    """The lines of `class cls(...)` in `lines`, up to the first unindented line (trailing blank lines dropped)."""
    for i, line in enumerate(lines):
        if line.startswith(f"class {cls}("):
            out = [line]
            for more in lines[i + 1:]:
                if more and not more[0].isspace():
                    break
                out.append(more)
            while out and not out[-1].strip():
                out.pop()
            return out
    return None


def class_source(cells, cls):
    """The lines of `class cls(...)` from the code cell that shows it."""
    for cell in cells:
        out = class_lines("".join(cell["source"]).split("\n"), cls)
        if out is not None:
            return out
    return None


def bonus_class(path, cls):
    with open(path, encoding="utf-8") as f:
        return class_lines(f.read().split("\n"), cls)


def evaluate(name, scope, module):
    try:
        return eval(name, scope)
    except (NameError, AttributeError):
        return eval(f"{module}.{name}", scope)


def replay(tool, lesson, argv):
    """Runs the lesson's cells and compares every JSON tensor; returns the namespace."""
    module, cls, _, _ = LESSONS[lesson]
    where = f"{lesson} {' '.join(argv)}".strip()
    nb = json.loads(run([tool, lesson, *argv, "--ipynb", "-"]))
    doc = json.loads(run([tool, lesson, *argv, "--json", "-"]))
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    by_cell = {}
    for entry in doc["tensors"]:
        by_cell.setdefault(entry["cell"], []).append(entry)
    scope = {"__name__": "__main__"}
    compared = looped = 0
    devnull = open(os.devnull, "w")
    for cell in cells:
        n = cell.get("execution_count")  # In [n]; the imports cell has none
        saved = sys.stdout
        sys.stdout = devnull
        try:
            exec(compile("".join(cell["source"]), f"<{lesson} In [{n}]>", "exec"), scope)
        finally:
            sys.stdout = saved
        entries = by_cell.get(n, [])
        last = {}
        for e in entries:
            last[e["name"]] = e
        looped += len(entries) - len(last)
        for name, e in last.items():
            try:
                value = evaluate(ALIASES.get(lesson, {}).get(name, name), scope, module)
            except Exception as err:  # the name must exist in the cells' namespace
                fail(where, f"In [{n}] {name}: cannot evaluate ({type(err).__name__}: {err})")
                continue
            if not isinstance(value, torch.Tensor):
                fail(where, f"In [{n}] {name}: not a tensor ({type(value).__name__})")
                continue
            ok, why = same_bits(value, json_tensor(e))
            compared += 1
            if not ok:
                fail(where, f"In [{n}] {name}: {why}")
    devnull.close()
    if cls not in scope:
        fail(where, f"no class {cls} in the cells")
    print(f"  {where}: {compared} tensors bit-identical to the JSON export ({looped} earlier bindings in the same cell, a loop or a rebinding)")
    return scope, cells


def close(a, b, atol=1e-6):
    return bool(torch.allclose(a, b, atol=atol, rtol=0)) and not bool(torch.isnan(a).any())


def cached_equals_uncached(where, make, x):
    """Token by token and a chunked prefill with use_cache=True give the uncached output."""
    m = make()
    m.eval()
    full = m(x)
    m.reset_cache()
    steps = torch.cat([m(x[:, i:i + 1, :], use_cache=True) for i in range(x.shape[1])], dim=1)
    if not close(steps, full):
        fail(where, "token-by-token cached output differs from the uncached one")
    m.reset_cache()
    p = (x.shape[1] + 1) // 2
    chunks = torch.cat([m(x[:, :p, :], use_cache=True), m(x[:, p:, :], use_cache=True)], dim=1)
    if not close(chunks, full):
        fail(where, "chunked prefill (two cached calls) differs from the uncached one")
    m.reset_cache()
    if not close(m(x, use_cache=True), full):
        fail(where, "one cached call with every token differs from the uncached one")


def equivalences(scopes):
    torch.manual_seed(0)
    x = torch.randn(1, 7, 8)
    mha_cls = scopes["kv-cache"]["MultiHeadAttention"] if "kv-cache" in scopes else None
    if mha_cls:
        cached_equals_uncached("kv-cache", lambda: mha_cls(8, 8, 16, 0.0, num_heads=2), x)
    if "gqa" in scopes:
        gqa_cls = scopes["gqa"]["GroupedQueryAttention"]
        for groups in (1, 2, 4):
            cached_equals_uncached(f"gqa groups {groups}", lambda: gqa_cls(8, 8, 0.0, 4, groups), x)
        if mha_cls:
            torch.manual_seed(1)
            gqa = gqa_cls(8, 8, 0.0, num_heads=4, num_kv_groups=4).eval()
            mha = mha_cls(8, 8, 16, 0.0, num_heads=4).eval()
            with torch.no_grad():
                for name in ("W_query", "W_key", "W_value"):
                    getattr(mha, name).weight.copy_(getattr(gqa, name).weight)
                mha.out_proj.weight.copy_(gqa.out_proj.weight)
                mha.out_proj.bias.zero_()
            if not close(gqa(x), mha(x)):
                fail("gqa", "num_kv_groups = num_heads differs from MultiHeadAttention with the same weights")
            # num_kv_groups = 1: one key/value head that every query head reads (multi-query attention)
            mqa = gqa_cls(8, 8, 0.0, num_heads=4, num_kv_groups=1).eval()
            with torch.no_grad():
                for name in ("W_query", "out_proj"):
                    getattr(gqa, name).weight.copy_(getattr(mqa, name).weight)
                for name in ("W_key", "W_value"):
                    getattr(gqa, name).weight.copy_(getattr(mqa, name).weight.repeat(4, 1))
            if not close(gqa(x), mqa(x)):
                fail("gqa", "num_kv_groups = 1 differs from 4 groups holding the same key/value head")
    if "mla" in scopes:
        mla_cls = scopes["mla"]["MultiHeadLatentAttention"]
        for latent in (None, 2, 3):
            cached_equals_uncached(f"mla latent {latent}", lambda: mla_cls(8, 8, 0.0, 2, latent_dim=latent), x)
    if "swa" in scopes:
        swa_cls = scopes["swa"]["MultiHeadAttentionWithSWA"]
        before_cls = scopes["swa"].get("MultiHeadAttentionWithSWABeforeFix")
        # ch04/06_swa/tests.py: test_cached_prefill_matches_uncached_swa, as written there
        torch.manual_seed(123)
        att = swa_cls(d_in=8, d_out=8, dropout=0.0, num_heads=2, sliding_window_size=4)
        att.eval()
        ref_att = copy.deepcopy(att)
        xs = torch.randn(1, 6, 8)
        expected = ref_att(xs, use_cache=False)
        att.reset_cache()
        actual = att(xs, use_cache=True)
        if torch.isnan(actual).any() or not torch.allclose(actual, expected, atol=1e-6, rtol=0):
            fail("swa", "tests.py's cached prefill differs from the uncached output")
        if att.cache_k.size(1) != 4 or att.cache_v.size(1) != 4:
            fail("swa", "tests.py's cache does not hold 4 tokens after the prefill")
        if before_cls is None:
            fail("swa", "the lesson shows no MultiHeadAttentionWithSWABeforeFix")
        else:
            torch.manual_seed(123)
            old = before_cls(d_in=8, d_out=8, dropout=0.0, num_heads=2, sliding_window_size=4).eval()
            if not torch.isnan(old(xs, use_cache=True)).any():
                fail("swa", "the forward before the fix gives no NaN on tests.py's setting")
        for w in (1, 2, 3, 7, None):
            cached_equals_uncached(f"swa window {w}", lambda: swa_cls(8, 8, 0.0, 2, sliding_window_size=w), x)
        # test_swa_matches_base_model_when_window_equals_context, on the attention: W >= T is MHA
        if mha_cls:
            for w in (7, 8, None):
                torch.manual_seed(5)
                mha = mha_cls(8, 8, 7, 0.0, num_heads=2).eval()
                torch.manual_seed(5)
                swa = swa_cls(8, 8, 0.0, 2, sliding_window_size=w).eval()
                if not close(swa(x), mha(x)):
                    fail(f"swa window {w}", "differs from MultiHeadAttention with the same seed")


def main():
    args = sys.argv[1:]
    tool, only, bonus = TOOL, None, None
    while args:
        a = args.pop(0)
        if a == "--lesson":
            only = args.pop(0)
        elif a == "--bonus":
            bonus = args.pop(0)
        else:
            tool = a
    torch.set_grad_enabled(False)
    scopes = {}
    for lesson, (module, cls, path, option_sets) in LESSONS.items():
        if only and lesson != only:
            continue
        print(f"{lesson}:")
        for argv in option_sets:
            scope, cells = replay(tool, lesson, argv)
            scopes.setdefault(lesson, scope)
        shown = class_source(cells, cls)
        if shown is None:
            fail(lesson, f"no cell shows class {cls}")
            continue
        bad = [ln for ln in shown if "torch.arange(" in ln]
        if bonus:
            want = bonus_class(os.path.join(bonus, path), cls)
            mine = [ln for ln in shown if "# added" not in ln]
            if want != mine:
                import difflib
                fail(lesson, f"the shown {cls} is not {path}'s:\n" +
                     "\n".join(difflib.unified_diff(want, mine, path, "shown", lineterm="", n=1)))
            else:
                print(f"  {cls}: line for line {path}'s ({len(shown) - len(mine)} line(s) marked # added)")
    if "kv-cache" not in scopes:  # gqa's and swa's checks against MultiHeadAttention use kv-cache's shown class
        scopes["kv-cache"] = replay(tool, "kv-cache", [])[0]
    equivalences(scopes)
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("all bonus listings match: every exported tensor bit-identical, the bonus's equivalence checks pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
