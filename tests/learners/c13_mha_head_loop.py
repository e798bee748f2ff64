# mha with a loop over the heads: each head's slice of the projections, einsum for the scores.
import torch
import torch.nn as nn

inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
batch = torch.stack((inputs, inputs), dim=0)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.d_out, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        T = x.shape[1]
        q_all, k_all, v_all = self.W_query(x), self.W_key(x), self.W_value(x)
        outs = []
        for h in range(self.num_heads):
            sl = slice(h * self.head_dim, (h + 1) * self.head_dim)
            s = torch.einsum("btd,bsd->bts", q_all[..., sl], k_all[..., sl])
            s = s.masked_fill(self.mask[:T, :T].bool(), -torch.inf)
            w = self.dropout(torch.softmax(s / self.head_dim**0.5, dim=-1))
            outs.append(w @ v_all[..., sl])
        return self.out_proj(torch.cat(outs, dim=-1))


torch.manual_seed(123)
mha = MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)
context_vecs = mha(batch)
print(context_vecs)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export({"context_vecs": context_vecs}, "mha", "export.json")
# --- end export ---
