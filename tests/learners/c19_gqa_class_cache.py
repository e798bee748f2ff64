# gqa: the bonus GroupedQueryAttention, its full forward, then the cache one token at a time.
import torch
import torch.nn as nn

torch.set_grad_enabled(False)
inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
x = inputs.unsqueeze(0)


class GroupedQueryAttention(nn.Module):
    def __init__(self, d_in, d_out, dropout, num_heads, num_kv_groups, qkv_bias=False):
        super().__init__()
        self.d_out, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads
        self.W_key = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=qkv_bias)
        self.num_kv_groups = num_kv_groups
        self.group_size = num_heads // num_kv_groups
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out, bias=False)
        self.dropout = nn.Dropout(dropout)
        self.cache_k = self.cache_v = None
        self.ptr_current_pos = 0

    def forward(self, x, use_cache=False):
        b, n, _ = x.shape
        queries = self.W_query(x).view(b, n, self.num_heads, self.head_dim).transpose(1, 2)
        keys_new = self.W_key(x).view(b, n, self.num_kv_groups, self.head_dim).transpose(1, 2)
        values_new = self.W_value(x).view(b, n, self.num_kv_groups, self.head_dim).transpose(1, 2)
        if use_cache:
            if self.cache_k is None:
                self.cache_k, self.cache_v = keys_new, values_new
            else:
                self.cache_k = torch.cat([self.cache_k, keys_new], dim=2)
                self.cache_v = torch.cat([self.cache_v, values_new], dim=2)
            keys, values = self.cache_k, self.cache_v
        else:
            keys, values = keys_new, values_new
            self.reset_cache()
        keys = keys.repeat_interleave(self.group_size, dim=1)
        values = values.repeat_interleave(self.group_size, dim=1)
        nq, nk = queries.shape[-2], keys.shape[-2]
        start = self.ptr_current_pos if use_cache else 0
        self.ptr_current_pos = start + nq if use_cache else 0
        mask = torch.arange(start, start + nq).unsqueeze(-1) < torch.arange(nk).unsqueeze(0)
        attn_scores = torch.einsum("bhqd,bhkd->bhqk", queries, keys).masked_fill(mask, -torch.inf)
        attn_weights = self.dropout(torch.softmax(attn_scores / self.head_dim**0.5, dim=-1))
        context_vec = torch.einsum("bhqk,bhkd->bqhd", attn_weights, values).reshape(b, nq, self.d_out)
        return self.out_proj(context_vec)

    def reset_cache(self):
        self.cache_k = self.cache_v = None
        self.ptr_current_pos = 0


torch.manual_seed(123)
gqa = GroupedQueryAttention(d_in=3, d_out=8, dropout=0.0, num_heads=4, num_kv_groups=2)
full = gqa(x)
gqa.reset_cache()
steps = [("full", full)]
for i in range(x.shape[1]):
    out = gqa(x[:, i:i + 1, :], use_cache=True)
    steps += [("out", out), ("gqa.cache_k", gqa.cache_k)]
print(full)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export(steps, "gqa", "export.json")
# --- end export ---
