# swa: the bonus class (on the book's MultiHeadAttention), but the cache keeps the oldest W tokens ([:, :W])
# instead of the newest.
import torch
import torch.nn as nn

torch.set_grad_enabled(False)
# <book: inputs>
x = inputs.unsqueeze(0)


# <book: MultiHeadAttention>


class MultiHeadAttentionWithSWA(MultiHeadAttention):
    def __init__(self, d_in, d_out, dropout, num_heads, qkv_bias=False, sliding_window_size=None):
        super().__init__(d_in, d_out, 0, dropout, num_heads, qkv_bias)  # context_length 0: the window is the mask
        self.sliding_window_size = sliding_window_size
        self.cache_k = self.cache_v = None
        self.ptr_current_pos = 0

    def forward(self, x, use_cache=False):
        b, num_tokens, _ = x.shape
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim)
        keys_new = self.W_key(x).view(b, num_tokens, self.num_heads, self.head_dim)
        values_new = self.W_value(x).view(b, num_tokens, self.num_heads, self.head_dim)
        q_start = k_start = 0
        keys, values = keys_new, values_new
        if use_cache:
            old = 0 if self.cache_k is None else self.cache_k.shape[1]
            all_k = keys_new if self.cache_k is None else torch.cat([self.cache_k, keys_new], dim=1)
            all_v = values_new if self.cache_v is None else torch.cat([self.cache_v, values_new], dim=1)
            keys, values = all_k, all_v
            self.cache_k, self.cache_v = all_k, all_v
            if self.sliding_window_size is not None:
                keep = min(all_k.shape[1], self.sliding_window_size + num_tokens - 1)
                keys, values = all_k[:, -keep:], all_v[:, -keep:]
                W = self.sliding_window_size
                self.cache_k, self.cache_v = all_k[:, :W], all_v[:, :W]  # the mistake: the oldest W
            k_start = self.ptr_current_pos - old + (all_k.shape[1] - keys.shape[1])
            q_start = self.ptr_current_pos
        keys, queries, values = keys.transpose(1, 2), queries.transpose(1, 2), values.transpose(1, 2)
        num_tokens_K = keys.shape[-2]
        window = num_tokens_K + 1 if self.sliding_window_size is None else self.sliding_window_size
        diff = torch.arange(q_start, q_start + num_tokens)[:, None] - torch.arange(k_start, k_start + num_tokens_K)[None]
        mask_bool = (diff < 0) | (diff >= window)
        self.ptr_current_pos = self.ptr_current_pos + num_tokens if use_cache else 0
        attn_scores = (queries @ keys.transpose(2, 3)).masked_fill(mask_bool, -torch.inf)
        attn_weights = self.dropout(torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1))
        context_vec = (attn_weights @ values).transpose(1, 2).contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


torch.manual_seed(123)
swa = MultiHeadAttentionWithSWA(d_in=3, d_out=4, dropout=0.0, num_heads=2, sliding_window_size=3)
full = swa(x)
steps = [("full", full)]
for i in range(x.shape[1]):
    out = swa(x[:, i:i + 1, :], use_cache=True)
    print(i, tuple(swa.cache_k.shape), (out - full[:, i:i + 1, :]).abs().max().item())
    steps += [("out", out), ("swa.cache_k", swa.cache_k)]

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export(steps, "swa", "export.json")
# --- end export ---
