# naive-scores, einsum style: the dot products of 3.3.1 without loops.
import torch

inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])

query = inputs[1]
attn_scores_2 = torch.einsum("td,d->t", inputs, query)
print(attn_scores_2)

attn_scores = torch.einsum("id,jd->ij", inputs, inputs)
print(attn_scores)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export({"inputs": inputs, "query": query, "attn_scores_2": attn_scores_2, "attn_scores": attn_scores},
       "naive-scores", "export.json")
# --- end export ---
