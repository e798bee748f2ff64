# softmax written out by hand: exp over the sum, the context vector as a weighted sum.
import torch

inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])


def softmax_naive(x):
    return torch.exp(x) / torch.exp(x).sum(dim=0)


query = inputs[1]
attn_scores_2 = torch.zeros(inputs.shape[0])
for i in range(inputs.shape[0]):
    attn_scores_2[i] = (inputs[i] * query).sum()
attn_weights_2_naive = softmax_naive(attn_scores_2)
print(attn_weights_2_naive)

context_vec_2 = torch.zeros(3)
for i, x_i in enumerate(inputs):
    context_vec_2 = context_vec_2 + attn_weights_2_naive[i] * x_i
print(context_vec_2)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export({"attn_scores_2": attn_scores_2, "attn_weights_2_naive": attn_weights_2_naive,
        "context_vec_2": context_vec_2}, "softmax", "export.json")
# --- end export ---
