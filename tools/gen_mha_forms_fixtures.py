#!/usr/bin/python3
"""Expected values of `attn-tutor mha-forms` for random options, by real PyTorch (1.13).

Runs the bonus material's classes (ch03/02_bonus_efficient-multihead-attention, mha-implementations.ipynb),
taken verbatim from lessons/mha-forms/listings.txt, and the chapter's MultiHeadAttention
(lessons/common/listings.txt) in real PyTorch: the chapter's module under torch.manual_seed, its weights
copied into each form as the bonus's test copies them, each form run on the inputs. Forms 1-4, 7 and 8 are
PyTorch 1.13's own classes and functions (nn.MultiheadAttention's forward included); forms 5, 6 and 9 are
the documented math of scaled_dot_product_attention (PyTorch 1.13 has neither SDPA nor FlexAttention), as
the lesson computes it. Random cases: --seed (none = 123, negatives, 0, large), --inputs (2-8 rows of 1-8
numbers), --num-heads dividing the width (d_out = d_in, as the lesson needs). Writes one JSON fixture that
tests/test_mha_forms.cpp replays against the CLI (the tests never need torch): the tensors named below,
compared bit for bit (as float32), bool masks exactly. nn.MultiheadAttention's head-averaged attn_weights are
summed over the heads in an order that follows the CPU kernel PyTorch picks (AVX2 here, its default in 1.13);
the tool reproduces that one.

Also prints (--reference) the entries of tests/fixtures/book_reference.txt that `attn-tutor verify` checks
for the lesson: the text real PyTorch prints for them at the lesson's defaults; and writes (--exports DIR)
a correct learner export, DIR/correct-mha-forms.json, for `attn-tutor check`.

With --bonus NOTEBOOK (mha-implementations.ipynb of a checkout of rasbt/LLMs-from-scratch), it checks instead
that every class the lesson shows is a verbatim block of one of the notebook's code cells, and runs the bonus's
own test (tests/test_mha_implementations.py: the chapter's class against MHAEinsum with copied weights,
allclose(atol=1e-5), at its three sizes) on the shown classes.

Regenerate (needs torch and numpy; deterministic for given --cases/--rng-seed):
    /usr/bin/python3 tools/gen_mha_forms_fixtures.py --out tests/fixtures/mha_forms_pytorch.json
    /usr/bin/python3 tools/gen_mha_forms_fixtures.py --reference   # paste into book_reference.txt
"""
import argparse
import json
import math
import os
import random
import sys

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch_book as tb  # noqa: E402
import common  # noqa: E402  (python/ on the path: the learners' exporter; the option table)
from export_pytorch import export  # noqa: E402


def listings(path):
    """{name: source} of a lessons/*/listings.txt ("@@ name" starts one)."""
    out, name = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("@@ "):
                name = line[3:].strip()
                out[name] = []
            elif name:
                out[name].append(line)
    return {k: "".join(v) for k, v in out.items()}


def classes():
    ns = {"torch": torch, "nn": nn, "math": math}
    root = os.path.join(HERE, "..", "lessons")
    exec(listings(os.path.join(root, "common", "listings.txt"))["MultiHeadAttention"], ns)
    for name, src in listings(os.path.join(root, "mha-forms", "listings.txt")).items():
        if name != "MHAPyTorchFlexAttention":  # needs torch.nn.attention (2.5); its causal() only
            exec(src, ns)
    exec("def causal(b, h, q_idx, kv_idx):\n    return q_idx >= kv_idx\n", ns)
    return ns


def sdpa_math(query, key, value, attn_mask=None, is_causal=False):  # the lesson's cell: PyTorch's documented math
    L, S = query.size(-2), key.size(-2)
    scale_factor = 1 / math.sqrt(query.size(-1))
    attn_bias = torch.zeros(L, S, dtype=query.dtype)
    if is_causal:
        temp_mask = torch.ones(L, S, dtype=torch.bool).tril(diagonal=0)
        attn_bias.masked_fill_(temp_mask.logical_not(), float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            attn_bias.masked_fill_(attn_mask.logical_not(), float("-inf"))
        else:
            attn_bias = attn_mask + attn_bias
    attn_weight = query @ key.transpose(-2, -1) * scale_factor
    attn_weight += attn_bias
    attn_weight = torch.softmax(attn_weight, dim=-1)
    return attn_weight @ value


def run_lesson(c, rows):
    """(name, tensor) in the lesson's order, for settings c (seed, num_heads) and input rows."""
    ns = classes()
    torch.set_grad_enabled(False)
    x = torch.tensor(rows, dtype=torch.float32).unsqueeze(0)
    b, n, d = x.shape
    heads = c.get("num_heads", 3)
    got = [("x", x)]
    torch.manual_seed(123 if c.get("seed") is None else c["seed"])
    mha = ns["MultiHeadAttention"](d, d, n, 0.0, num_heads=heads)
    full = mha(x)
    got.append(("full", full))
    hd = mha.head_dim

    def diff(name, out):
        got.append((name, out))
        got.append(("(%s - full).abs().max()" % name, (out - full).abs().max()))

    wrapper = ns["Ch03_MHA_Wrapper"](d_in=d, d_out=hd, context_length=n, dropout=0.0, num_heads=heads)
    for h, head in enumerate(wrapper.heads):
        head.W_query.weight.copy_(mha.W_query.weight[h * hd:(h + 1) * hd])
        head.W_key.weight.copy_(mha.W_key.weight[h * hd:(h + 1) * hd])
        head.W_value.weight.copy_(mha.W_value.weight[h * hd:(h + 1) * hd])
    wrapper.out_proj.load_state_dict(mha.out_proj.state_dict())
    for h, head in enumerate(wrapper.heads):
        got.append(("head_outputs[%d]" % h, head(x)))
    diff("out_wrapper", wrapper(x))

    mha_ch03 = ns["Ch03_MHA"](d_in=d, d_out=d, context_length=n, dropout=0.0, num_heads=heads)
    mha_ch03.load_state_dict(mha.state_dict())
    diff("out_ch03", mha_ch03(x))

    combined = ns["MultiHeadAttentionCombinedQKV"](d_in=d, d_out=d, num_heads=heads, context_length=n, dropout=0.0)
    combined.qkv.weight.copy_(torch.cat([mha.W_query.weight, mha.W_key.weight, mha.W_value.weight], dim=0))
    combined.proj.load_state_dict(mha.out_proj.state_dict())
    got.append(("combined.qkv.weight", combined.qkv.weight.detach().clone()))
    qkv = combined.qkv(x).view(b, n, 3, combined.num_heads, combined.head_dim).permute(2, 0, 3, 1, 4)
    queries, keys, values = qkv.unbind(0)
    got += [("qkv", qkv), ("queries", queries), ("keys", keys), ("values", values)]
    diff("out_combined", combined(x))

    einsum = ns["MHAEinsum"](d_in=d, d_out=d, context_length=n, dropout=0.0, num_heads=heads)
    einsum.W_query.copy_(mha.W_query.weight.T)
    einsum.W_key.copy_(mha.W_key.weight.T)
    einsum.W_value.copy_(mha.W_value.weight.T)
    einsum.out_proj.load_state_dict(mha.out_proj.state_dict())
    got.append(("Q", torch.einsum("bnd,do->bno", x, einsum.W_query)))
    diff("out_einsum", einsum(x))

    mha_torch = ns["MHAPyTorchClass"](d_in=d, d_out=d, num_heads=heads, context_length=n, dropout=0.0)
    attn = mha_torch.multihead_attn
    attn.in_proj_weight.copy_(torch.cat([mha.W_query.weight, mha.W_key.weight, mha.W_value.weight], dim=0))
    attn.out_proj.weight.copy_(torch.eye(d))
    mha_torch.proj.load_state_dict(mha.out_proj.state_dict())
    mask = mha_torch.mask[:n, :n]
    attn_output, attn_weights = attn(x, x, x, attn_mask=mask, need_weights=True)
    got += [("mask", mask), ("attn_output", attn_output), ("attn_weights", attn_weights)]
    out_torch = mha_torch(x)
    diff("out_torch", out_torch)
    q, k, v = nn.functional.linear(x.transpose(0, 1), attn.in_proj_weight).chunk(3, dim=-1)
    q = q.contiguous().view(n, b * attn.num_heads, attn.head_dim).transpose(0, 1)
    k = k.contiguous().view(n, b * attn.num_heads, attn.head_dim).transpose(0, 1)
    v = v.contiguous().view(n, b * attn.num_heads, attn.head_dim).transpose(0, 1)
    float_mask = torch.zeros(n, n).masked_fill_(mask, float("-inf"))
    q_scaled = q / math.sqrt(attn.head_dim)
    attn_probs = torch.softmax(torch.baddbmm(float_mask, q_scaled, k.transpose(-2, -1)), dim=-1)
    after = torch.softmax((q @ k.transpose(-2, -1)).masked_fill(mask, -torch.inf) / attn.head_dim**0.5, dim=-1)
    got += [("q", q), ("k", k), ("v", v), ("q_scaled", q_scaled), ("float_mask", float_mask), ("attn_probs", attn_probs),
            ("after", after)]
    mha_torch.need_weights = False
    out_noweights = mha_torch(x)
    got.append(("out_noweights", out_noweights))

    sdpa = ns["MHAPyTorchScaledDotProduct"](d_in=d, d_out=d, num_heads=heads, context_length=n, dropout=0.0)
    sdpa.qkv.load_state_dict(combined.qkv.state_dict())
    sdpa.proj.load_state_dict(combined.proj.state_dict())
    merge = lambda m, ctx: m.proj(ctx.transpose(1, 2).contiguous().view(b, n, m.d_out))  # noqa: E731
    diff("out_sdpa", merge(sdpa, sdpa_math(queries, keys, values, is_causal=True)))
    attn_mask = mask
    got.append(("attn_mask", attn_mask))
    got.append(("out_as_written", merge(sdpa, sdpa_math(queries, keys, values, attn_mask=attn_mask))))
    diff("out_no_flash", merge(sdpa, sdpa_math(queries, keys, values, attn_mask=~attn_mask)))
    block = ns["causal"](None, None, torch.arange(n).unsqueeze(-1), torch.arange(n).unsqueeze(0))
    got.append(("block", block))
    diff("out_flex", merge(sdpa, sdpa_math(queries, keys, values, attn_mask=block)))
    return got


def entry_text(name, t):
    if t.dtype == torch.bool:
        return '{"name": %s, "shape": %s, "dtype": "bool", "data": %s}' % (
            json.dumps(name), json.dumps(list(t.shape)), json.dumps(t.tolist()))
    return tb.entry_text(name, t.contiguous(), inf_strings=True)


def make_case(rng, i):
    width = rng.randint(1, 8)
    rows = [[round(rng.uniform(-1.5, 1.5), rng.choice([1, 2, 3, 4])) for _ in range(width)]
            for _ in range(rng.randint(2, 8))]
    divisors = [h for h in range(1, width + 1) if width % h == 0]
    c = {"num_heads": rng.choice(divisors), "seed": rng.choice([None, 0, 7, -5, 2**40 + 3, 2**64 - 1, rng.randint(1, 10**6)])}
    return {"c": c, "rows": rows, "inputs_file": rows}


def case_argv(case):
    return common.case_argv("mha-forms", [("d_out", len(case["rows"][0])), ("num_heads", case["c"]["num_heads"]),
                                          ("seed", case["c"]["seed"])], joined=("seed",))


REFERENCE = ["full", "attn_weights", "out_wrapper", "out_ch03", "out_combined", "out_einsum", "out_torch", "out_noweights"]


def print_reference():
    version = ".".join(torch.__version__.split(".")[:2])
    got = dict(run_lesson({}, tb.BOOK_ROWS))
    for name in REFERENCE:
        print("=== mha-forms | %s | - | the book's bonus material, ch03/02_bonus_efficient-multihead-attention "
              "(real PyTorch %s) | bonus ch03/02_bonus" % (name, version))
        print(got[name])


def check_bonus(notebook):
    cells = ["".join(c["source"]) for c in json.load(open(notebook, encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
    shown = listings(os.path.join(HERE, "..", "lessons", "mha-forms", "listings.txt"))
    failed = 0
    for name, src in shown.items():
        lines = [ln for ln in src.rstrip("\n").split("\n") if not ln.rstrip().endswith("# added")]
        found = any("\n".join(lines) in cell for cell in cells)
        print(("ok       " if found else "MISMATCH ") + "listing " + name)
        failed += not found
    ns = classes()
    for d_in, d_out, batch, seq_len, num_heads, seed in [(768, 768, 2, 4, 12, 123), (768, 1536, 2, 4, 12, 456),
                                                         (1024, 512, 2, 4, 8, 789)]:
        torch.manual_seed(seed)
        x = torch.randn(batch, seq_len, d_in)
        linear = ns["Ch03_MHA"](d_in=d_in, d_out=d_out, context_length=seq_len, dropout=0.0, num_heads=num_heads,
                                qkv_bias=False).eval()
        einsum = ns["MHAEinsum"](d_in=d_in, d_out=d_out, context_length=seq_len, dropout=0.0, num_heads=num_heads,
                                 qkv_bias=False).eval()
        with torch.no_grad():
            einsum.W_query.copy_(linear.W_query.weight.T)
            einsum.W_key.copy_(linear.W_key.weight.T)
            einsum.W_value.copy_(linear.W_value.weight.T)
            einsum.out_proj.weight.copy_(linear.out_proj.weight)
            einsum.out_proj.bias.copy_(linear.out_proj.bias)
            a, b = linear(x), einsum(x)
        ok = a.shape == b.shape == torch.Size([batch, seq_len, d_out]) and torch.allclose(a, b, atol=1e-5)
        print(("ok       " if ok else "MISMATCH ") + "test_mha_einsum_matches_ch03 %s, max|diff| %g"
              % ((d_in, d_out, batch, seq_len, num_heads, seed), (a - b).abs().max().item()))
        failed += not ok
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common.add_generator_args(ap, 30, "tests/fixtures/mha_forms_pytorch.json", "correct-mha-forms.json", 20261126)
    ap.add_argument("--bonus", help="check the listings against this mha-implementations.ipynb instead")
    args = ap.parse_args()
    torch.set_num_threads(1)
    if args.bonus:
        sys.exit(check_bonus(args.bonus))
    if args.reference:
        print_reference()
        return
    if args.exports:
        got = run_lesson({"seed": 7, "num_heads": 1}, tb.BOOK_ROWS)
        names = ["full", "out_combined", "attn_weights", "out_torch"]
        path = os.path.join(args.exports, "correct-mha-forms.json")
        export([(nm, t) for nm, t in got if nm in names], "mha-forms", path, seed=7, d_out=3, num_heads=1)
        print("wrote %s" % path, file=sys.stderr)
    rng = random.Random(args.rng_seed)
    cases = [{"c": {"num_heads": 3, "seed": None}, "rows": tb.BOOK_ROWS, "inputs_file": None},
             {"c": {"num_heads": 1, "seed": None}, "rows": tb.BOOK_ROWS, "inputs_file": None}]
    cases += [make_case(rng, i) for i in range(args.cases)]
    blocks = []
    for i, case in enumerate(cases):
        case["argv"] = case_argv(case)
        fields = ['"id": %d' % i, '"lesson": "mha-forms"', '"argv": %s' % json.dumps(case["argv"]),
                  tb.inputs_field(case["inputs_file"])]
        blocks.append(tb.case_block(fields, [entry_text(n, t) for n, t in run_lesson(case["c"], case["rows"])]))
    text = ('{"generator": "tools/gen_mha_forms_fixtures.py --cases %d --rng-seed %d",\n'
            ' "torch": %s, "tolerance": 0,\n "cases": [\n%s]}\n'
            % (args.cases, args.rng_seed, json.dumps(torch.__version__), ",\n".join(blocks)))
    tb.write_fixture(args.out, text, "%d cases" % len(cases))


if __name__ == "__main__":
    main()
