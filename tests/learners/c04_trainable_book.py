# trainable, as in 3.4.1 (the weights as Parameters, one query).
import torch

inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
x_2 = inputs[1]
d_in, d_out = inputs.shape[1], 2

torch.manual_seed(123)
W_query = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
W_key = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
W_value = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)

query_2 = x_2 @ W_query
keys = inputs @ W_key
values = inputs @ W_value
attn_scores_2 = query_2 @ keys.T
d_k = keys.shape[-1]
attn_weights_2 = torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)
context_vec_2 = attn_weights_2 @ values
print(context_vec_2)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export({"W_query": W_query, "W_key": W_key, "W_value": W_value, "query_2": query_2, "keys": keys,
        "values": values, "attn_scores_2": attn_scores_2, "attn_weights_2": attn_weights_2,
        "context_vec_2": context_vec_2}, "trainable", "export.json")
# --- end export ---
