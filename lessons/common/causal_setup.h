#pragma once
// Cells shared by causal-mask and dropout: SelfAttention_v2 (seed 789) and the causal weights.
#include "lessons/lesson.h"
#include "notebook/notebook.h"
#include "nn/self_attention.h"

namespace attn {

struct CausalWeights {
  Tensor queries, keys, values, attn_scores, attn_weights_unmasked, mask, masked, attn_weights;
};

// Computes the §3.5.1 tensors. When `nb` is given, also writes the cells that build sa_v2
// (`verbose` false writes one compact recap cell instead of the step-by-step cells).
CausalWeights causal_weights(const LessonOptions& opt, Notebook* nb, bool verbose);

// The §3.5.3 cell `batch = torch.stack((inputs, inputs), dim=0)`, preceded by the inputs' own code
// when `with_inputs`, with its note and explanation; records and returns batch (2, num_tokens, d_in).
Tensor batch_cell(Notebook& nb, const LessonOptions& opt, bool with_inputs);

// The class text of listing 3.2 / 3.3, for the code cells.
std::vector<std::string> self_attention_v2_class_code();
std::vector<std::string> causal_attention_class_code();
std::vector<std::string> wrapper_class_code();
std::vector<std::string> multihead_attention_class_code();

}  // namespace attn
