# gqa with expand + reshape instead of repeat_interleave.
import torch
import torch.nn as nn

torch.set_grad_enabled(False)
inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
x = inputs.unsqueeze(0)

d_in, d_out, num_heads, num_kv_groups = 3, 8, 4, 2
head_dim, group_size = d_out // num_heads, num_heads // num_kv_groups
torch.manual_seed(123)
W_key = nn.Linear(d_in, num_kv_groups * head_dim, bias=False)
W_value = nn.Linear(d_in, num_kv_groups * head_dim, bias=False)
W_query = nn.Linear(d_in, d_out, bias=False)
out_proj = nn.Linear(d_out, d_out, bias=False)

b, T, _ = x.shape
queries = W_query(x).view(b, T, num_heads, head_dim).transpose(1, 2)
keys_new = W_key(x).view(b, T, num_kv_groups, head_dim).transpose(1, 2)
values_new = W_value(x).view(b, T, num_kv_groups, head_dim).transpose(1, 2)
keys = keys_new[:, :, None].expand(b, num_kv_groups, group_size, T, head_dim).reshape(b, num_heads, T, head_dim)
values = values_new[:, :, None].expand(b, num_kv_groups, group_size, T, head_dim).reshape(b, num_heads, T, head_dim)
attn_scores = queries @ keys.transpose(2, 3)
future = torch.ones(T, T).triu(1).bool()
attn_weights = torch.softmax(attn_scores.masked_fill(future, -torch.inf) / head_dim**0.5, dim=-1)
context_vec = (attn_weights @ values).transpose(1, 2).reshape(b, T, d_out)
full = out_proj(context_vec)
print(full)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export({"queries": queries, "keys_new": keys_new, "values_new": values_new, "keys": keys, "values": values,
        "attn_weights": attn_weights, "context_vec": context_vec, "full": full}, "gqa", "export.json")
# --- end export ---
