# softmax, with torch.nn.functional and matmul instead of the loops.
import torch
import torch.nn.functional as F

inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])

query = inputs[1]
attn_scores_2 = inputs @ query
attn_weights_2 = F.softmax(attn_scores_2, dim=0)
print(attn_weights_2, attn_weights_2.sum())

context_vec_2 = attn_weights_2 @ inputs
print(context_vec_2)

attn_scores = torch.matmul(inputs, inputs.T)
attn_weights = F.softmax(attn_scores, dim=-1)
all_context_vecs = torch.matmul(attn_weights, inputs)
print(all_context_vecs)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export({"attn_scores_2": attn_scores_2, "attn_weights_2": attn_weights_2, "context_vec_2": context_vec_2,
        "attn_scores": attn_scores, "attn_weights": attn_weights, "all_context_vecs": all_context_vecs},
       "softmax", "export.json")
# --- end export ---
