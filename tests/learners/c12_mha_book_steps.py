# mha, the book's MultiHeadAttention run one step at a time, each step's tensor exported.
import torch
import torch.nn as nn

inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
batch = torch.stack((inputs, inputs), dim=0)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1))


torch.manual_seed(123)
mha = MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)
b, num_tokens, d_in = batch.shape
keys = mha.W_key(batch)
queries = mha.W_query(batch)
values = mha.W_value(batch)
keys = keys.view(b, num_tokens, mha.num_heads, mha.head_dim).transpose(1, 2)
queries = queries.view(b, num_tokens, mha.num_heads, mha.head_dim).transpose(1, 2)
values = values.view(b, num_tokens, mha.num_heads, mha.head_dim).transpose(1, 2)
attn_scores = queries @ keys.transpose(2, 3)
attn_scores.masked_fill_(mha.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
attn_weights = mha.dropout(attn_weights)
context_vec = (attn_weights @ values).transpose(1, 2).contiguous().view(b, num_tokens, mha.d_out)
context_vecs = mha.out_proj(context_vec)
print(context_vecs)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export({"keys": keys, "queries": queries, "values": values, "attn_scores": attn_scores,
        "attn_weights": attn_weights, "context_vec": context_vec, "context_vecs": context_vecs},
       "mha", "export.json")
# --- end export ---
