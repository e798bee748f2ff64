// The lessons, one row each: the registry every command, help text, completion and table is built from.
// A new lesson is its folder lessons/NAME/ (its cells and its text.txt) plus one row here.
#include "lessons/lesson.h"
#include "lessons/lesson_work.h"

namespace attn {

Notebook naive_scores_lesson(const LessonOptions& opt);  // lessons/naive-scores/
Notebook softmax_lesson(const LessonOptions& opt);       // lessons/softmax/
Notebook trainable_lesson(const LessonOptions& opt);     // lessons/trainable/
Notebook causal_mask_lesson(const LessonOptions& opt);   // lessons/causal-mask/
Notebook dropout_lesson(const LessonOptions& opt);       // lessons/dropout/
Notebook wrapper_lesson(const LessonOptions& opt);       // lessons/wrapper/
Notebook mha_lesson(const LessonOptions& opt);           // lessons/mha/
Notebook course_mha_lesson(const LessonOptions& opt);    // lessons/course-mha/
Notebook d2l_mha_lesson(const LessonOptions& opt);       // lessons/d2l-mha/
Notebook kv_cache_lesson(const LessonOptions& opt);      // lessons/kv-cache/
Notebook gqa_lesson(const LessonOptions& opt);           // lessons/gqa/
Notebook mla_lesson(const LessonOptions& opt);           // lessons/mla/
Notebook swa_lesson(const LessonOptions& opt);           // lessons/swa/
Notebook mha_forms_lesson(const LessonOptions& opt);     // lessons/mha-forms/

LessonWork naive_scores_work(const LessonOptions& opt);  // lessons/naive-scores/cost.cpp
LessonWork softmax_work(const LessonOptions& opt);       // lessons/softmax/cost.cpp
LessonWork trainable_work(const LessonOptions& opt);     // lessons/trainable/cost.cpp
LessonWork causal_mask_work(const LessonOptions& opt);   // lessons/causal-mask/cost.cpp
LessonWork dropout_work(const LessonOptions& opt);       // lessons/dropout/cost.cpp
LessonWork wrapper_work(const LessonOptions& opt);       // lessons/wrapper/cost.cpp
LessonWork mha_work(const LessonOptions& opt);           // lessons/mha/cost.cpp
LessonWork course_mha_work(const LessonOptions& opt);    // lessons/course-mha/cost.cpp
LessonWork d2l_mha_work(const LessonOptions& opt);       // lessons/d2l-mha/cost.cpp
LessonWork kv_cache_work(const LessonOptions& opt);      // lessons/kv-cache/cost.cpp
LessonWork gqa_work(const LessonOptions& opt);           // lessons/gqa/cost.cpp
LessonWork mla_work(const LessonOptions& opt);           // lessons/mla/cost.cpp
LessonWork swa_work(const LessonOptions& opt);           // lessons/swa/cost.cpp
LessonWork mha_forms_work(const LessonOptions& opt);     // lessons/mha-forms/cost.cpp

const std::vector<LessonInfo>& lessons() {
  static const std::vector<LessonInfo> all = {
      // name, the sections it replays, the options it takes beyond the common ones, its own defaults (where
      // lessons/options.txt states none or another), its cells, the tensors its --json export holds with
      // the default options (each name once, in order of first appearance), and its work (the cost model's)
      {"naive-scores",
       {"3.3.1", "3.3.2"},
       {},
       {},
       naive_scores_lesson,
       {"inputs", "query", "attn_scores_2", "res", "torch.dot(inputs[0], query)", "attn_scores"},
       naive_scores_work},
      {"softmax",
       {"3.3.1", "3.3.2"},
       {},
       {},
       softmax_lesson,
       {"attn_scores_2", "attn_weights_2_tmp", "attn_weights_2_tmp.sum()", "attn_weights_2_naive",
        "attn_weights_2_naive.sum()", "attn_weights_2", "attn_weights_2.sum()", "context_vec_2", "attn_scores",
        "attn_weights", "attn_weights.sum(dim=-1)", "all_context_vecs", "big_scores", "softmax_naive(big_scores)",
        "shifted", "torch.exp(shifted)", "torch.softmax(big_scores, dim=0)"},
       softmax_work},
      {"trainable",
       {"3.4.1", "3.4.2"},
       {"--d-out", "--init"},
       {},
       trainable_lesson,
       {"inputs",
        "x_2",
        "W_query",
        "W_key",
        "W_value",
        "query_2",
        "key_2",
        "value_2",
        "keys",
        "values",
        "keys_2",
        "attn_score_22",
        "attn_scores_2",
        "d_k",
        "attn_weights_2",
        "context_vec_2",
        "sa_v1(inputs)",
        "sa_v2(inputs)",
        "sa_v2.W_query.weight",
        "sa_v2.W_key.weight",
        "sa_v2.W_value.weight"},
       trainable_work},
      {"causal-mask",
       {"3.5.1"},
       {"--d-out"},
       {},
       causal_mask_lesson,  // its mask is the scores' size: no buffer, no dropout
       {"queries", "keys", "attn_scores", "attn_weights", "context_length", "mask_simple", "masked_simple", "row_sums",
        "masked_simple_norm", "mask", "masked", "(masked_simple_norm - attn_weights).abs().max()", "mask_simple.bool()",
        "mask.bool()", "values", "context_vec"},
       causal_mask_work},
      {"dropout",
       {"3.5.2", "3.5.3"},
       {"--d-out", "--dropout", "--context-length", "--bernoulli"},
       {{"--dropout", "0.5"}},
       dropout_lesson,
       {"attn_weights", "example", "dropout(example)", "dropout(attn_weights)", "dropout(attn_weights).sum(dim=-1)",
        "batch", "keys", "queries", "values", "attn_scores", "context_vecs"},
       dropout_work},
      {"wrapper",
       {"3.6.1"},
       {"--d-out", "--num-heads", "--dropout", "--context-length", "--bernoulli", "--no-reseed"},
       {{"--num-heads", "2"}, {"--dropout", "0.0"}},
       wrapper_lesson,
       {"batch", "context_vecs", "head_outputs[0]", "head_outputs[1]", "torch.cat(head_outputs, dim=-1)"},
       wrapper_work},
      {"mha",
       {"3.6.2"},
       {"--d-out", "--num-heads", "--dropout", "--context-length", "--bernoulli", "--gpt2"},
       {{"--num-heads", "2"}, {"--dropout", "0.0"}},
       mha_lesson,
       {"a", "a @ a.transpose(2, 3)", "first_head", "first_res", "second_head", "second_res", "batch", "context_vecs",
        "keys", "queries", "values", "attn_scores", "mask_bool", "attn_weights", "attn_weights @ values", "context_vec",
        "mha.out_proj.weight", "mha.out_proj.bias"},
       mha_work},
      {"course-mha",
       {"course"},
       {"--num-heads", "--dropout", "--context-length", "--bernoulli", "--preset", "--d-model"},
       {{"--num-heads", ""}, {"--dropout", "0.1"}},
       course_mha_lesson,
       {"x", "mha.heads[0].Wq.weight", "out", "q", "k", "v", "q @ k.transpose(-2, -1)", "weights", "self.mask[:T, :T]",
        "self.mask[:T, :T] == 0", "output", "head_outputs[0]", "head_outputs[1]", "head_outputs[2]", "head_outputs",
        "self.projection_layer.weight", "self.projection_layer.bias", "out_course", "out_book"},
       course_mha_work},
      {"d2l-mha",
       {"d2l 11.5"},
       {"--num-heads", "--dropout", "--bernoulli", "--num-hiddens", "--valid-lens"},
       {{"--num-heads", "5"}, {"--dropout", "0.5"}, {"--num-hiddens", "100"}},
       d2l_mha_lesson,
       {"X",
        "valid_lens",
        "masked_softmax(X, valid_lens)",
        "mask",
        "nn.functional.softmax(X.reshape(shape), dim=-1)",
        "valid_lens.reshape(-1)",
        "X_reshaped",
        "X_permuted",
        "X_final",
        "X_book",
        "Z",
        "Y",
        "attention(X, Y, Y, valid_lens)",
        "self.W_q.weight",
        "queries",
        "keys",
        "values",
        "queries[0]",
        "scores",
        "self.attention_weights",
        "output",
        "output_concat"},
       d2l_mha_work,
       true},
      // After the chapter: the book's bonus material (rasbt/LLMs-from-scratch ch04), listed apart, not in `all`.
      {"kv-cache",
       {"ch04/03_kv-cache"},
       {"--d-out", "--num-heads", "--context-length"},
       {{"--d-out", "4"}, {"--num-heads", "2"}},
       kv_cache_lesson,
       {"x", "attn_weights", "full", "cache_k", "cache_v", "mask_bool", "out", "(out - full[:, 0:1, :]).abs().max()",
        "(out - full[:, 1:2, :]).abs().max()", "(out - full[:, 2:3, :]).abs().max()",
        "(out - full[:, 3:4, :]).abs().max()", "(out - full[:, 4:5, :]).abs().max()",
        "(out - full[:, 5:6, :]).abs().max()", "prompt", "rest",
        "(torch.cat([prompt, rest], dim=1) - full).abs().max()"},
       kv_cache_work},
      {"gqa",
       {"ch04/04_gqa"},
       {"--d-out", "--num-heads", "--num-kv-groups"},
       {{"--d-out", "8"}, {"--num-heads", "4"}, {"--num-kv-groups", "2"}},
       gqa_lesson,
       {"x", "gqa.W_key.weight", "gqa.W_value.weight", "gqa.W_query.weight", "gqa.out_proj.weight", "queries", "keys",
        "values", "keys_new", "values_new", "attn_scores", "mask", "attn_weights", "context_vec", "full", "out",
        "gqa.cache_k"},
       gqa_work},
      {"mla",
       {"ch04/05_mla"},
       {"--d-out", "--num-heads", "--latent-dim"},
       {{"--d-out", "4"}, {"--num-heads", "2"}, {"--latent-dim", "2"}},
       mla_lesson,
       {"x",
        "mla.W_query.weight",
        "mla.W_DKV.weight",
        "mla.W_UK.weight",
        "mla.W_UV.weight",
        "mla.out_proj.weight",
        "queries_all",
        "latent_new",
        "latent_total",
        "latent",
        "keys_all",
        "values_all",
        "queries",
        "keys",
        "values",
        "attn_scores",
        "mask_bool",
        "attn_weights",
        "context_vec",
        "full",
        "out",
        "mla.cache_c_kv"},
       mla_work},
      {"swa",
       {"ch04/06_swa"},
       {"--d-out", "--num-heads", "--window"},
       {{"--d-out", "4"}, {"--num-heads", "2"}, {"--window", "3"}},
       swa_lesson,
       {"x", "queries", "keys", "values", "diff", "mask_bool", "attn_scores", "attn_weights", "context_vec", "full",
        "causal", "(full - causal).abs().max(dim=-1).values", "out", "swa.cache_k", "before",
        "torch.isnan(before).any(dim=-1)", "prefill", "(prefill - full).abs().max()"},
       swa_work},
      // The chapter's own bonus (ch03/02_bonus_efficient-multihead-attention): the nine forms of MultiHeadAttention.
      {"mha-forms",
       {"ch03/02_bonus"},
       {"--d-out", "--num-heads"},
       {{"--d-out", "3"}, {"--num-heads", "3"}},
       mha_forms_lesson,
       {"x",
        "full",
        "head_outputs[0]",
        "head_outputs[1]",
        "head_outputs[2]",
        "out_wrapper",
        "(out_wrapper - full).abs().max()",
        "out_ch03",
        "(out_ch03 - full).abs().max()",
        "combined.qkv.weight",
        "qkv",
        "queries",
        "keys",
        "values",
        "out_combined",
        "(out_combined - full).abs().max()",
        "Q",
        "out_einsum",
        "(out_einsum - full).abs().max()",
        "mask",
        "attn_output",
        "attn_weights",
        "out_torch",
        "(out_torch - full).abs().max()",
        "q",
        "k",
        "v",
        "q_scaled",
        "float_mask",
        "attn_probs",
        "(attn_probs.view(1, attn.num_heads, 6, 6).sum(dim=1) / attn.num_heads - attn_weights).abs().max()",
        "after",
        "(attn_probs - after).abs().max()",
        "out_noweights",
        "(out_noweights - out_torch).abs().max()",
        "out_sdpa",
        "(out_sdpa - full).abs().max()",
        "attn_mask",
        "out_as_written",
        "out_no_flash",
        "(out_no_flash - full).abs().max()",
        "block",
        "out_flex",
        "(out_flex - full).abs().max()"},
       mha_forms_work},
  };
  return all;
}

std::vector<const LessonInfo*> lessons_run_by(const std::string& command) {
  std::vector<const LessonInfo*> out;
  for (const LessonInfo& l : lessons())
    if (command == "all" ? l.in_chapter() : l.name == command) out.push_back(&l);
  return out;
}

}  // namespace attn
