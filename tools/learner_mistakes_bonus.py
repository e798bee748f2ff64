"""Learners' mistakes after the chapter for tools/gen_mistake_fixtures.py (which exports each into
tests/fixtures/mistakes/): the lessons after the chapter (kv-cache, gqa, mla, swa), each a learner's class
written as tools/torch_bonus.py writes the book's bonus classes, with one mistake in its forward; and two
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


def attend_with(mistake, module, queries, keys, values, mask_bool, seen):
    """tbn.attend with one mistake: "scale" (softmax of the masked scores, not divided by head_dim**0.5) or
    "merge" (the heads merged back by contiguous().view with no transpose(1, 2))."""
    b, _, n_q, _ = queries.shape
    attn_scores = queries @ keys.transpose(2, 3)
    seen["attn_scores"] = attn_scores.clone()
    attn_scores = attn_scores.masked_fill(mask_bool, -torch.inf)
    if mistake == "scale":
        attn_weights = module.dropout(torch.softmax(attn_scores, dim=-1))  # the mistake: no / keys.shape[-1]**0.5
    else:
        attn_weights = module.dropout(torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1))
    merged = attn_weights @ values
    if mistake != "merge":
        merged = merged.transpose(1, 2)  # (the mistake leaves it out)
    context_vec = merged.contiguous().view(b, n_q, module.d_out)
    seen.update(mask_bool=mask_bool, masked_scores=attn_scores, attn_weights=attn_weights, context_vec=context_vec)
    return module.out_proj(context_vec)


class LearnerGQA(tbn.GroupedQueryAttention):
    """GroupedQueryAttention's forward as a learner writes it; `mistake` picks the one line that differs."""
    mistake = None

    def forward(self, x, use_cache=False):
        seen = self.seen = {}
        b, n, _ = x.shape
        queries_p, keys_p, values_p = self.W_query(x), self.W_key(x), self.W_value(x)
        if self.mistake == "view":  # the mistake: straight to (b, heads, T, head_dim), no transpose(1, 2)
            queries = queries_p.view(b, self.num_heads, n, self.head_dim)
            keys_new = keys_p.view(b, self.num_kv_groups, n, self.head_dim)
            values_new = values_p.view(b, self.num_kv_groups, n, self.head_dim)
        else:
            queries = queries_p.view(b, n, self.num_heads, self.head_dim).transpose(1, 2)
            keys_new = keys_p.view(b, n, self.num_kv_groups, self.head_dim).transpose(1, 2)
            values_new = values_p.view(b, n, self.num_kv_groups, self.head_dim).transpose(1, 2)
        if use_cache:
            keys_base, values_base = self.append_kv(keys_new, values_new, 2)
        else:
            keys_base, values_base = keys_new, values_new
            if self.cache_k is not None or self.cache_v is not None:
                self.reset_cache()
        if self.mistake == "repeat":  # the mistake: the groups tiled, [g0, g1, g0, g1]
            keys = keys_base.repeat(1, self.group_size, 1, 1)
            values = values_base.repeat(1, self.group_size, 1, 1)
        elif self.mistake == "group":  # the mistake: a loop over the heads, the group by num_kv_groups
            keys = torch.stack([keys_base[:, h // self.num_kv_groups] for h in range(self.num_heads)], dim=1)
            values = torch.stack([values_base[:, h // self.num_kv_groups] for h in range(self.num_heads)], dim=1)
        else:
            keys = keys_base.repeat_interleave(self.group_size, dim=1)
            values = values_base.repeat_interleave(self.group_size, dim=1)
        mask = self.future_mask(use_cache, queries.shape[-2], keys.shape[-2])
        seen.update(queries_p=queries_p, keys_p=keys_p, values_p=values_p, queries=queries, keys_new=keys_new,
                    values_new=values_new, keys=keys, values=values)
        if self.mistake in ("scale", "merge"):
            return attend_with(self.mistake, self, queries, keys, values, mask, seen)
        return tbn.attend(self, queries, keys, values, mask, seen)


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


class LearnerMLA(tbn.MultiHeadLatentAttention):
    mistake = None

    def forward(self, x, use_cache=False):
        seen = self.seen = {}
        b, n, _ = x.shape
        queries_all = self.W_query(x)
        latent_new = self.W_DKV(x)
        latent_total = self.cached_latent(latent_new, use_cache)
        keys_all = self.W_UK(latent_total)
        values_all = self.W_UK(latent_total) if self.mistake == "uk" else self.W_UV(latent_total)  # the mistake
        k = latent_total.shape[1]
        if self.mistake == "view":  # the mistake: straight to (b, heads, T, head_dim)
            queries = queries_all.view(b, self.num_heads, n, self.head_dim).contiguous()
            keys = keys_all.view(b, self.num_heads, k, self.head_dim).contiguous()
            values = values_all.view(b, self.num_heads, k, self.head_dim).contiguous()
        else:
            queries = queries_all.view(b, n, self.num_heads, self.head_dim).transpose(1, 2).contiguous()
            keys = keys_all.view(b, k, self.num_heads, self.head_dim).transpose(1, 2).contiguous()
            values = values_all.view(b, k, self.num_heads, self.head_dim).transpose(1, 2).contiguous()
        mask_bool = self.future_mask(use_cache, queries.shape[-2], keys.shape[-2])
        seen.update(queries_all=queries_all, latent=latent_total, keys_all=keys_all, values_all=values_all,
                    queries=queries, keys=keys, values=values)
        return tbn.attend(self, queries, keys, values, mask_bool, seen)


def mla_values_from_uk():
    cls = type("LearnerMLA_uk", (LearnerMLA,), {"mistake": "uk"})
    return run_with("mla", "MultiHeadLatentAttention", cls, {}, ["latent", "keys_all", "values_all", "full"])


def mla_view():
    cls = type("LearnerMLA_view", (LearnerMLA,), {"mistake": "view"})
    return run_with("mla", "MultiHeadLatentAttention", cls, {"latent_dim": 3}, ["keys_all", "attn_weights", "full"])


class LearnerKVCache(tbn.MultiHeadAttention):
    """ch04/03's class with the heads viewed straight as (b, heads, T, head_dim): its cache then holds
    (b, heads, K, head_dim) and grows along dim=2."""

    def forward(self, x, use_cache=False):
        seen = self.seen = {}
        b, n, _ = x.shape
        shape = (b, self.num_heads, n, self.head_dim)
        keys_new, values_new, queries = self.W_key(x).view(shape), self.W_value(x).view(shape), self.W_query(x).view(shape)
        keys, values = self.append_kv(keys_new, values_new, 2) if use_cache else (keys_new, values_new)
        mask_bool = self.step_mask(use_cache, queries.shape[-2], keys.shape[-2])
        seen.update(queries=queries, keys=keys, values=values)
        return tbn.attend(self, queries, keys, values, mask_bool, seen)


def kv_cache_view():
    return run_with("kv-cache", "MultiHeadAttention", LearnerKVCache, {}, [("attn_weights", 0), "full", "cache_k", "out", "rest"])


class LearnerSWA(tbn.MultiHeadAttentionWithSWA):
    """ch04/06's class with the heads viewed straight as (b, heads, T, head_dim); its cache along dim=2."""

    def forward(self, x, use_cache=False):
        seen = self.seen = {}
        b, n, _ = x.shape
        shape = (b, self.num_heads, n, self.head_dim)
        keys_new, values_new, queries = self.W_key(x).view(shape), self.W_value(x).view(shape), self.W_query(x).view(shape)
        q_start = k_start = 0
        if use_cache:
            keys, values, k_start = self.cached_window(keys_new, values_new, 2, self.sliding_window_size)
            q_start = self.ptr_current_pos
        else:
            keys, values = keys_new, values_new
        mask_bool = self.window_mask(use_cache, q_start, k_start, queries.shape[-2], keys.shape[-2], seen)
        seen.update(queries=queries, keys=keys, values=values)
        return tbn.attend(self, queries, keys, values, mask_bool, seen)


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
