// The table of the mistakes `attn-tutor check` can name (lessons/mistakes.h): one row each.
#include "lessons/mistakes.h"

#include <stdexcept>

#include "lessons/ui_text.h"

namespace attn {

const std::vector<Mistake>& known_mistakes() {
  using M = MistakeId;
  // id, the step it varies, what the rerun changes, a learner's line that makes it, its fixture; the title,
  // explanation and fix are mistake.ID.* of features/check/mistakes.txt.
  static const std::vector<Mistake> all = {
      {M::SoftmaxDim, "softmax-dim", "softmax", "Variant::softmax_dim",
       "attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=1)  # in CausalAttention", "softmax-dim"},
      {M::NoScaling, "no-scaling", "scale", "Variant::scale (None)",
       "attn_weights_2 = torch.softmax(attn_scores_2, dim=-1)", "no-scaling"},
      {M::WrongScale, "wrong-scale", "scale", "Variant::scale (Dk, SqrtDin, SqrtWidth)",
       "attn_weights = torch.softmax(attn_scores / d_k, dim=-1)", "wrong-scale"},
      {M::TriuDiagonal, "triu-diagonal", "mask", "Variant::mask (NoDiagonal)",
       "mask = torch.triu(torch.ones(context_length, context_length))", "triu-diagonal"},
      {M::TrilMask, "tril-mask", "mask", "Variant::mask (Tril)",
       "attn_scores.masked_fill_(torch.tril(torch.ones(n, n)).bool(), -torch.inf)", "tril-mask"},
      {M::MaskAfterSoftmax, "mask-after-softmax", "mask", "Variant::mask (AfterSoftmax)",
       "attn_weights = attn_weights * mask_simple  # no division by the row sums", "mask-after-softmax"},
      {M::MaskDiscarded, "mask-discarded", "mask", "Variant::mask (Discarded)",
       "attn_scores.masked_fill(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)", "mask-discarded"},
      {M::DropoutOnScores, "dropout-on-scores", "dropout", "Variant::dropout_on",
       "attn_scores = self.dropout(attn_scores)  # before the softmax", "dropout-on-scores"},
      {M::DropoutScale, "dropout-scale", "dropout", "Variant::dropout_by_p", "return x * mask / p", "dropout-scale"},
      {M::RandDropout, "rand-dropout", "dropout", "Variant::rand_mask",
       "mask = (torch.rand(X.shape) > dropout).float(); return mask * X / (1.0 - dropout)", "rand-dropout"},
      {M::EvalMode, "eval-mode", "dropout", "Variant::eval", "mha.eval(); context_vecs = mha(batch)", "eval-mode"},
      {M::FunctionalDropout, "functional-dropout", "dropout", "Variant::functional_dropout",
       "torch.bmm(F.dropout(self.attention_weights, self.p), values)", "functional-dropout"},
      {M::DropoutReseed, "dropout-reseed", "cell: torch.manual_seed before a dropout call",
       "CellVariant::no_reseed_before_dropout_weights, no_reseed_before_dropout_sum",
       "print(dropout(example)); print(dropout(attn_weights))  # no torch.manual_seed between", "dropout-reseed"},
      {M::HeadOrder, "head-order", "concatenating the heads", "Variant::head_order",
       "torch.cat([head(x) for head in reversed(self.heads)], dim=-1)", "head-order"},
      {M::ViewNoTranspose, "view-no-transpose", "splitting or merging the heads",
       "Variant::split_without_transpose, merge_without_transpose",
       "keys = self.W_key(x).view(b, self.num_heads, num_tokens, self.head_dim)", "view-no-transpose"},
      {M::NoOutProj, "no-out-proj", "out_proj", "Variant::no_out_proj", "return context_vec  # without self.out_proj",
       "no-out-proj"},
      {M::LinearOrder, "linear-order", "__init__", "Variant::linear_order",
       "self.W_key = nn.Linear(d_in, d_out); self.W_query = nn.Linear(d_in, d_out)", "linear-order"},
      {M::InitDraw, "init-draw", "__init__", "option --init",
       "W_query = torch.nn.Parameter(torch.randn(d_in, d_out), requires_grad=False)", "init-draw"},
      {M::RepeatValidLens, "repeat-valid-lens", "masked_softmax", "Variant::repeat_heads, repeat_rows",
       "valid_lens = valid_lens.repeat(self.num_heads)", "repeat-valid-lens"},
      {M::MissingReseed, "missing-reseed", "cell: torch.manual_seed before the wrapper", "option --no-reseed",
       "mha = MultiHeadAttentionWrapper(...)  # right after the CausalAttention cell, no torch.manual_seed",
       "missing-reseed"},
      {M::MklDropout, "mkl-dropout", "dropout", "option --bernoulli mkl",
       "torch.nn.Dropout(0.5)(x) on an Intel CPU with PyTorch <= 2.6", "mkl-dropout"},
      {M::StaleScores, "stale-scores", "scores", "Variant::stale_scores, option --no-reseed",
       "attn_socres = query @ key.transpose(1, 2)  # then attn_scores.masked_fill_(...)", "stale-scores"},
      {M::ExportSettings, "export-settings", "the export's config", "the sizes (--d-out, --num-heads, a lesson's own)",
       "export(tensors, \"mha\", path)  # but MultiHeadAttention(d_in, 4, ...)", "export-settings"},
      {M::SwaWindowOffByOne, "swa-window-off-by-one", "mask", "Variant::window_off_by_one, option --window",
       "mask_bool = (diff < 0) | (diff > self.sliding_window_size)", "swa-window-off-by-one"},
      {M::SwaCacheOldest, "swa-cache-oldest", "the KV cache", "Variant::cache_keeps_oldest",
       "self.cache_k = self.cache_k[:, :self.sliding_window_size]", "swa-cache-oldest"},
      {M::KvMaskRow0, "kv-mask-row0", "mask", "Variant::mask_from_row0",
       "mask_bool = self.mask.bool()[:num_tokens_Q, :num_tokens_K]  # with use_cache=True", "kv-mask-row0"},
      {M::NoResetCache, "no-reset-cache", "cell: mha.reset_cache() before a new prompt", "CellVariant::no_reset_cache",
       "prompt = mha(x[:, :3, :], use_cache=True)  # a new prompt, no mha.reset_cache() before it", "no-reset-cache"},
      {M::GqaRepeat, "gqa-repeat", "the key/value groups", "Variant::gqa_repeat",
       "keys = keys.repeat(1, self.group_size, 1, 1)  # in GroupedQueryAttention", "gqa-repeat"},
      {M::GqaWrongGroup, "gqa-wrong-group", "the key/value groups", "Variant::gqa_group_by_count",
       "keys_h = keys[:, h // self.num_kv_groups]  # a loop over the query heads h", "gqa-wrong-group"},
      {M::MlaValuesFromUk, "mla-values-from-uk", "the latent's up-projections", "Variant::mla_values_from_uk",
       "values_all = self.W_UK(latent_total)", "mla-values-from-uk"},
      {M::CausalNormWhole, "causal-norm-whole", "cell: renormalising the masked weights", "CellVariant::whole_sum",
       "masked_simple_norm = masked_simple / masked_simple.sum()", "causal-norm-whole"},
      {M::WrapperCatTokens, "wrapper-cat-tokens", "concatenating the heads", "Variant::cat_tokens",
       "return torch.cat([head(x) for head in self.heads], dim=1)", "wrapper-cat-tokens"},
  };
  return all;
}

const Mistake& mistake(MistakeId id) {
  const std::vector<Mistake>& all = known_mistakes();
  const size_t i = static_cast<size_t>(id);
  if (i >= all.size() || all[i].key != id) throw std::logic_error("lessons/mistakes.cpp: the table is out of order");
  return all[i];
}

const Mistake* find_mistake(const std::string& id) {
  for (const Mistake& m : known_mistakes())
    if (m.id == id) return &m;
  return nullptr;
}

std::string Mistake::title(Lang lang) const { return ui(text_key() + ".title", lang); }
std::string Mistake::explanation(Lang lang) const { return ui(text_key() + ".explain", lang); }
std::string Mistake::fix(Lang lang) const { return ui(text_key() + ".fix", lang); }

}  // namespace attn
