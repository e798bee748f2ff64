# kv-cache, the bonus class as the book's MultiHeadAttention with a cache: full, the step loop with its
# masks and weights, reset, a prompt and the rest.
import torch
import torch.nn as nn

torch.set_grad_enabled(False)
# <book: inputs>
x = inputs.unsqueeze(0)


# <book: MultiHeadAttention>


class MultiHeadAttentionCached(MultiHeadAttention):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__(d_in, d_out, context_length, dropout, num_heads, qkv_bias)
        self.register_buffer("cache_k", None, persistent=False)
        self.register_buffer("cache_v", None, persistent=False)
        self.ptr_current_pos = 0

    def forward(self, x, use_cache=False):
        b, num_tokens, d_in = x.shape
        keys_new = self.W_key(x).view(b, num_tokens, self.num_heads, self.head_dim)
        values_new = self.W_value(x).view(b, num_tokens, self.num_heads, self.head_dim)
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim)
        if use_cache:
            if self.cache_k is None:
                self.cache_k, self.cache_v = keys_new, values_new
            else:
                self.cache_k = torch.cat([self.cache_k, keys_new], dim=1)
                self.cache_v = torch.cat([self.cache_v, values_new], dim=1)
            keys, values = self.cache_k, self.cache_v
        else:
            keys, values = keys_new, values_new
        keys, queries, values = keys.transpose(1, 2), queries.transpose(1, 2), values.transpose(1, 2)
        num_tokens_Q, num_tokens_K = queries.shape[-2], keys.shape[-2]
        if use_cache:
            mask_bool = self.mask.bool()[self.ptr_current_pos:self.ptr_current_pos + num_tokens_Q, :num_tokens_K]
            self.ptr_current_pos += num_tokens_Q
        else:
            mask_bool = self.mask.bool()[:num_tokens_Q, :num_tokens_K]
        attn_scores = queries @ keys.transpose(2, 3)
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        self.mask_bool, self.attn_weights = mask_bool, attn_weights
        context_vec = (attn_weights @ values).transpose(1, 2).contiguous().view(b, num_tokens_Q, self.d_out)
        return self.out_proj(context_vec)

    def reset_cache(self):
        self.cache_k, self.cache_v = None, None
        self.ptr_current_pos = 0


torch.manual_seed(123)
mha = MultiHeadAttentionCached(d_in=3, d_out=4, context_length=6, dropout=0.0, num_heads=2)
full = mha(x)
steps = [("x", x), ("attn_weights", mha.attn_weights), ("full", full)]
for i in range(6):
    out = mha(x[:, i:i + 1, :], use_cache=True)
    steps += [("cache_k", mha.cache_k), ("mask_bool", mha.mask_bool), ("attn_weights", mha.attn_weights),
              ("out", out)]
mha.reset_cache()
prompt = mha(x[:, :3, :], use_cache=True)
rest = mha(x[:, 3:, :], use_cache=True)
steps += [("prompt", prompt), ("mask_bool", mha.mask_bool), ("rest", rest)]
print(rest)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export(steps, "kv-cache", "export.json")
# --- end export ---
