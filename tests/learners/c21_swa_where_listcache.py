# swa: the band mask with torch.where, then a list cache that keeps the last W keys and values.
import torch
import torch.nn as nn

torch.set_grad_enabled(False)
inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
x = inputs.unsqueeze(0)
W = 3

torch.manual_seed(123)
W_query = nn.Linear(3, 4, bias=False)
W_key = nn.Linear(3, 4, bias=False)
W_value = nn.Linear(3, 4, bias=False)
out_proj = nn.Linear(4, 4)


def heads(t):
    b, n, _ = t.shape
    return t.view(b, n, 2, 2).transpose(1, 2)


b, T, _ = x.shape
queries, keys, values = heads(W_query(x)), heads(W_key(x)), heads(W_value(x))
diff = torch.arange(T)[:, None] - torch.arange(T)[None, :]
mask_bool = (diff < 0) | (diff >= W)
attn_scores = torch.where(mask_bool, torch.tensor(float("-inf")), queries @ keys.transpose(2, 3))
attn_weights = torch.softmax(attn_scores / 2**0.5, dim=-1)
context_vec = (attn_weights @ values).transpose(1, 2).reshape(b, T, 4)
full = out_proj(context_vec)

ks, vs, outs = [], [], []
for i in range(T):
    xi = x[:, i:i + 1, :]
    ks = (ks + [heads(W_key(xi))])[-W:]
    vs = (vs + [heads(W_value(xi))])[-W:]
    k, v = torch.cat(ks, dim=2), torch.cat(vs, dim=2)
    w = torch.softmax(heads(W_query(xi)) @ k.transpose(2, 3) / 2**0.5, dim=-1)
    out = out_proj((w @ v).transpose(1, 2).reshape(b, 1, 4))
    outs.append(("out", out))
print(full)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export([("queries", queries), ("keys", keys), ("values", values), ("diff", diff), ("mask_bool", mask_bool),
        ("attn_scores", attn_scores), ("attn_weights", attn_weights), ("context_vec", context_vec),
        ("full", full)] + outs, "swa", "export.json")
# --- end export ---
