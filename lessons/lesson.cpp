#include "lesson.h"

namespace attn {

nlohmann::json LessonOptions::config_json() const {
  nlohmann::json c;
  if (!seed) c["seed"] = nullptr;  // the book's torch.manual_seed values
  else if (!seed_text.empty() && seed_text[0] == '-') c["seed"] = std::stoll(seed_text);
  else c["seed"] = std::stoull(seed_text[0] == '+' ? seed_text.substr(1) : seed_text);
  c["inputs"] = inputs_source.empty() ? "book" : inputs_source;
  c["d_in"] = inputs.embeddings.size(1);
  c["num_tokens"] = inputs.embeddings.size(0);
  c["d_out"] = d_out;
  c["qkv_bias"] = qkv_bias;
  c["init"] = init == Init::Rand ? "rand" : "randn";
  c["num_heads"] = num_heads ? nlohmann::json(*num_heads) : nlohmann::json(nullptr);
  c["dropout"] = dropout ? nlohmann::json(*dropout) : nlohmann::json(nullptr);
  c["context_length"] = context_length ? *context_length : inputs.embeddings.size(0);
  c["bernoulli"] = bernoulli == BernoulliPath::Default ? "default" : "mkl";
  c["no_reseed"] = no_reseed;
  c["gpt2"] = gpt2;
  c["preset"] = preset;
  c["d_model"] = d_model ? nlohmann::json(*d_model) : nlohmann::json(nullptr);
  c["num_hiddens"] = num_hiddens ? nlohmann::json(*num_hiddens) : nlohmann::json(nullptr);
  c["valid_lens"] = valid_lens ? nlohmann::json(*valid_lens) : nlohmann::json(nullptr);
  return c;
}

const std::vector<LessonInfo>& lessons() {
  static const std::vector<LessonInfo> all = {
      {"naive-scores", {"3.3.1", "3.3.2"}, "Attention scores from plain dot products",
       "dot products of the query \"journey\" with every token, then all pairs at once",
       naive_scores_lesson},
      {"softmax", {"3.3.1", "3.3.2"}, "Attention weights and context vectors",
       "normalise scores with softmax, weight the inputs into context vectors",
       softmax_lesson},
      {"trainable", {"3.4.1", "3.4.2"}, "Self-attention with trainable weights",
       "W_query, W_key, W_value, scaled dot-product attention, SelfAttention_v1/v2",
       trainable_lesson},
      {"causal-mask", {"3.5.1"}, "Causal attention: hiding future tokens",
       "mask the weights above the diagonal, renormalise, and the -inf trick", causal_mask_lesson},
      {"dropout", {"3.5.2", "3.5.3"}, "Dropout on attention weights, and CausalAttention",
       "Dropout(p) masks and its 1/(1-p) scale, a batch, the CausalAttention class", dropout_lesson},
      {"wrapper", {"3.6.1"}, "Multi-head attention by stacking heads",
       "MultiHeadAttentionWrapper, one CausalAttention per head, outputs concatenated", wrapper_lesson},
      {"mha", {"3.6.2"}, "Multi-head attention with weight splits",
       "MultiHeadAttention, view/transpose into heads, batched matmul, out_proj", mha_lesson},
      {"course-mha", {"002"}, "A course's multi-head attention",
       "one Attention module per head, cat, projection and dropout; each head checked against CausalAttention",
       course_mha_lesson},
      {"d2l-mha", {"004"}, "d2l's multi-head attention with padding masks",
       "masked_softmax with valid_lens, transpose_qkv/transpose_output beside the book's split, d2l's "
       "MultiHeadAttention", d2l_mha_lesson},
  };
  return all;
}

const LessonInfo* find_lesson(const std::string& name) {
  for (const LessonInfo& l : lessons())
    if (l.name == name) return &l;
  return nullptr;
}

}  // namespace attn
