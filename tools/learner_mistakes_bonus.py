"""Learners' mistakes after the chapter for tools/gen_mistake_fixtures.py (which exports each into
tests/fixtures/mistakes/): the lessons after the chapter (kv-cache, gqa, mla, swa), each a learner's class
written as tools/torch_bonus.py writes the book's bonus classes, with one mistake in its forward (the step
of the forward it changes, overridden); and two
more of the chapter's. Real PyTorch 1.13.

Each function returns (lesson, tensors, config) as tools/learner_mistakes.py's do: the learner's tensors in
the order their program computed them and the settings they export with. A bonus mistake runs the lesson's
cells (torch_bonus.run_lesson) with the learner's class in place of the book's and exports the last value
of each name it prints.
"""
import torch

import torch_bonus as tbn
import torch_book as tb
from torch_book import MultiHeadAttention, MultiHeadAttentionWrapper, SelfAttention_v2


def run_with(lesson, name, cls, config, names):
    """The lesson's cells with tbn.<name> replaced by the learner's class: the last value of each name (the
    first of a name given as (name, 0))."""
    book = getattr(tbn, name)
    setattr(tbn, name, cls)
    try:
        got = tbn.run_lesson(lesson, config, tb.BOOK_ROWS)
    finally:
        setattr(tbn, name, book)
    def value(n):
        name, k = n if isinstance(n, tuple) else (n, -1)
        return name, [v for m, v in got if m == name][k]
    return lesson, dict(value(n) for n in names), config


class LearnerSteps:
    """A bonus class with one step of its forward as a learner writes it wrong; `mistake` picks the step:
    "view" (the heads viewed straight as (b, heads, T, head_dim), no transpose(1, 2)), "scale" (the softmax of
    the masked scores not divided by head_dim**0.5), "merge" (the heads merged by contiguous().view with no
    transpose(1, 2)); the subclasses add their own."""
    mistake = None

    def to_heads(self, t, num_heads):
        if self.mistake != "view":
            return super().to_heads(t, num_heads)
        b, n, _ = t.shape
        return t.view(b, num_heads, n, self.head_dim)  # the mistake

    def scaled_softmax(self, attn_scores, keys):
        if self.mistake != "scale":
            return super().scaled_softmax(attn_scores, keys)
        return torch.softmax(attn_scores, dim=-1)  # the mistake: no / keys.shape[-1]**0.5

    def merge_heads(self, context, b, n_q):
        if self.mistake != "merge":
            return super().merge_heads(context, b, n_q)
        return context.contiguous().view(b, n_q, self.d_out)  # the mistake: no transpose(1, 2)


class LearnerGQA(LearnerSteps, tbn.GroupedQueryAttention):
    """GroupedQueryAttention; also "repeat" (the groups tiled, [g0, g1, g0, g1]) and "group" (a loop over the
    heads, the group by num_kv_groups)."""

    def expand_groups(self, kv):
        if self.mistake == "repeat":
            return kv.repeat(1, self.group_size, 1, 1)  # the mistake
        if self.mistake == "group":
            return torch.stack([kv[:, h // self.num_kv_groups] for h in range(self.num_heads)], dim=1)  # the mistake
        return super().expand_groups(kv)


def gqa_with(mistake, config, names):
    cls = type("LearnerGQA_" + mistake, (LearnerGQA,), {"mistake": mistake})
    return run_with("gqa", "GroupedQueryAttention", cls, config, names)


def gqa_no_scaling():
    return gqa_with("scale", {}, ["keys", "attn_weights", "full"])


def gqa_repeat():
    return gqa_with("repeat", {}, ["keys_new", "keys", "attn_weights", "full", "gqa.cache_k"])


def gqa_wrong_group():
    """With one head per group (num_kv_groups=4 of 4 heads): h // 4 is group 0 for every head. The lesson's own
    4 heads in 2 groups would hide it (h // 2 is h // group_size there)."""
    return gqa_with("group", {"num_kv_groups": 4}, ["keys_new", "keys", "attn_weights", "full"])


def gqa_view():
    return gqa_with("view", {}, ["queries", "attn_weights", "full"])


def gqa_merge_view():
    return gqa_with("merge", {}, ["queries", "attn_weights", "context_vec", "full"])


class LearnerMLA(LearnerSteps, tbn.MultiHeadLatentAttention):
    """MultiHeadLatentAttention; also "uk" (the values up-projected with W_UK)."""

    def up_project(self, latent):
        if self.mistake == "uk":
            return self.W_UK(latent), self.W_UK(latent)  # the mistake
        return super().up_project(latent)


def mla_values_from_uk():
    cls = type("LearnerMLA_uk", (LearnerMLA,), {"mistake": "uk"})
    return run_with("mla", "MultiHeadLatentAttention", cls, {}, ["latent", "keys_all", "values_all", "full"])


def mla_view():
    cls = type("LearnerMLA_view", (LearnerMLA,), {"mistake": "view"})
    return run_with("mla", "MultiHeadLatentAttention", cls, {"latent_dim": 3}, ["keys_all", "attn_weights", "full"])


class StraightHeads:
    """A bonus class (ch04/03's or ch04/06's) with the heads viewed straight as (b, heads, T, head_dim), no
    transpose(1, 2): its cache then holds (b, heads, K, head_dim) and grows along dim=2."""
    token_dim = 2

    def split_new(self, x):
        b, n, _ = x.shape
        shape = (b, self.num_heads, n, self.head_dim)  # the mistake
        return self.W_key(x).view(shape), self.W_value(x).view(shape), self.W_query(x).view(shape)

    def heads_first(self, *ts):
        return ts


class LearnerKVCache(StraightHeads, tbn.MultiHeadAttention):
    pass


def kv_cache_view():
    return run_with("kv-cache", "MultiHeadAttention", LearnerKVCache, {}, [("attn_weights", 0), "full", "cache_k", "out", "rest"])


class LearnerSWA(StraightHeads, tbn.MultiHeadAttentionWithSWA):
    pass


def swa_view():
    return run_with("swa", "MultiHeadAttentionWithSWA", LearnerSWA, {}, ["mask_bool", "attn_weights", "full", "out", "swa.cache_k"])


# ---- two more of the chapter's ------------------------------------------------------------------------

def simple_mask_setup():
    """§3.5.1: SelfAttention_v2 (seed 789), its weights, the simple mask and the masked weights."""
    inputs = torch.tensor(tb.BOOK_ROWS)
    torch.manual_seed(789)
    sa_v2 = SelfAttention_v2(3, 2)
    queries, keys = sa_v2.W_query(inputs), sa_v2.W_key(inputs)
    attn_scores = queries @ keys.T
    attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
    context_length = attn_scores.shape[0]
    mask_simple = torch.tril(torch.ones(context_length, context_length))
    return attn_scores, attn_weights, mask_simple, attn_weights * mask_simple


def causal_norm_whole():
    """§3.5.1's renormalisation divided by the whole matrix's sum."""
    attn_scores, attn_weights, mask_simple, masked_simple = simple_mask_setup()
    masked_simple_norm = masked_simple / masked_simple.sum()  # the mistake: not each row's sum
    return "causal-mask", {"attn_scores": attn_scores, "attn_weights": attn_weights, "mask_simple": mask_simple,
                           "masked_simple": masked_simple, "masked_simple_norm": masked_simple_norm}, {}


def causal_norm_whole_sums():
    """The same with row_sums = masked_simple.sum(), one number: its shape differs from the lesson's."""
    attn_scores, attn_weights, mask_simple, masked_simple = simple_mask_setup()
    row_sums = masked_simple.sum()  # the mistake
    return "causal-mask", {"masked_simple": masked_simple, "row_sums": row_sums,
                           "masked_simple_norm": masked_simple / row_sums}, {}


def causal_norm_whole_weights():
    """§3.5.1's simple mask as the -inf path's attn_weights, renormalised by the whole matrix's sum."""
    attn_scores, attn_weights, mask_simple, masked_simple = simple_mask_setup()
    inputs = torch.tensor(tb.BOOK_ROWS)
    torch.manual_seed(789)
    values = SelfAttention_v2(3, 2).W_value(inputs)
    attn_weights = attn_weights * mask_simple
    attn_weights = attn_weights / attn_weights.sum()  # the mistake: not each row's sum
    return "causal-mask", {"attn_scores": attn_scores, "mask_simple": mask_simple, "attn_weights": attn_weights,
                           "context_vec": attn_weights @ values}, {}


def wrapper_cat_tokens():
    class MyWrapper(MultiHeadAttentionWrapper):
        def forward(self, x):
            return torch.cat([head(x) for head in self.heads], dim=1)  # the mistake: along the tokens

    batch = tb.book_batch()
    torch.manual_seed(123)
    mha = MyWrapper(3, 2, batch.shape[1], 0.0, num_heads=2)
    return "wrapper", {"batch": batch, "context_vecs": mha(batch)}, {}


class MergeNoTranspose(MultiHeadAttention):
    """The book's MultiHeadAttention merging the heads with contiguous().view and no transpose(1, 2)."""
    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        values = self.W_value(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3)
        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = self.dropout(torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1))
        self.seen = attn_weights
        self.merged = (attn_weights @ values).contiguous().view(b, num_tokens, self.d_out)  # the mistake
        return self.out_proj(self.merged)


def view_no_transpose_merge():
    """The merge without transpose at d_out 4: the weights and the output exported."""
    batch = tb.book_batch()
    torch.manual_seed(123)
    mha = MergeNoTranspose(3, 4, batch.shape[1], 0.0, num_heads=2)
    context_vecs = mha(batch)
    return "mha", {"batch": batch, "attn_weights": mha.seen, "context_vecs": context_vecs}, {"d_out": 4}


def view_no_transpose_merged_value():
    """The same merge, the learner exporting the merged heads (context_vec, before out_proj) and then the output:
    the book's own two names, at the book's sizes (d_out 2)."""
    batch = tb.book_batch()
    torch.manual_seed(123)
    mha = MergeNoTranspose(3, 2, batch.shape[1], 0.0, num_heads=2)
    context_vecs = mha(batch)
    return "mha", {"attn_weights": mha.seen, "context_vec": mha.merged, "context_vecs": context_vecs}, {}


MISTAKES = {  # the mistake's id, or (a second fixture of one) the id and what differs
    "gqa-repeat": gqa_repeat,
    "gqa-wrong-group": gqa_wrong_group,
    "mla-values-from-uk": mla_values_from_uk,
    "causal-norm-whole": causal_norm_whole,
    "wrapper-cat-tokens": wrapper_cat_tokens,
    "no-scaling-gqa": gqa_no_scaling,
    "view-no-transpose-merge": view_no_transpose_merge,
    "view-no-transpose-merged-value": view_no_transpose_merged_value,
    "view-no-transpose-gqa": gqa_view,
    "view-no-transpose-merge-gqa": gqa_merge_view,
    "view-no-transpose-mla": mla_view,
    "view-no-transpose-kv-cache": kv_cache_view,
    "view-no-transpose-swa": swa_view,
    "causal-norm-whole-sums": causal_norm_whole_sums,
    "causal-norm-whole-weights": causal_norm_whole_weights,
}
