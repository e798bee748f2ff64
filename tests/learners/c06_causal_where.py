# causal-mask with torch.where for the -inf and F.linear with the layers' weights.
import torch
import torch.nn as nn
import torch.nn.functional as F

inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])


# <book: SelfAttention_v2.__init__>


torch.manual_seed(789)
sa_v2 = SelfAttention_v2(3, 2)
queries = F.linear(inputs, sa_v2.W_query.weight)
keys = F.linear(inputs, sa_v2.W_key.weight)
attn_scores = queries @ keys.T

n = attn_scores.shape[0]
future = torch.ones(n, n).triu(1).bool()
masked = torch.where(future, torch.full_like(attn_scores, float("-inf")), attn_scores)
attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)
values = F.linear(inputs, sa_v2.W_value.weight)
context_vec = attn_weights @ values
print(context_vec)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export({"queries": queries, "keys": keys, "attn_scores": attn_scores, "masked": masked,
        "attn_weights": attn_weights, "values": values, "context_vec": context_vec}, "causal-mask", "export.json")
# --- end export ---
