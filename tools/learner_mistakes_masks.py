"""The masking and scaling mistakes of issue 37 (item 8), as learners write them, for
tools/gen_mistake_fixtures.py (which exports each into tests/fixtures/mistakes/). Real PyTorch 1.13.

Each function returns (lesson, tensors, config) as in tools/learner_mistakes.py. Not here: a boolean triu
mask handed to F.scaled_dot_product_attention as attn_mask (SDPA attends where it is True). That function
is PyTorch 2.0's, not 1.13's; its numbers are those of the tril-mask fixture (the past and the token itself
hidden), which that diagnosis's explanation names.
"""
import torch
import torch.nn as nn

import learner_mistakes
import torch_book as tb
from torch_book import CausalAttention


def section_351(fill):
    """§3.5.1 as the book writes it, the masked_fill value `fill` (the book's -torch.inf)."""
    inputs = torch.tensor(tb.BOOK_ROWS)
    torch.manual_seed(789)
    W = [nn.Linear(3, 2, bias=False) for _ in range(3)]  # SelfAttention_v2's three layers, in its order
    queries, keys = W[0](inputs), W[1](inputs)
    attn_scores = queries @ keys.T
    context_length = attn_scores.shape[0]
    mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)
    masked = attn_scores.masked_fill(mask.bool(), fill)
    attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=1)
    return {"attn_scores": attn_scores, "mask": mask, "masked": masked, "attn_weights": attn_weights}


def mask_fill_zero():
    """§3.5.1 with the mask filled with 0: `masked_fill(mask.bool(), 0)`."""
    return "causal-mask", section_351(0), {}


def mask_added():
    """The book's MultiHeadAttention adding its 0/1 mask buffer to the scores."""
    mha, context_vecs = learner_mistakes.mha_run(step="mask-added")
    return "mha", {"attn_weights": mha.seen["attn_weights"], "context_vecs": context_vecs}, {}


class PlusInf(CausalAttention):
    """The book's CausalAttention with torch.inf where -torch.inf belongs."""
    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys, queries, values = self.W_key(x), self.W_query(x), self.W_value(x)
        attn_scores = queries @ keys.transpose(1, 2)
        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], torch.inf)  # the mistake
        self.attn_weights = self.dropout(torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1))
        return self.attn_weights @ values


def mask_plus_inf():
    torch.manual_seed(123)
    ca = PlusInf(3, 2, 6, 0.0)
    context_vecs = ca(tb.book_batch())
    return "dropout", {"attn_weights": ca.attn_weights, "context_vecs": context_vecs}, {}


def section_341():
    """§3.4.1 step by step up to the scores: query_2, keys, values, attn_scores_2 (seed 123, torch.rand weights)."""
    inputs = torch.tensor(tb.BOOK_ROWS)
    x_2 = inputs[1]
    torch.manual_seed(123)
    W_query = torch.nn.Parameter(torch.rand(3, 2), requires_grad=False)
    W_key = torch.nn.Parameter(torch.rand(3, 2), requires_grad=False)
    W_value = torch.nn.Parameter(torch.rand(3, 2), requires_grad=False)
    query_2 = x_2 @ W_query
    keys, values = inputs @ W_key, inputs @ W_value
    return query_2, keys, values, query_2 @ keys.T


def scale_after_softmax():
    """§3.4.1 with the division by d_k**0.5 after softmax."""
    query_2, keys, values, attn_scores_2 = section_341()
    d_k = keys.shape[-1]
    attn_weights_2 = torch.softmax(attn_scores_2, dim=-1) / d_k**0.5  # the mistake
    return "trainable", {"keys": keys, "attn_scores_2": attn_scores_2, "attn_weights_2": attn_weights_2,
                         "context_vec_2": attn_weights_2 @ values}, {}


MISTAKES = {
    "mask-fill-zero": mask_fill_zero, "mask-added": mask_added, "mask-plus-inf": mask_plus_inf,
    "scale-after-softmax": scale_after_softmax,
}
