"""The bonus material after chapter 3 (rasbt/LLMs-from-scratch ch04/03_kv-cache, 04_gqa, 05_mla, 06_swa),
written out as a learner would from its description, in real PyTorch; and the cells of attn-tutor's
lessons kv-cache, gqa, mla and swa, run with these modules in the order the lessons record their tensors.

Shared by tools/gen_bonus_fixtures.py (fixtures, verify entries, correct exports). Each module keeps the
bonus classes' layer creation order, so torch.manual_seed(s) gives the weights the bonus code would get:
  MultiHeadAttention (KV cache) and MultiHeadAttentionWithSWA: W_query, W_key, W_value, out_proj (bias)
  GroupedQueryAttention: W_key, W_value (d_in -> G * head_dim), W_query, out_proj (no bias)
  MultiHeadLatentAttention: W_query, W_DKV (d_in -> latent), W_UK, W_UV (latent -> d_out), out_proj (bias)
`self.seen` holds the intermediates of the last forward call.
"""
import torch
import torch.nn as nn


def attend(module, queries, keys, values, mask_bool, seen):
    """scores, -inf where mask_bool, softmax(scores / sqrt(head_dim)), dropout, @ values, heads merged, out_proj"""
    b, _, n_q, _ = queries.shape
    attn_scores = queries @ keys.transpose(2, 3)
    seen["attn_scores"] = attn_scores.clone()
    attn_scores = attn_scores.masked_fill(mask_bool, -torch.inf)
    attn_weights = module.scaled_softmax(attn_scores, keys)
    attn_weights = module.dropout(attn_weights)
    context_vec = module.merge_heads(attn_weights @ values, b, n_q)
    seen.update(mask_bool=mask_bool, masked_scores=attn_scores, attn_weights=attn_weights, context_vec=context_vec)
    return module.out_proj(context_vec)


class CachedAttention(nn.Module):
    """What the four modules share: the head sizes, dropout, the cache buffers (`caches`), ptr_current_pos,
    reset_cache, the steps of attend() that split and merge the heads and scale the scores (a learner's
    mistake in tools/learner_mistakes_bonus.py overrides the one step it changes) and, for the chapter's
    layer shapes, W_query, W_key, W_value and out_proj in its order."""

    caches = ("cache_k", "cache_v")

    def __init__(self, d_out, num_heads, dropout):
        super().__init__()
        assert d_out % num_heads == 0
        self.d_out, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads
        self.dropout = nn.Dropout(dropout)
        for name in self.caches:
            self.register_buffer(name, None, persistent=False)
        self.ptr_current_pos = 0
        self.seen = {}

    def chapter_layers(self, d_in, qkv_bias):
        """W_query, W_key, W_value (d_in -> d_out) and out_proj (with bias), created as chapter 3 does."""
        self.W_query = nn.Linear(d_in, self.d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, self.d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, self.d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(self.d_out, self.d_out)

    def to_heads(self, t, num_heads):
        """(b, T, num_heads * head_dim) -> (b, num_heads, T, head_dim)"""
        b, n, _ = t.shape
        return t.view(b, n, num_heads, self.head_dim).transpose(1, 2)

    def scaled_softmax(self, attn_scores, keys):
        """softmax(scores / sqrt(head_dim)) over the keys"""
        return torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)

    def merge_heads(self, context, b, n_q):
        """(b, num_heads, T, head_dim) -> (b, T, d_out)"""
        return context.transpose(1, 2).contiguous().view(b, n_q, self.d_out)

    token_dim = 1  # the tokens' dimension in split_new's layout, along which the cache grows

    def split_new(self, x):
        """The new tokens' keys, values and queries as (b, T, num_heads, head_dim)."""
        b, n, _ = x.shape
        shape = (b, n, self.num_heads, self.head_dim)
        return self.W_key(x).view(shape), self.W_value(x).view(shape), self.W_query(x).view(shape)

    def heads_first(self, *ts):
        """split_new's layout -> (b, num_heads, T, head_dim), for each of ts"""
        return tuple(t.transpose(1, 2) for t in ts)

    def append_kv(self, keys_new, values_new, dim):
        """cache_k and cache_v with the new keys and values appended along dim (the first call: them)."""
        if self.cache_k is None:
            self.cache_k, self.cache_v = keys_new, values_new
        else:
            self.cache_k = torch.cat([self.cache_k, keys_new], dim=dim)
            self.cache_v = torch.cat([self.cache_v, values_new], dim=dim)
        return self.cache_k, self.cache_v

    def future_mask(self, use_cache, n_q, n_k):
        """True where a key lies after its query; the queries start at ptr_current_pos with the cache."""
        start = self.ptr_current_pos if use_cache else 0
        self.ptr_current_pos = start + n_q if use_cache else 0
        return torch.arange(start, start + n_q).unsqueeze(-1) < torch.arange(n_k).unsqueeze(0)

    def reset_cache(self):
        for name in self.caches:
            setattr(self, name, None)
        self.ptr_current_pos = 0


class MultiHeadAttention(CachedAttention):
    """Chapter 3's class with cache_k, cache_v and ptr_current_pos (ch04/03_kv-cache)."""

    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__(d_out, num_heads, dropout)
        self.chapter_layers(d_in, qkv_bias)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1),
                             persistent=False)

    def forward(self, x, use_cache=False):
        seen = self.seen = {}
        keys_new, values_new, queries = self.split_new(x)
        if use_cache:
            keys, values = self.append_kv(keys_new, values_new, self.token_dim)
        else:
            keys, values = keys_new, values_new
        keys, queries, values = self.heads_first(keys, queries, values)
        mask_bool = self.step_mask(use_cache, queries.shape[-2], keys.shape[-2])
        seen.update(queries=queries, keys=keys, values=values)
        return attend(self, queries, keys, values, mask_bool, seen)

    def step_mask(self, use_cache, n_q, n_k):
        """The buffer's rows for these queries: from ptr_current_pos with the cache (which then moves on)."""
        if not use_cache:
            return self.mask.bool()[:n_q, :n_k]
        mask_bool = self.mask.bool()[self.ptr_current_pos:self.ptr_current_pos + n_q, :n_k]
        self.ptr_current_pos += n_q
        return mask_bool


class GroupedQueryAttention(CachedAttention):
    """ch04/04_gqa: num_kv_groups key/value heads, each read by num_heads // num_kv_groups query heads."""

    def __init__(self, d_in, d_out, dropout, num_heads, num_kv_groups, qkv_bias=False):
        super().__init__(d_out, num_heads, dropout)
        assert num_heads % num_kv_groups == 0
        self.num_kv_groups, self.group_size = num_kv_groups, num_heads // num_kv_groups
        self.W_key = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=qkv_bias)
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out, bias=False)

    def forward(self, x, use_cache=False):
        seen = self.seen = {}
        queries_p, keys_p, values_p = self.W_query(x), self.W_key(x), self.W_value(x)
        queries = self.to_heads(queries_p, self.num_heads)
        keys_new = self.to_heads(keys_p, self.num_kv_groups)
        values_new = self.to_heads(values_p, self.num_kv_groups)
        if use_cache:
            keys_base, values_base = self.append_kv(keys_new, values_new, 2)
        else:
            keys_base, values_base = keys_new, values_new
            if self.cache_k is not None or self.cache_v is not None:
                self.reset_cache()
        keys, values = self.expand_groups(keys_base), self.expand_groups(values_base)
        mask = self.future_mask(use_cache, queries.shape[-2], keys.shape[-2])
        seen.update(queries_p=queries_p, keys_p=keys_p, values_p=values_p, queries=queries, keys_new=keys_new,
                    values_new=values_new, keys=keys, values=values)
        return attend(self, queries, keys, values, mask, seen)

    def expand_groups(self, kv):
        """(b, num_kv_groups, K, head_dim) -> (b, num_heads, K, head_dim): each group once for each of its heads"""
        return kv.repeat_interleave(self.group_size, dim=1)


class MultiHeadLatentAttention(CachedAttention):
    """ch04/05_mla: keys and values come from a latent of latent_dim numbers per token; the cache holds it."""

    caches = ("cache_c_kv",)

    def __init__(self, d_in, d_out, dropout, num_heads, qkv_bias=False, latent_dim=None):
        super().__init__(d_out, num_heads, dropout)
        self.latent_dim = latent_dim if latent_dim is not None else max(16, d_out // 8)
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_DKV = nn.Linear(d_in, self.latent_dim, bias=qkv_bias)
        self.W_UK = nn.Linear(self.latent_dim, d_out, bias=qkv_bias)
        self.W_UV = nn.Linear(self.latent_dim, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)

    def cached_latent(self, latent_new, use_cache):
        """The latent of every token so far: with the cache, cache_c_kv with the new tokens' appended."""
        if not use_cache:
            return latent_new
        self.cache_c_kv = latent_new if self.cache_c_kv is None else torch.cat([self.cache_c_kv, latent_new], dim=1)
        return self.cache_c_kv

    def up_project(self, latent):
        """The keys and the values of every token, from its latent."""
        return self.W_UK(latent), self.W_UV(latent)

    def forward(self, x, use_cache=False):
        seen = self.seen = {}
        queries_all = self.W_query(x)
        latent_new = self.W_DKV(x)
        latent_total = self.cached_latent(latent_new, use_cache)
        keys_all, values_all = self.up_project(latent_total)
        queries = self.to_heads(queries_all, self.num_heads).contiguous()
        keys = self.to_heads(keys_all, self.num_heads).contiguous()
        values = self.to_heads(values_all, self.num_heads).contiguous()
        mask_bool = self.future_mask(use_cache, queries.shape[-2], keys.shape[-2])
        seen.update(queries_all=queries_all, latent=latent_total, keys_all=keys_all, values_all=values_all,
                    queries=queries, keys=keys, values=values)
        return attend(self, queries, keys, values, mask_bool, seen)


class MultiHeadAttentionWithSWA(CachedAttention):
    """ch04/06_swa: query i sees key j iff 0 <= i - j < W; the cache keeps the last W keys and values."""

    def __init__(self, d_in, d_out, dropout, num_heads, qkv_bias=False, sliding_window_size=None):
        super().__init__(d_out, num_heads, dropout)
        self.chapter_layers(d_in, qkv_bias)
        self.sliding_window_size = sliding_window_size
        self.before_fix = False  # the forward before the bonus's fix: the chunk attends to the trimmed cache only

    def forward(self, x, use_cache=False):
        seen = self.seen = {}
        keys_new, values_new, queries = self.split_new(x)
        q_start = k_start = 0
        if use_cache:
            keys, values, k_start = self.cached_window(keys_new, values_new, self.token_dim, self.sliding_window_size)
            q_start = self.ptr_current_pos
        else:
            keys, values = keys_new, values_new
        keys, queries, values = self.heads_first(keys, queries, values)
        mask_bool = self.window_mask(use_cache, q_start, k_start, queries.shape[-2], keys.shape[-2], seen)
        seen.update(queries=queries, keys=keys, values=values)
        return attend(self, queries, keys, values, mask_bool, seen)

    def cached_window(self, keys_new, values_new, dim, window, oldest=False):
        """With the cache: the keys and values the new chunk attends to (the W - 1 before it and the chunk;
        before the bonus's fix, the last W only), the cache kept to the last W (oldest: the first W, a
        learner's mistake), and the position of the first key."""
        old = 0 if self.cache_k is None else self.cache_k.shape[dim]
        all_k = keys_new if self.cache_k is None else torch.cat([self.cache_k, keys_new], dim=dim)
        all_v = values_new if self.cache_v is None else torch.cat([self.cache_v, values_new], dim=dim)
        total, keys, values = all_k.shape[dim], all_k, all_v
        if window is not None:
            keep = min(total, window + keys_new.shape[dim] - 1)  # W - 1 older ones and the new chunk
            if self.before_fix:  # trimmed to the last W first, and the chunk attended to those only
                keep = min(total, window)
            keys, values = all_k.narrow(dim, total - keep, keep), all_v.narrow(dim, total - keep, keep)
            keep_cache = min(total, window)
            first = 0 if oldest else total - keep_cache
            self.cache_k, self.cache_v = all_k.narrow(dim, first, keep_cache), all_v.narrow(dim, first, keep_cache)
        else:
            self.cache_k, self.cache_v = all_k, all_v
        return keys, values, self.ptr_current_pos - old + (total - keys.shape[dim])

    def window_mask(self, use_cache, q_start, k_start, n_q, n_k, seen, wider=0):
        """True where a key lies after its query or W (+ wider, a learner's mistake) or more before it."""
        w = n_k + 1 if self.sliding_window_size is None else self.sliding_window_size
        diff = torch.arange(q_start, q_start + n_q).unsqueeze(-1) - torch.arange(k_start, k_start + n_k).unsqueeze(0)
        self.ptr_current_pos = self.ptr_current_pos + n_q if use_cache else 0
        seen["diff"] = diff
        return (diff < 0) | (diff >= w + wider)


# ---- the lessons' cells, in the order attn-tutor records the tensors ------------------------------------

def max_diff(a, b):
    return (a - b).abs().max()


def steps(module, x, full, cache, rec):
    """The shared cell: reset, then one token at a time with use_cache=True; records out and the cache."""
    module.reset_cache()
    for i in range(x.shape[1]):
        out = module(x[:, i:i + 1, :], use_cache=True)
        rec("out", out)
        rec(cache[0], getattr(module, cache[1]))


def forward_cell(module, x, names, rec, weights=()):
    """The layers' weights ("<module>.<layer>.weight" for each (module, layer) in weights), then
    full = module(x): the intermediates `names` (a name, or (recorded name, key of module.seen)) and full."""
    for prefix, layer in weights:
        rec("%s.%s.weight" % (prefix, layer), getattr(module, layer).weight)
    full = module(x)
    for name in names:
        shown, key = name if isinstance(name, tuple) else (name, name)
        rec(shown, module.seen[key])
    rec("full", full)
    return full


def seeded(cls, c, x, *args, **kw):
    """torch.manual_seed(seed), then cls(d_in, d_out, dropout=0.0, num_heads, *args, qkv_bias, **kw)."""
    torch.manual_seed(c["seed"])
    return cls(x.shape[2], c["d_out"], 0.0, c["num_heads"], *args, qkv_bias=c.get("qkv_bias", False), **kw)


def run_kv_cache(c, x, rec):
    torch.manual_seed(c["seed"])
    ctx = c.get("context_length") or x.shape[1]
    mha = MultiHeadAttention(x.shape[2], c["d_out"], ctx, 0.0, c["num_heads"], qkv_bias=c.get("qkv_bias", False))
    full = mha(x)
    rec("attn_weights", mha.seen["attn_weights"])
    rec("full", full)
    for i in range(x.shape[1]):
        out = mha(x[:, i:i + 1, :], use_cache=True)
        rec("cache_k", mha.cache_k)
        rec("cache_v", mha.cache_v)
        rec("mask_bool", mha.seen["mask_bool"])
        rec("attn_weights", mha.seen["attn_weights"])
        rec("out", out)
        rec("(out - full[:, %d:%d, :]).abs().max()" % (i, i + 1), max_diff(out, full[:, i:i + 1, :]))
    n = x.shape[1]
    p = (n + 1) // 2
    mha.reset_cache()
    prompt = mha(x[:, :p, :], use_cache=True)
    rest = mha(x[:, p:, :], use_cache=True)
    rec("prompt", prompt)
    rec("mask_bool", mha.seen["mask_bool"])
    rec("rest", rest)
    rec("(torch.cat([prompt, rest], dim=1) - full).abs().max()", max_diff(torch.cat([prompt, rest], dim=1), full))
    return mha


def run_gqa(c, x, rec):
    gqa = seeded(GroupedQueryAttention, c, x, c["num_kv_groups"])
    full = forward_cell(gqa, x, (("queries", "queries_p"), ("keys", "keys_p"), ("values", "values_p"), "queries",
                                 "keys_new", "values_new", "keys", "values", "attn_scores", ("mask", "mask_bool"),
                                 ("attn_scores", "masked_scores"), "attn_weights", "context_vec"), rec,
                        [("gqa", n) for n in ("W_key", "W_value", "W_query", "out_proj")])
    steps(gqa, x, full, ("gqa.cache_k", "cache_k"), rec)
    return gqa


def run_mla(c, x, rec):
    mla = seeded(MultiHeadLatentAttention, c, x, latent_dim=c["latent_dim"])
    full = forward_cell(mla, x, ("queries_all", ("latent_new", "latent"), ("latent_total", "latent"), "latent",
                                 "keys_all", "values_all", "queries", "keys", "values",
                                 "attn_scores", "mask_bool", ("attn_scores", "masked_scores"), "attn_weights", "context_vec"),
                        rec, [("mla", n) for n in ("W_query", "W_DKV", "W_UK", "W_UV", "out_proj")])
    steps(mla, x, full, ("mla.cache_c_kv", "cache_c_kv"), rec)
    return mla


def run_swa(c, x, rec):
    swa = seeded(MultiHeadAttentionWithSWA, c, x, sliding_window_size=c["window"])
    full = forward_cell(swa, x, ("queries", "keys", "values", "diff", "mask_bool", ("attn_scores", "masked_scores"),
                                 "attn_weights", "context_vec"), rec)
    causal_out = seeded(MultiHeadAttentionWithSWA, c, x)(x)
    rec("causal", causal_out)
    rec("(full - causal).abs().max(dim=-1).values", (full - causal_out).abs().max(dim=-1).values)
    steps(swa, x, full, ("swa.cache_k", "cache_k"), rec)
    # the cached multi-token prefill: the forward before the fix (NaN where a query sees no key), then the class
    before_fix = seeded(MultiHeadAttentionWithSWA, c, x, sliding_window_size=c["window"])
    before_fix.before_fix = True
    before = before_fix(x, use_cache=True)
    rec("before", before)
    rec("torch.isnan(before).any(dim=-1)", torch.isnan(before).any(dim=-1))
    swa.reset_cache()
    prefill = swa(x, use_cache=True)
    rec("prefill", prefill)
    rec("(prefill - full).abs().max()", max_diff(prefill, full))
    return swa


RUNNERS = {"kv-cache": run_kv_cache, "gqa": run_gqa, "mla": run_mla, "swa": run_swa}
DEFAULTS = {  # the lessons' own sizes when an option is not given
    "kv-cache": dict(d_out=4, num_heads=2),
    "gqa": dict(d_out=8, num_heads=4, num_kv_groups=2),
    "mla": dict(d_out=4, num_heads=2, latent_dim=2),
    "swa": dict(d_out=4, num_heads=2, window=3),
}


def run_lesson(lesson, c, rows):
    """The lesson's tensors for settings c (seed, d_out, num_heads, qkv_bias, context_length, num_kv_groups,
    latent_dim, window; None: the lesson's default) on the embeddings rows: [(name, tensor)] in order."""
    c = dict(c)
    for k, v in DEFAULTS[lesson].items():
        if c.get(k) is None:
            c[k] = v
    if c.get("seed") is None:
        c["seed"] = 123
    out = []

    def rec(name, value):
        out.append((name, value.detach().clone()))

    with torch.no_grad():
        x = torch.tensor(rows).unsqueeze(0)
        rec("x", x)
        RUNNERS[lesson](c, x, rec)
    return out
