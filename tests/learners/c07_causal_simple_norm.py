# causal-mask, the simple way of 3.5.1: weights times tril, each row renormalised.
import torch
import torch.nn as nn

# <book: inputs>

torch.manual_seed(789)
W_query = nn.Linear(3, 2, bias=False)
W_key = nn.Linear(3, 2, bias=False)
W_value = nn.Linear(3, 2, bias=False)

queries = W_query(inputs)
keys = W_key(inputs)
attn_scores = queries @ keys.T
attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=1)
context_length = attn_scores.shape[0]
mask_simple = torch.tril(torch.ones(context_length, context_length))
masked_simple = attn_weights * mask_simple
row_sums = masked_simple.sum(dim=-1, keepdim=True)
masked_simple_norm = masked_simple / row_sums
print(masked_simple_norm)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export({"queries": queries, "keys": keys, "attn_scores": attn_scores, "attn_weights": attn_weights,
        "mask_simple": mask_simple, "masked_simple": masked_simple, "row_sums": row_sums,
        "masked_simple_norm": masked_simple_norm}, "causal-mask", "export.json")
# --- end export ---
