#!/usr/bin/python3
"""Learners' exports for `attn-tutor check`, by real PyTorch (1.13): one per known mistake, one correct per lesson,
and the correct programs written another way (way-<name>.json, tools/learner_mistakes.py), which must match.

Each mistake runs the book's code with that one mistake, the way a learner writes it, and exports what
the learner would print with python/export_pytorch.py into tests/fixtures/mistakes/<mistake>.json;
tests/test_check.cpp asserts that `attn-tutor check` names the mistake. The correct-<lesson>.json
exports run the lesson's code as the book (or the seed document) writes it and must pass with exit 0.
Book sizes throughout (six 3-d tokens, d_out 2, two heads).

The one export torch cannot make on this machine is mkl-dropout: the Intel-MKL bernoulli path does not
exist in this build, so that learner's nn.Dropout runs the independent MKL model of
tools/gen_chapter_fixtures.py (one draw from torch's generator seeds MCG31m1); the rest is torch.

Regenerate (needs torch and numpy; deterministic):
    /usr/bin/python3 tools/gen_mistake_fixtures.py [--out tests/fixtures/mistakes]
"""
import argparse
import os
import sys
from unittest import mock

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_mkl as mkl  # noqa: E402  (the MKL model)
import gen_course_fixtures as course  # noqa: E402
import gen_d2l_fixtures as d2l  # noqa: E402
import learner_mistakes  # noqa: E402
import learner_mistakes_cache  # noqa: E402  (after the chapter: the KV cache, sliding windows, settings)
import learner_mistakes_bonus  # noqa: E402  (after the chapter: grouped-query, latent, split heads; two of the chapter)
import learner_mistakes_masks  # noqa: E402  (the mask filled with 0 or +inf, added; the scaling after softmax)
import torch_book as tb  # noqa: E402
import common  # noqa: E402  (export_all: the learners' exporter)
import program_diffs  # noqa: E402  (book_text: the book's code as it stands in book_listings.py)
from torch_book import CausalAttention, MultiHeadAttention, MultiHeadAttentionWrapper, SelfAttention_v2  # noqa: E402

torch.set_grad_enabled(False)


def book_inputs():
    return torch.tensor(tb.BOOK_ROWS)


def causal_setup(inputs=None, d_out=2):
    """§3.5.1's first cells: SelfAttention_v2 (seed 789), its queries, keys, values and scores."""
    inputs = book_inputs() if inputs is None else inputs
    torch.manual_seed(789)
    sa_v2 = SelfAttention_v2(inputs.shape[1], d_out)
    queries = sa_v2.W_query(inputs)
    keys = sa_v2.W_key(inputs)
    values = sa_v2.W_value(inputs)
    return inputs, queries, keys, values, queries @ keys.T


def dropout_cells(dropout):
    """§3.5.2's cells: the weights masked with -inf (causal_setup's scores), then dropout on ones and on
    them, each after torch.manual_seed(123); the four tensors by name."""
    inputs, queries, keys, values, attn_scores = causal_setup()
    mask = torch.triu(torch.ones(6, 6), diagonal=1)
    attn_weights = torch.softmax(attn_scores.masked_fill(mask.bool(), -torch.inf) / keys.shape[-1]**0.5, dim=1)
    torch.manual_seed(123)
    example = torch.ones(6, 6)
    dropped_example = dropout(example)
    torch.manual_seed(123)
    return {"attn_weights": attn_weights, "example": example, "dropout(example)": dropped_example,
            "dropout(attn_weights)": dropout(attn_weights)}


# ---- the mistakes -------------------------------------------------------------------------------------

def softmax_dim():
    """CausalAttention with §3.5.1's dim=1 kept after the batch dimension came first: the book's forward, its
    torch.softmax(..., dim=-1) taking dim=1."""
    batch = tb.book_batch()
    torch.manual_seed(123)
    ca = CausalAttention(3, 2, batch.shape[1], 0.0)
    ca.trace = s = {}
    softmax = torch.softmax
    with mock.patch.object(torch, "softmax", lambda x, dim: softmax(x, dim=1)):  # the mistake
        context_vecs = ca(batch)
    return "dropout", {"batch": batch, "keys": s["keys"], "queries": s["queries"], "attn_scores": s["attn_scores"],
                       "attn_weights": s["attn_weights"], "context_vecs": context_vecs}, {}


def no_scaling():
    """§3.4.1 step by step, softmax straight on the scores."""
    query_2, keys, values, attn_scores_2 = learner_mistakes_masks.section_341()
    attn_weights_2 = torch.softmax(attn_scores_2, dim=-1)  # the mistake: no / d_k**0.5
    context_vec_2 = attn_weights_2 @ values
    return "trainable", {"query_2": query_2, "keys": keys, "values": values, "attn_scores_2": attn_scores_2,
                         "attn_weights_2": attn_weights_2, "context_vec_2": context_vec_2}, {}


def triu_diagonal():
    """§3.5.1's -inf mask built with torch.triu(...) and no diagonal=1."""
    inputs, queries, keys, values, attn_scores = causal_setup()
    context_length = attn_scores.shape[0]
    mask = torch.triu(torch.ones(context_length, context_length))  # the mistake
    masked = attn_scores.masked_fill(mask.bool(), -torch.inf)
    attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=1)
    context_vec = attn_weights @ values
    return "causal-mask", {"queries": queries, "keys": keys, "attn_scores": attn_scores, "mask": mask,
                           "masked": masked, "attn_weights": attn_weights, "context_vec": context_vec}, {}


def mask_after_softmax():
    """§3.5.1's simple mask, without the renormalising step."""
    inputs, queries, keys, values, attn_scores = causal_setup()
    attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=1)
    context_length = attn_scores.shape[0]
    mask_simple = torch.tril(torch.ones(context_length, context_length))
    attn_weights = attn_weights * mask_simple  # the mistake: no division by the row sums
    context_vec = attn_weights @ values
    return "causal-mask", {"attn_scores": attn_scores, "mask_simple": mask_simple, "attn_weights": attn_weights,
                           "context_vec": context_vec}, {}


def dropout_scale():
    """A hand-written dropout (the same mask as nn.Dropout's) scaled by 1/p, with p = 0.2."""
    p = 0.2

    def my_dropout(x):
        mask = torch.empty_like(x).bernoulli_(1 - p)
        return x * mask / p  # the mistake: 1/p instead of 1/(1 - p)

    return "dropout", dropout_cells(my_dropout), {"dropout": p}


def head_order():
    """The wrapper's forward concatenating the heads last to first."""
    class MyWrapper(MultiHeadAttentionWrapper):
        def forward(self, x):
            return torch.cat([head(x) for head in reversed(self.heads)], dim=-1)  # the mistake

    batch = tb.book_batch()
    torch.manual_seed(123)
    mha = MyWrapper(3, 2, batch.shape[1], 0.0, num_heads=2)
    return "wrapper", {"batch": batch, "context_vecs": mha(batch)}, {}


def view_no_transpose():
    """MultiHeadAttention splitting the heads with one view, no transpose(1, 2)."""
    class MyMultiHeadAttention(MultiHeadAttention):
        def forward(self, x):
            b, num_tokens, d_in = x.shape
            keys = self.W_key(x).view(b, self.num_heads, num_tokens, self.head_dim)  # the mistake (three times)
            queries = self.W_query(x).view(b, self.num_heads, num_tokens, self.head_dim)
            values = self.W_value(x).view(b, self.num_heads, num_tokens, self.head_dim)
            attn_scores = queries @ keys.transpose(2, 3)
            attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
            attn_weights = self.dropout(torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1))
            self.seen = attn_weights
            context_vec = (attn_weights @ values).transpose(1, 2)
            return self.out_proj(context_vec.contiguous().view(b, num_tokens, self.d_out))

    batch = tb.book_batch()
    torch.manual_seed(123)
    mha = MyMultiHeadAttention(3, 2, batch.shape[1], 0.0, num_heads=2)
    context_vecs = mha(batch)
    return "mha", {"batch": batch, "attn_weights": mha.seen, "context_vecs": context_vecs}, {}


def missing_reseed():
    """§3.5.3's CausalAttention cell, then the wrapper built without torch.manual_seed."""
    batch = tb.book_batch()
    torch.manual_seed(123)
    ca = CausalAttention(3, 2, batch.shape[1], 0.0)
    ca(batch)
    mha = MultiHeadAttentionWrapper(3, 2, batch.shape[1], 0.0, num_heads=2)  # the mistake: no re-seed
    return "wrapper", {"batch": batch, "context_vecs": mha(batch)}, {}


def mkl_dropout():
    """The book's dropout cells on an Intel CPU with PyTorch <= 2.6 (the MKL model; see the docstring)."""
    with mkl.bernoulli_path("mkl"):
        cells = dropout_cells(torch.nn.Dropout(0.5))
    return "dropout", {name: t for name, t in cells.items() if name != "example"}, {}


# A reader's run on Intel/Windows: the book's CausalAttention typed with `attn_socres` for the scores, so the
# forward masks and weighs the global `attn_scores` of their In [32] (the namespace's, set by stale_scores),
# and the book's wrapper with heads of that class. Their other renamings (query for W_query, ...) change no value.
READER = {"torch": torch, "nn": nn, "attn_scores": None}
exec(compile(program_diffs.book_text("CausalAttention").replace(
    "        attn_scores = queries @ keys.transpose(1, 2)\n",
    "        attn_socres = queries @ keys.transpose(1, 2)  # the typo\n") + program_diffs.book_text(
    "MultiHeadAttentionWrapper"), "the reader's In [41] and In [44]", "exec"), READER)


IN_45 = [[0.4772, 0.1063, 0.4566, 0.2729], [0.5668, 0.2819, 0.5771, 0.3006], [0.6008, 0.3481, 0.6229, 0.3097],
         [0.5462, 0.3445, 0.5722, 0.2806], [0.5318, 0.3359, 0.5591, 0.2553], [0.5093, 0.3362, 0.5375, 0.2530]]


def stale_scores():
    """A reader's run on Intel/Windows (§3.5.3-3.6.1): attn_socres leaves the global attn_scores in use; no re-seed before the wrapper."""
    inputs, queries, keys, values, READER["attn_scores"] = causal_setup()  # In [32]
    assert "attn_socres" in READER["CausalAttention"].forward.__code__.co_varnames  # the typo applied
    batch = torch.stack((inputs, inputs), dim=0)                # In [40]
    torch.manual_seed(123)                                      # In [42]
    ca = READER["CausalAttention"](3, 2, batch.shape[1], 0.0)
    ca(batch)
    mha = READER["MultiHeadAttentionWrapper"](3, 2, batch.shape[1], 0.0, num_heads=2)  # In [45]
    context_vecs = mha(batch)
    got = [[round(v, 4) for v in row] for row in context_vecs[0].tolist()]
    assert got == IN_45 and torch.equal(context_vecs[0], context_vecs[1]), got  # exactly the notebook's print
    return "wrapper", {"context_vecs": context_vecs}, {}


MISTAKES = {
    "softmax-dim": softmax_dim,
    "no-scaling": no_scaling,
    "triu-diagonal": triu_diagonal,
    "mask-after-softmax": mask_after_softmax,
    "dropout-scale": dropout_scale,
    "head-order": head_order,
    "view-no-transpose": view_no_transpose,
    "missing-reseed": missing_reseed,
    "mkl-dropout": mkl_dropout,
    "stale-scores": stale_scores,
    **learner_mistakes.MISTAKES,
    **learner_mistakes_bonus.MISTAKES,
    **learner_mistakes_masks.MISTAKES,
}


# ---- correct exports, one per lesson (some with the lesson's options) ------------------------------------

def correct_naive_scores():
    inputs = book_inputs()
    query = inputs[1]
    attn_scores_2 = torch.empty(inputs.shape[0])
    for i, x_i in enumerate(inputs):
        attn_scores_2[i] = torch.dot(x_i, query)
    return "naive-scores", {"query": query, "attn_scores_2": attn_scores_2, "attn_scores": inputs @ inputs.T}, {}


def correct_softmax():
    """On the learner's own embeddings (config.inputs_data)."""
    inputs = torch.tensor([[0.1, 0.9, -0.3, 0.5], [0.7, 0.2, 0.4, -0.1], [0.3, 0.3, 0.8, 0.6]])
    attn_scores = inputs @ inputs.T
    attn_weights = torch.softmax(attn_scores, dim=-1)
    return "softmax", {"attn_scores": attn_scores, "attn_weights": attn_weights,
                       "all_context_vecs": attn_weights @ inputs}, \
        {"inputs": inputs, "tokens": ["tiny", "toy", "text"]}


def correct_trainable():
    """The reader's run (on Intel/Windows, §3.4.1): torch.randn weights after torch.manual_seed(42)."""
    inputs = book_inputs()
    torch.manual_seed(42)
    W_query = torch.nn.Parameter(torch.randn(3, 2), requires_grad=False)
    W_key = torch.nn.Parameter(torch.randn(3, 2), requires_grad=False)
    W_value = torch.nn.Parameter(torch.randn(3, 2), requires_grad=False)
    query_2 = inputs[1] @ W_query
    keys = inputs @ W_key
    values = inputs @ W_value
    attn_weights_2 = torch.softmax(query_2 @ keys.T / keys.shape[-1]**0.5, dim=-1)
    torch.manual_seed(42)
    sa_v2 = SelfAttention_v2(3, 2)
    return "trainable", {"W_query": W_query, "keys": keys, "attn_weights_2": attn_weights_2,
                         "context_vec_2": attn_weights_2 @ values, "sa_v2(inputs)": sa_v2(inputs)}, \
        {"seed": 42, "init": "randn"}


def correct_causal_mask():
    inputs, queries, keys, values, attn_scores = causal_setup()
    mask = torch.triu(torch.ones(6, 6), diagonal=1)
    masked = attn_scores.masked_fill(mask.bool(), -torch.inf)
    attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=1)
    return "causal-mask", {"attn_scores": attn_scores, "mask": mask, "masked": masked, "attn_weights": attn_weights,
                           "context_vec": attn_weights @ values}, {}


def correct_dropout():
    inputs, queries, keys, values, attn_scores = causal_setup()
    mask = torch.triu(torch.ones(6, 6), diagonal=1)
    attn_weights = torch.softmax(attn_scores.masked_fill(mask.bool(), -torch.inf) / keys.shape[-1]**0.5, dim=1)
    torch.manual_seed(123)
    dropout = torch.nn.Dropout(0.2)
    dropped = dropout(attn_weights)
    batch = torch.stack((inputs, inputs), dim=0)
    torch.manual_seed(123)
    ca = CausalAttention(3, 2, batch.shape[1], 0.0)
    return "dropout", {"attn_weights": attn_weights, "dropout(attn_weights)": dropped, "context_vecs": ca(batch)}, \
        {"dropout": 0.2}


def correct_wrapper():
    batch = tb.book_batch()
    torch.manual_seed(123)
    mha = MultiHeadAttentionWrapper(3, 2, batch.shape[1], 0.0, num_heads=2)
    return "wrapper", {"batch": batch, "context_vecs": mha(batch)}, {}


def correct_mha():
    """Another seed, four output features, bias and dropout."""
    batch = tb.book_batch()
    torch.manual_seed(-5)
    mha = MultiHeadAttention(3, 4, batch.shape[1], 0.3, num_heads=2, qkv_bias=True)
    mha.trace = {}
    context_vecs = mha(batch)
    return "mha", {"attn_weights": mha.trace["attn_weights"], "context_vecs": context_vecs}, \
        {"seed": -5, "d_out": 4, "num_heads": 2, "dropout": 0.3, "qkv_bias": True}


def correct_course_mha():
    case = {"preset": "small", "seed": None, "dropout": None, "bernoulli": "default", "rows": tb.BOOK_ROWS,
            "inputs_file": None, "tokens": None, "d_model": None, "num_heads": None, "d_model_flag": False,
            "context_length": None}
    got = {}
    for name, t, _, _ in course.run_book(case):
        if name in ("head_outputs", "out", "self.projection_layer.weight"):
            got[name] = t  # "out": the last one, after the course's dropout
    return "course-mha", got, {}


def correct_d2l_mha():
    case = dict(seed=None, num_heads=None, num_hiddens=None, valid_lens=None, dropout=None, qkv_bias=False,
                rows=None, tokens=None, d_in=3)
    got = {}
    for name, t, _, _ in d2l.run_case(case):
        if name in ("attention(X, Y, Y, valid_lens)", "self.attention_weights", "X_final"):
            got[name] = t
    return "d2l-mha", got, {}


CORRECT = {
    "naive-scores": correct_naive_scores,
    "softmax": correct_softmax,
    "trainable": correct_trainable,
    "causal-mask": correct_causal_mask,
    "dropout": correct_dropout,
    "wrapper": correct_wrapper,
    "mha": correct_mha,
    "course-mha": correct_course_mha,
    "d2l-mha": correct_d2l_mha,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                                  "fixtures", "mistakes"))
    args = ap.parse_args()
    mkl.self_check_mkl()
    jobs = [(name, make) for name, make in MISTAKES.items()] + \
        [("correct-" + name, make) for name, make in CORRECT.items()] + \
        [("way-" + name, make) for name, make in learner_mistakes.WAYS.items()] + \
        list(learner_mistakes.EXTRA.items()) + learner_mistakes_cache.jobs()
    common.export_all(jobs, args.out)


if __name__ == "__main__":
    main()
