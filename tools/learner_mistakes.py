"""The mistakes of issue 12 and the correct-but-different ways, as learners write them, for
tools/gen_mistake_fixtures.py (which exports each into tests/fixtures/mistakes/). Real PyTorch 1.13.

Each function returns (lesson, tensors, config): the learner's tensors in the order their program
computed them (a dict, or a list of (name, tensor) pairs) and the settings they export with.
"""
import contextlib
import math
from unittest import mock

import torch
import torch.nn as nn
import torch.nn.functional as F

import torch_d2l as d2l
import torch_book as tb
from torch_book import CausalAttention, MultiHeadAttention, MultiHeadAttentionWrapper, SelfAttention_v2


def causal_setup():
    """§3.5.1: SelfAttention_v2 (seed 789), keys, scores, the masked weights."""
    inputs = torch.tensor(tb.BOOK_ROWS)
    torch.manual_seed(789)
    sa_v2 = SelfAttention_v2(3, 2)
    queries, keys, values = sa_v2.W_query(inputs), sa_v2.W_key(inputs), sa_v2.W_value(inputs)
    attn_scores = queries @ keys.T
    mask = torch.triu(torch.ones(6, 6), diagonal=1)
    masked = attn_scores.masked_fill(mask.bool(), -torch.inf)
    return inputs, keys, values, attn_scores, mask, masked, torch.softmax(masked / keys.shape[-1]**0.5, dim=1)


class MHA(MultiHeadAttention):
    """The book's MultiHeadAttention with a learner's forward: `step` may vary one line."""
    def __init__(self, *args, step=None, key_first=False, **kwargs):
        if key_first:  # W_key created before W_query: the draws change hands
            nn.Module.__init__(self)
            d_in, d_out, context_length, dropout = args[:4]
            self.d_out, self.num_heads = d_out, kwargs["num_heads"]
            self.head_dim = d_out // self.num_heads
            for name in ("W_key", "W_query", "W_value"):
                setattr(self, name, nn.Linear(d_in, d_out, bias=False))
            self.out_proj, self.dropout = nn.Linear(d_out, d_out), nn.Dropout(dropout)
            self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1))
        else:
            super().__init__(*args, **kwargs)
        self.step, self.seen = step, {}

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        split = (b, num_tokens, self.num_heads, self.head_dim)
        keys = self.W_key(x).view(*split).transpose(1, 2)
        queries = self.W_query(x).view(*split).transpose(1, 2)
        values = self.W_value(x).view(*split).transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3)
        if self.step == "mask-discarded":
            attn_scores.masked_fill(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)  # the mistake
        elif self.step == "mask-added":
            attn_scores = attn_scores + self.mask[:num_tokens, :num_tokens]  # the mistake
        else:
            attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        if self.step == "dropout-on-scores":
            attn_scores = self.dropout(attn_scores)  # the mistake
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        self.seen["attn_weights_before_dropout"] = attn_weights
        if self.step != "dropout-on-scores":
            attn_weights = self.dropout(attn_weights)
        self.seen.update(keys=keys, attn_scores=attn_scores, attn_weights=attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)
        if self.step == "reshape":  # correct: reshape copies when it must
            context_vec = context_vec.reshape(b, num_tokens, self.d_out)
        else:
            context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return context_vec if self.step == "no-out-proj" else self.out_proj(context_vec)


def mha_run(step=None, d_out=2, dropout=0.0, key_first=False, eval_mode=False):
    torch.manual_seed(123)
    mha = MHA(3, d_out, 6, dropout, num_heads=2, step=step, key_first=key_first)
    if eval_mode:
        mha.eval()
    return mha, mha(tb.book_batch())


def linear_order():
    mha, context_vecs = mha_run(key_first=True)
    return "mha", {"keys": mha.seen["keys"], "context_vecs": context_vecs}, {}


def no_out_proj():
    mha, context_vecs = mha_run(step="no-out-proj")
    return "mha", {"attn_weights": mha.seen["attn_weights"], "context_vecs": context_vecs}, {}


def mask_discarded():
    mha, context_vecs = mha_run(step="mask-discarded")
    s = mha.seen
    return "mha", {"attn_scores": s["attn_scores"], "attn_weights": s["attn_weights"], "context_vecs": context_vecs}, {}


def dropout_on_scores():
    mha, context_vecs = mha_run(step="dropout-on-scores", dropout=0.2)
    return "mha", {"context_vecs": context_vecs}, {"dropout": 0.2}


def eval_mode():
    mha, context_vecs = mha_run(d_out=4, dropout=0.3, eval_mode=True)
    return "mha", {"attn_weights": mha.seen["attn_weights"], "context_vecs": context_vecs}, {"d_out": 4, "dropout": 0.3}


def export_settings():
    mha, context_vecs = mha_run(d_out=4)
    return "mha", {"context_vecs": context_vecs}, {}  # the mistake: d_out=4 not passed


def init_draw():
    inputs = torch.tensor(tb.BOOK_ROWS)
    torch.manual_seed(123)
    W_query = torch.nn.Parameter(torch.randn(3, 2), requires_grad=False)  # randn, but init="randn" not exported
    W_key = torch.nn.Parameter(torch.randn(3, 2), requires_grad=False)
    W_value = torch.nn.Parameter(torch.randn(3, 2), requires_grad=False)
    keys, values = inputs @ W_key, inputs @ W_value
    attn_weights_2 = torch.softmax(inputs[1] @ W_query @ keys.T / keys.shape[-1]**0.5, dim=-1)
    return "trainable", {"W_query": W_query, "keys": keys, "attn_weights_2": attn_weights_2,
                         "context_vec_2": attn_weights_2 @ values}, {}


def wrong_scale():
    """CausalAttention dividing by d_k itself."""
    class Mine(CausalAttention):
        def forward(self, x):
            b, num_tokens, d_in = x.shape
            keys, queries, values = self.W_key(x), self.W_query(x), self.W_value(x)
            attn_scores = queries @ keys.transpose(1, 2)
            attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
            d_k = keys.shape[-1]
            self.attn_weights = self.dropout(torch.softmax(attn_scores / d_k, dim=-1))  # the mistake
            return self.attn_weights @ values
    torch.manual_seed(123)
    ca = Mine(3, 2, 6, 0.0)
    context_vecs = ca(tb.book_batch())
    return "dropout", {"attn_weights": ca.attn_weights, "context_vecs": context_vecs}, {}


def tril_mask():
    class Mine(CausalAttention):
        def __init__(self, *args):
            super().__init__(*args)
            self.register_buffer('mask', torch.tril(torch.ones(6, 6)))  # the mistake
    torch.manual_seed(123)
    ca = Mine(3, 2, 6, 0.0)
    ca.trace = {}
    context_vecs = ca(tb.book_batch())
    return "dropout", {"attn_weights": ca.trace["attn_weights"], "context_vecs": context_vecs}, {}


def dropout_reseed():
    inputs, keys, values, attn_scores, mask, masked, attn_weights = causal_setup()
    torch.manual_seed(123)
    dropout = torch.nn.Dropout(0.5)
    first = dropout(torch.ones(6, 6))
    second = dropout(attn_weights)  # the mistake: no torch.manual_seed(123) before it
    return "dropout", {"attn_weights": attn_weights, "dropout(example)": first, "dropout(attn_weights)": second}, {}


def d2l_dropout(x, p, scale):
    mask = (torch.rand(x.shape) > p).float()
    return mask * x / scale


def rand_dropout():
    """d2l's dropout_layer, right formula: another random stream than nn.Dropout's."""
    attn_weights = causal_setup()[-1]
    torch.manual_seed(123)
    return "dropout", {"attn_weights": attn_weights, "dropout(attn_weights)": d2l_dropout(attn_weights, 0.5, 1.0 - 0.5)}, {}


def dropout_scale_rand():
    """d2l-style dropout divided by p (p = 0.2)."""
    attn_weights = causal_setup()[-1]
    torch.manual_seed(123)
    return "dropout", {"attn_weights": attn_weights, "dropout(attn_weights)": d2l_dropout(attn_weights, 0.2, 0.2)}, \
        {"dropout": 0.2}


def d2l_run(repeat=False, functional=False):
    """d2l.ai §11.5's run (seed 123, eval) with the learner's change in MultiHeadAttention or its attention."""
    class Attention(d2l.DotProductAttention):
        def forward(self, queries, keys, values, valid_lens=None):
            d = queries.shape[-1]
            scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
            self.attention_weights = d2l.masked_softmax(scores, valid_lens)
            self.scores = scores  # taken after masked_softmax: masked in place (correct)
            dropped = F.dropout(self.attention_weights, 0.5) if functional else self.dropout(self.attention_weights)
            return torch.bmm(dropped, values)

    class Mine(d2l.MultiHeadAttention):
        def forward(self, queries, keys, values, valid_lens):
            queries = d2l.transpose_qkv(self.W_q(queries), self.num_heads)
            keys = d2l.transpose_qkv(self.W_k(keys), self.num_heads)
            values = d2l.transpose_qkv(self.W_v(values), self.num_heads)
            if valid_lens is not None:
                valid_lens = valid_lens.repeat(self.num_heads) if repeat else \
                    torch.repeat_interleave(valid_lens, repeats=self.num_heads, dim=0)
            output = self.attention(queries, keys, values, valid_lens)
            return self.W_o(d2l.transpose_output(output, self.num_heads))

    torch.manual_seed(123)
    attention = Mine(100, 100, 100, 100, 5, 0.5)
    attention.attention = Attention(0.5)
    attention.eval()
    X, Y = torch.ones((2, 4, 100)), torch.ones((2, 6, 100))
    out = attention(X, Y, Y, torch.tensor([3, 2]))
    return attention.attention, out


def repeat_valid_lens():
    att, out = d2l_run(repeat=True)
    return "d2l-mha", {"self.attention_weights": att.attention_weights, "attention(X, Y, Y, valid_lens)": out}, {}


def functional_dropout():
    att, out = d2l_run(functional=True)
    return "d2l-mha", {"self.attention_weights": att.attention_weights, "attention(X, Y, Y, valid_lens)": out}, {}


MISTAKES = {
    "linear-order": linear_order, "no-out-proj": no_out_proj, "mask-discarded": mask_discarded,
    "dropout-on-scores": dropout_on_scores, "eval-mode": eval_mode, "export-settings": export_settings,
    "init-draw": init_draw, "wrong-scale": wrong_scale, "tril-mask": tril_mask, "dropout-reseed": dropout_reseed,
    "rand-dropout": rand_dropout, "repeat-valid-lens": repeat_valid_lens, "functional-dropout": functional_dropout,
    "dropout-scale-rand": dropout_scale_rand,  # a second fixture of dropout-scale: d2l's torch.rand mask
}


# ---- correct programs written another way: they must match (tests/fixtures/mistakes/way-*.json) ----------

def way_inplace_softmax():
    """d2l's masked_softmax writes -1e6 into the scores in place; scores exported after the call."""
    att, out = d2l_run()
    return "d2l-mha", {"scores": att.scores, "self.attention_weights": att.attention_weights,
                       "attention(X, Y, Y, valid_lens)": out}, {}


def way_before_dropout():
    """attn_weights saved before dropout (as d2l keeps self.attention_weights), dropout 0.1."""
    mha, context_vecs = mha_run(d_out=4, dropout=0.1)
    return "mha", {"attn_weights": mha.seen["attn_weights_before_dropout"], "context_vecs": context_vecs}, \
        {"d_out": 4, "dropout": 0.1}


def way_reshape():
    mha, context_vecs = mha_run(step="reshape")
    return "mha", {"keys": mha.seen["keys"], "attn_scores": mha.seen["attn_scores"], "context_vecs": context_vecs}, {}


def way_tril_eq0():
    """CausalAttention with the course's tril buffer, filled where it is 0."""
    class Mine(CausalAttention):
        def __init__(self, *args):
            super().__init__(*args)
            self.register_buffer('mask', torch.tril(torch.ones(6, 6)))

        def forward(self, x):
            b, T, _ = x.shape
            keys, queries, values = self.W_key(x), self.W_query(x), self.W_value(x)
            attn_scores = (queries @ keys.transpose(1, 2)).masked_fill(self.mask[:T, :T] == 0, float('-inf'))
            self.attn_scores = attn_scores
            return self.dropout(torch.softmax(attn_scores / math.sqrt(keys.shape[-1]), dim=-1)) @ values
    torch.manual_seed(123)
    ca = Mine(3, 2, 6, 0.0)
    context_vecs = ca(tb.book_batch())
    return "dropout", {"attn_scores": ca.attn_scores, "context_vecs": context_vecs}, {}


def way_both_attn_weights():
    """§3.5.1 in a notebook: attn_weights before and after the mask, as a list of pairs."""
    inputs, keys, values, attn_scores, mask, masked, attn_weights = causal_setup()
    unmasked = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=1)
    return "causal-mask", [("attn_scores", attn_scores), ("attn_weights", unmasked), ("mask", mask),
                           ("masked", masked), ("attn_weights", attn_weights), ("context_vec", attn_weights @ values)], {}


@contextlib.contextmanager
def other_generator(offset=1000):
    """nn.Dropout as another generator draws it (a GPU's, Apple's MPS): the same rule, each entry kept with
    probability 1 - p and scaled by 1/(1 - p), from another stream (a torch.Generator seeded `offset` past the
    seed). torch.manual_seed restarts it, as it restarts a GPU's generator."""
    seed = torch.manual_seed
    stream = [torch.Generator().manual_seed(torch.initial_seed() + offset)]

    def manual_seed(s):
        stream[0] = torch.Generator().manual_seed(int(s) + offset)
        return seed(s)

    def forward(self, x):
        if not self.training or self.p == 0:
            return x
        keep = torch.bernoulli(torch.full_like(x, 1 - self.p), generator=stream[0])
        return x * (keep / (1 - self.p))

    with mock.patch.object(torch, "manual_seed", manual_seed), mock.patch.object(nn.Dropout, "forward", forward):
        yield


def way_other_generator():
    """§3.5.2's cells on a GPU: both dropouts (after torch.manual_seed(123) each) with another generator's mask."""
    with other_generator():
        inputs, keys, values, attn_scores, mask, masked, attn_weights = causal_setup()
        dropout = nn.Dropout(0.5)
        torch.manual_seed(123)
        example = torch.ones(6, 6)
        dropped_example = dropout(example)
        torch.manual_seed(123)
        dropped = dropout(attn_weights)
    return "dropout", {"attn_weights": attn_weights, "dropout(example)": dropped_example,
                       "dropout(attn_weights)": dropped}, {}


def way_other_generator_mha():
    """MultiHeadAttention with dropout 0.5 on a GPU: the weights after dropout, and the context vectors they give."""
    with other_generator():
        mha, context_vecs = mha_run(d_out=4, dropout=0.5)
    return "mha", {"attn_weights": mha.seen["attn_weights"], "context_vecs": context_vecs}, {"d_out": 4, "dropout": 0.5}


def way_mask_visible():
    """§3.5.1 with a mask of the other polarity, True where a key may be seen, and torch.where(mask, s, -inf)."""
    inputs, keys, values, attn_scores, mask, masked, attn_weights = causal_setup()
    visible = torch.tril(torch.ones(6, 6)).bool()
    masked = torch.where(visible, attn_scores, torch.tensor(float("-inf")))
    return "causal-mask", {"attn_scores": attn_scores, "mask": visible, "masked": masked,
                           "attn_weights": torch.softmax(masked / keys.shape[-1]**0.5, dim=1)}, {}


def way_finfo_min():
    """§3.5.1 masked with torch.finfo(torch.float32).min instead of -inf: the same weights."""
    inputs, keys, values, attn_scores, mask, masked, attn_weights = causal_setup()
    masked = attn_scores.masked_fill(mask.bool(), torch.finfo(torch.float32).min)
    return "causal-mask", {"mask": mask, "masked": masked,
                           "attn_weights": torch.softmax(masked / keys.shape[-1]**0.5, dim=1)}, {}


def way_other_generator_outputs():
    """The same module on a GPU, only its output exported: check cannot tell its masks from a mistake."""
    with other_generator():
        mha, context_vecs = mha_run(d_out=4, dropout=0.5)
    return "mha", {"context_vecs": context_vecs}, {"d_out": 4, "dropout": 0.5}


def no_out_proj_other_generator():
    """out_proj never applied, on a GPU: the mistake named under the learner's own dropout masks."""
    with other_generator():
        mha, context_vecs = mha_run(d_out=4, dropout=0.5, step="no-out-proj")
    return "mha", {"attn_weights": mha.seen["attn_weights"], "context_vecs": context_vecs}, {"d_out": 4, "dropout": 0.5}


def copy_paste_queries():
    """§3.5.1 with the layers in the book's order and queries = W_key(inputs): no known mistake (the layers in
    another order would change the keys too, which match)."""
    inputs = torch.tensor(tb.BOOK_ROWS)
    torch.manual_seed(789)
    sa_v2 = SelfAttention_v2(3, 2)
    queries, keys = sa_v2.W_key(inputs), sa_v2.W_key(inputs)  # the slip
    attn_scores = queries @ keys.T
    return "causal-mask", {"queries": queries, "keys": keys, "attn_scores": attn_scores}, {}


# Exports that tests read besides the ways: a mistake under another generator's masks
# (tests/test_check_own_masks.cpp), a slip no known mistake explains (tests/test_check.cpp).
EXTRA = {"no-out-proj-other-generator": no_out_proj_other_generator, "copy-paste-queries": copy_paste_queries}

WAYS = {"inplace-softmax": way_inplace_softmax, "before-dropout": way_before_dropout, "reshape": way_reshape,
        "tril-eq0": way_tril_eq0, "both-attn-weights": way_both_attn_weights, "other-generator": way_other_generator,
        "other-generator-mha": way_other_generator_mha, "other-generator-outputs": way_other_generator_outputs,
        "mask-visible": way_mask_visible, "finfo-min": way_finfo_min}
