# dropout lesson, the book's CausalAttention run step by step on the batch.
import torch
import torch.nn as nn

inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
batch = torch.stack((inputs, inputs), dim=0)


# <book: CausalAttention.__init__>


torch.manual_seed(123)
ca = CausalAttention(3, 2, 6, 0.0)
num_tokens = batch.shape[1]
keys = ca.W_key(batch)
queries = ca.W_query(batch)
values = ca.W_value(batch)
attn_scores = queries @ keys.transpose(1, 2)
attn_scores.masked_fill_(ca.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
attn_weights = ca.dropout(attn_weights)
context_vecs = attn_weights @ values
print(context_vecs)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export({"keys": keys, "queries": queries, "values": values, "attn_scores": attn_scores,
        "attn_weights": attn_weights, "context_vecs": context_vecs}, "dropout", "export.json")
# --- end export ---
