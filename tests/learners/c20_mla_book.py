# mla, the bonus MultiHeadLatentAttention's layers built outside a class, and its steps: latent, keys and
# values up, heads, weights.
import torch
import torch.nn as nn

torch.set_grad_enabled(False)
inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
x = inputs.unsqueeze(0)
d_in, d_out, num_heads, latent_dim = 3, 4, 2, 2
head_dim = d_out // num_heads

torch.manual_seed(123)
W_query = nn.Linear(d_in, d_out, bias=False)
W_DKV = nn.Linear(d_in, latent_dim, bias=False)
W_UK = nn.Linear(latent_dim, d_out, bias=False)
W_UV = nn.Linear(latent_dim, d_out, bias=False)
out_proj = nn.Linear(d_out, d_out)

queries_all = W_query(x)
latent = W_DKV(x)
keys_all = W_UK(latent)
values_all = W_UV(latent)
b, num_tokens, _ = x.shape
queries = queries_all.view(b, num_tokens, num_heads, head_dim).transpose(1, 2)
keys = keys_all.view(b, num_tokens, num_heads, head_dim).transpose(1, 2)
values = values_all.view(b, num_tokens, num_heads, head_dim).transpose(1, 2)
attn_scores = queries @ keys.transpose(-2, -1)
mask_bool = torch.arange(num_tokens).unsqueeze(-1) < torch.arange(num_tokens).unsqueeze(0)
attn_weights = torch.softmax(attn_scores.masked_fill(mask_bool, -torch.inf) / keys.shape[-1]**0.5, dim=-1)
context_vec = (attn_weights @ values).transpose(1, 2).contiguous().view(b, num_tokens, d_out)
full = out_proj(context_vec)
print(full)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export({"queries_all": queries_all, "latent": latent, "keys_all": keys_all, "values_all": values_all,
        "queries": queries, "keys": keys, "values": values, "attn_scores": attn_scores, "mask_bool": mask_bool,
        "attn_weights": attn_weights, "context_vec": context_vec, "full": full}, "mla", "export.json")
# --- end export ---
