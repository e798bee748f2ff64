# trainable with torch.matmul and math.sqrt, weights as plain tensors.
import math
import torch

inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])

torch.manual_seed(123)
W_query = torch.rand(3, 2)
W_key = torch.rand(3, 2)
W_value = torch.rand(3, 2)

query_2 = torch.matmul(inputs[1], W_query)
keys = torch.matmul(inputs, W_key)
values = torch.matmul(inputs, W_value)
attn_scores_2 = torch.matmul(keys, query_2)
attn_weights_2 = torch.softmax(attn_scores_2 / math.sqrt(keys.shape[1]), dim=0)
context_vec_2 = torch.matmul(attn_weights_2, values)
print(context_vec_2)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export({"keys": keys, "values": values, "attn_scores_2": attn_scores_2, "attn_weights_2": attn_weights_2,
        "context_vec_2": context_vec_2}, "trainable", "export.json")
# --- end export ---
