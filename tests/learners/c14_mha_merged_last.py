# mha with reshape and F.linear; exports the merged heads (the book's printed context_vec) last.
import torch
import torch.nn as nn
import torch.nn.functional as F

inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
batch = torch.stack((inputs, inputs), dim=0)

torch.manual_seed(123)
W_query = nn.Linear(3, 2, bias=False)
W_key = nn.Linear(3, 2, bias=False)
W_value = nn.Linear(3, 2, bias=False)
out_proj = nn.Linear(2, 2)

b, T, _ = batch.shape
H, hd = 2, 1
queries = F.linear(batch, W_query.weight).reshape(b, T, H, hd).transpose(1, 2)
keys = F.linear(batch, W_key.weight).reshape(b, T, H, hd).transpose(1, 2)
values = F.linear(batch, W_value.weight).reshape(b, T, H, hd).transpose(1, 2)
attn_scores = queries @ keys.transpose(2, 3)
causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
attn_weights = torch.softmax(attn_scores.masked_fill(causal, -torch.inf) / hd**0.5, dim=-1)
context_vec = (attn_weights @ values).transpose(1, 2).reshape(b, T, H * hd)
print(context_vec)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export({"attn_weights": attn_weights, "context_vec": context_vec}, "mha", "export.json")
# --- end export ---
