# kv-cache with Python lists as the cache, one token at a time, against the full forward.
import torch
import torch.nn as nn

torch.set_grad_enabled(False)
inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
x = inputs.unsqueeze(0)


class CachedMHA(nn.Module):
    def __init__(self, d_in, d_out, num_heads):
        super().__init__()
        self.d_out, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=False)
        self.W_key = nn.Linear(d_in, d_out, bias=False)
        self.W_value = nn.Linear(d_in, d_out, bias=False)
        self.out_proj = nn.Linear(d_out, d_out)
        self.ks, self.vs = [], []

    def split(self, t):
        b, n, _ = t.shape
        return t.view(b, n, self.num_heads, self.head_dim).transpose(1, 2)

    def forward(self, x, use_cache=False):
        b, n, _ = x.shape
        q = self.split(self.W_query(x))
        k = self.split(self.W_key(x))
        v = self.split(self.W_value(x))
        start = 0
        if use_cache:
            start = sum(t.shape[2] for t in self.ks)
            self.ks.append(k)
            self.vs.append(v)
            k, v = torch.cat(self.ks, dim=2), torch.cat(self.vs, dim=2)
        pos_q = torch.arange(start, start + n)[:, None]
        pos_k = torch.arange(k.shape[2])[None, :]
        s = (q @ k.transpose(2, 3)).masked_fill(pos_k > pos_q, -torch.inf)
        w = torch.softmax(s / self.head_dim**0.5, dim=-1)
        ctx = (w @ v).transpose(1, 2).reshape(b, n, self.d_out)
        return self.out_proj(ctx)


torch.manual_seed(123)
mha = CachedMHA(3, 4, 2)
full = mha(x)
outs = []
for i in range(6):
    out = mha(x[:, i:i + 1, :], use_cache=True)
    outs.append(("out", out))
print(full)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export([("x", x), ("full", full)] + outs, "kv-cache", "export.json")
# --- end export ---
