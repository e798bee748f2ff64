# mla, the bonus MultiHeadLatentAttention's steps: latent, keys and values up, heads, weights.
import torch
import torch.nn as nn

torch.set_grad_enabled(False)
inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
x = inputs.unsqueeze(0)


class MultiHeadLatentAttention(nn.Module):
    def __init__(self, d_in, d_out, dropout, num_heads, qkv_bias=False, latent_dim=None):
        super().__init__()
        self.d_out, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads
        self.latent_dim = latent_dim if latent_dim is not None else max(16, d_out // 8)
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_DKV = nn.Linear(d_in, self.latent_dim, bias=qkv_bias)
        self.W_UK = nn.Linear(self.latent_dim, d_out, bias=qkv_bias)
        self.W_UV = nn.Linear(self.latent_dim, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)


torch.manual_seed(123)
mla = MultiHeadLatentAttention(d_in=3, d_out=4, dropout=0.0, num_heads=2, latent_dim=2)
queries_all = mla.W_query(x)
latent = mla.W_DKV(x)
keys_all = mla.W_UK(latent)
values_all = mla.W_UV(latent)
b, num_tokens, _ = x.shape
queries = queries_all.view(b, num_tokens, mla.num_heads, mla.head_dim).transpose(1, 2)
keys = keys_all.view(b, num_tokens, mla.num_heads, mla.head_dim).transpose(1, 2)
values = values_all.view(b, num_tokens, mla.num_heads, mla.head_dim).transpose(1, 2)
attn_scores = queries @ keys.transpose(-2, -1)
mask_bool = torch.arange(num_tokens).unsqueeze(-1) < torch.arange(num_tokens).unsqueeze(0)
attn_weights = torch.softmax(attn_scores.masked_fill(mask_bool, -torch.inf) / keys.shape[-1]**0.5, dim=-1)
context_vec = (attn_weights @ values).transpose(1, 2).contiguous().view(b, num_tokens, mla.d_out)
full = mla.out_proj(context_vec)
print(full)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export({"queries_all": queries_all, "latent": latent, "keys_all": keys_all, "values_all": values_all,
        "queries": queries, "keys": keys, "values": values, "attn_scores": attn_scores, "mask_bool": mask_bool,
        "attn_weights": attn_weights, "context_vec": context_vec, "full": full}, "mla", "export.json")
# --- end export ---
