#!/usr/bin/python3
"""Learners' programs for the lessons after the chapter (kv-cache, swa, gqa, mla) with the KV cache and
sliding-window mistakes, and the exports that forget a lesson's own setting, for `attn-tutor
check` (tests/fixtures/mistakes/<id>.json). Real PyTorch 1.13. The modules are the bonus classes of
tools/torch_bonus.py (rasbt/LLMs-from-scratch ch04/03-06) with one line changed where a mistake says so,
run as the lessons run them, and exported with python/export_pytorch.py as a learner would: the tensors
in the order the program computed them (a list of (name, tensor) pairs where a name repeats).

Also a correct mha program (way-context-vec-last) that exports the book's printed context_vec, the
merged heads before out_proj, last: it must match.

Regenerate only these (needs torch; deterministic):
    /usr/bin/python3 tools/learner_mistakes_cache.py [--out tests/fixtures/mistakes]
(tools/gen_mistake_fixtures.py writes them too, with every other fixture.)
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_book as tb  # noqa: E402
import torch_bonus as tbn  # noqa: E402
import common  # noqa: E402  (export_all: the learners' exporter)


def book_x():
    return torch.tensor(tb.BOOK_ROWS).unsqueeze(0)


# ---- the modules with a learner's line ---------------------------------------------------------------

class KVMultiHeadAttention(tbn.MultiHeadAttention):
    """ch04/03's MultiHeadAttention with the KV cache; mistake "kv-mask-row0": the cached mask from row 0."""

    def __init__(self, *args, mistake=None, **kw):
        super().__init__(*args, **kw)
        self.mistake = mistake

    def step_mask(self, use_cache, n_q, n_k):
        if not use_cache or self.mistake is None:
            return super().step_mask(use_cache, n_q, n_k)
        start = self.ptr_current_pos
        self.ptr_current_pos += n_q
        if self.mistake == "kv-mask-row0":
            return self.mask.bool()[:n_q, :n_k]  # the mistake: rows from 0, not from ptr_current_pos
        assert self.mistake == "positions"  # no mistake: the mask from the positions, no buffer to run out
        return torch.arange(n_k)[None, :] > torch.arange(start, start + n_q)[:, None]


class SWA(tbn.MultiHeadAttentionWithSWA):
    """ch04/06's MultiHeadAttentionWithSWA; mistakes "swa-window-off-by-one" (diff > W),
    "swa-window-off-by-one-cache" (diff > W, and the cache keeping W + 1 alike) and "swa-cache-oldest"
    (the cache keeps [:, :W])."""

    def __init__(self, *args, mistake=None, **kw):
        super().__init__(*args, **kw)
        self.mistake = mistake

    def forward(self, x, use_cache=False):
        seen = self.seen = {}
        keys_new, values_new, queries = self.split_new(x)
        q_start = k_start = 0
        off_by_one = self.mistake in ("swa-window-off-by-one", "swa-window-off-by-one-cache")  # diff > W
        if use_cache:
            W = self.sliding_window_size
            if W is not None and self.mistake == "swa-window-off-by-one-cache":
                W = W + 1  # the mistake, in the cache too: [-(W + 1):]
            keys, values, k_start = self.cached_window(keys_new, values_new, 1, W,
                                                       oldest=self.mistake == "swa-cache-oldest")  # the mistake
            q_start = self.ptr_current_pos
        else:
            keys, values = keys_new, values_new
        keys, queries, values = keys.transpose(1, 2), queries.transpose(1, 2), values.transpose(1, 2)
        mask_bool = self.window_mask(use_cache, q_start, k_start, queries.shape[-2], keys.shape[-2], seen,
                                     wider=1 if off_by_one else 0)
        seen.update(queries=queries, keys=keys, values=values)
        return tbn.attend(self, queries, keys, values, mask_bool, seen)


# ---- the lessons' programs ------------------------------------------------------------------------------

def kv_program(mistake=None, context_length=6, reset=True):
    """The kv-cache lesson's program: full, the tokens one at a time, then a new prompt and the rest."""
    x = book_x()
    torch.manual_seed(123)
    mha = KVMultiHeadAttention(3, 4, context_length, 0.0, 2, mistake=mistake)
    got = []
    full = mha(x)
    got += [("attn_weights", mha.seen["attn_weights"]), ("full", full)]
    for i in range(x.shape[1]):
        out = mha(x[:, i:i + 1, :], use_cache=True)
        got += [("cache_k", mha.cache_k), ("out", out)]
    if reset:
        mha.reset_cache()
    prompt = mha(x[:, :3, :], use_cache=True)
    rest = mha(x[:, 3:, :], use_cache=True)
    got += [("prompt", prompt), ("mask_bool", mha.seen["mask_bool"]), ("rest", rest)]
    return got


def swa_program(mistake=None, window=3, d_out=4, num_heads=2):
    """The swa lesson's program: the full forward's mask and weights, then the tokens one at a time."""
    x = book_x()
    torch.manual_seed(123)
    swa = SWA(3, d_out, 0.0, num_heads, sliding_window_size=window, mistake=mistake)
    full = swa(x)
    got = [("mask_bool", swa.seen["mask_bool"]), ("attn_weights", swa.seen["attn_weights"]), ("full", full)]
    swa.reset_cache()
    for i in range(x.shape[1]):
        out = swa(x[:, i:i + 1, :], use_cache=True)
        got += [("out", out), ("swa.cache_k", swa.cache_k)]
    return got


def swa_window_off_by_one():
    return "swa", swa_program("swa-window-off-by-one"), {}


def swa_window_off_by_one_cache():
    """diff > W in the mask, and the learner's cache one token longer alike: a window of W + 1 everywhere."""
    return "swa", swa_program("swa-window-off-by-one-cache"), {}


def swa_cache_oldest():
    return "swa", swa_program("swa-cache-oldest"), {}


def kv_mask_row0():
    return "kv-cache", kv_program("kv-mask-row0"), {}


def no_reset_cache():
    # context_length 12: room for the second text after the first six tokens (at 6, PyTorch's slice of the
    # mask runs out and the program raises)
    return "kv-cache", kv_program(context_length=12, reset=False), {"context_length": 12}


def no_reset_cache_positions():
    """No reset at the lesson's context_length 6, the mask computed from positions (a learner's list cache does
    this): the book's class would raise at the new prompt; this one runs on."""
    return "kv-cache", kv_program("positions", context_length=6, reset=False), {}


def kv_mask_row0_outs():
    """The steps' outputs only (each equals the first step's: every token sees only key 0)."""
    got = [(n, t) for n, t in kv_program("kv-mask-row0") if n in ("full", "out")]
    return "kv-cache", got, {}


def kv_mask_row0_steps():
    """Each step's mask, weights and output (the learner's own loop, as tests/learners/ writes it): the mask
    differs first; the second step's output repeats the first's because of the mistake, not a step never run."""
    x = book_x()
    torch.manual_seed(123)
    mha = KVMultiHeadAttention(3, 4, 6, 0.0, 2, mistake="kv-mask-row0")
    got = [("full", mha(x))]
    for i in range(x.shape[1]):
        out = mha(x[:, i:i + 1, :], use_cache=True)
        got += [("mask_bool", mha.seen["mask_bool"]), ("attn_weights", mha.seen["attn_weights"]), ("out", out)]
    return "kv-cache", got, {}


def swa_cache_oldest_last():
    """The cache exported after the steps, then the last output (the issue's case)."""
    got = swa_program("swa-cache-oldest")
    outs = [t for n, t in got if n == "out"]
    caches = [t for n, t in got if n == "swa.cache_k"]
    return "swa", [("full", got[2][1]), ("out", outs[-1]), ("swa.cache_k", caches[-1])], {}


# ---- exports that forget the lesson's own setting (export-settings) -------------------------------------

def forgot_window():
    """Run with sliding_window_size=2, exported without window=2: the mask and the values differ, not the shapes
    of the full forward."""
    got = swa_program(window=2)
    return "swa", [(n, t) for n, t in got[:3]], {}


def forgot_num_kv_groups():
    x = book_x()
    torch.manual_seed(123)
    gqa = tbn.GroupedQueryAttention(3, 8, 0.0, 4, 1)  # num_kv_groups=1, not exported
    full = gqa(x)
    return "gqa", [("attn_weights", gqa.seen["attn_weights"]), ("keys_new", gqa.seen["keys_new"]), ("full", full)], {}


def forgot_latent_dim():
    x = book_x()
    torch.manual_seed(123)
    mla = tbn.MultiHeadLatentAttention(3, 4, 0.0, 2, latent_dim=3)  # latent_dim=3, not exported
    full = mla(x)
    return "mla", [("attn_weights", mla.seen["attn_weights"]), ("latent", mla.seen["latent"]), ("full", full)], {}


def mha_d_out_weights_first():
    """mha with d_out=4 exported without it, attn_weights first (the same shape at d_out 2 and 4)."""
    import learner_mistakes as lm
    mha, context_vecs = lm.mha_run(d_out=4)
    return "mha", {"attn_weights": mha.seen["attn_weights"], "context_vecs": context_vecs}, {}


def way_context_vec_last():
    """Correct: the book's MultiHeadAttention, its printed context_vec (heads merged, before out_proj) last."""
    import learner_mistakes as lm
    mha, context_vecs = lm.mha_run()
    b, n, _ = context_vecs.shape
    w = mha.seen["attn_weights"]
    values = mha.W_value(tb.book_batch()).view(b, n, 2, 1).transpose(1, 2)
    context_vec = (w @ values).transpose(1, 2).contiguous().view(b, n, 2)
    return "mha", [("attn_weights", w), ("context_vec", context_vec)], {}


MISTAKES = {"swa-window-off-by-one": swa_window_off_by_one, "swa-cache-oldest": swa_cache_oldest,
            "kv-mask-row0": kv_mask_row0, "no-reset-cache": no_reset_cache}
# Further fixtures of these and of export-settings (tests/test_check_cache.cpp names what each must give).
MORE = {"kv-mask-row0-outs": kv_mask_row0_outs, "swa-window-off-by-one-cache": swa_window_off_by_one_cache,
        "kv-mask-row0-steps": kv_mask_row0_steps, "no-reset-cache-positions": no_reset_cache_positions, "swa-cache-oldest-last": swa_cache_oldest_last,
        "export-settings-window": forgot_window, "export-settings-kv-groups": forgot_num_kv_groups,
        "export-settings-latent": forgot_latent_dim, "export-settings-weights-first": mha_d_out_weights_first}
WAYS = {"context-vec-last": way_context_vec_last}


def jobs():
    return list(MISTAKES.items()) + list(MORE.items()) + [("way-" + k, f) for k, f in WAYS.items()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                                  "fixtures", "mistakes"))
    args = ap.parse_args()
    torch.set_grad_enabled(False)
    common.export_all(jobs(), args.out)


if __name__ == "__main__":
    main()
