# dropout with F.dropout instead of nn.Dropout, and a CausalAttention with reshape/einsum.
import torch
import torch.nn as nn
import torch.nn.functional as F

inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
batch = torch.stack((inputs, inputs), dim=0)


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.p = dropout
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        T = x.shape[1]
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = torch.einsum("btd,bsd->bts", queries, keys)
        attn_scores = attn_scores.masked_fill(self.mask[:T, :T].bool(), float("-inf"))
        attn_weights = F.softmax(attn_scores * keys.shape[-1]**-0.5, dim=-1)
        attn_weights = F.dropout(attn_weights, self.p, training=self.training)
        return torch.einsum("bts,bsd->btd", attn_weights, values)


torch.manual_seed(123)
ca = CausalAttention(3, 2, batch.shape[1], 0.0)
context_vecs = ca(batch)
print(context_vecs)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export({"batch": batch, "context_vecs": context_vecs}, "dropout", "export.json")
# --- end export ---
