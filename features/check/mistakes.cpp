// The mistakes `attn-tutor check` can name: what each does, the fix, and a line of a learner's code
// that makes it. Each is a rerun of the lesson (features/check/mistake_replay.cpp).
#include "features/check/check.h"

#include "lessons/ui_text.h"

namespace attn {

const std::vector<Mistake>& known_mistakes() {
  // id and a line of a learner's code that makes it; the title, explanation and fix are
  // mistake.ID.* of features/check/mistakes.txt.
  static const std::vector<Mistake> all = {
      {"softmax-dim", "attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=1)  # in CausalAttention"},
      {"no-scaling", "attn_weights_2 = torch.softmax(attn_scores_2, dim=-1)"},
      {"wrong-scale", "attn_weights = torch.softmax(attn_scores / d_k, dim=-1)"},
      {"triu-diagonal", "mask = torch.triu(torch.ones(context_length, context_length))"},
      {"tril-mask", "attn_scores.masked_fill_(torch.tril(torch.ones(n, n)).bool(), -torch.inf)"},
      {"mask-after-softmax", "attn_weights = attn_weights * mask_simple  # no division by the row sums"},
      {"mask-discarded", "attn_scores.masked_fill(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)"},
      {"dropout-on-scores", "attn_scores = self.dropout(attn_scores)  # before the softmax"},
      {"dropout-scale", "return x * mask / p"},
      {"rand-dropout", "mask = (torch.rand(X.shape) > dropout).float(); return mask * X / (1.0 - dropout)"},
      {"eval-mode", "mha.eval(); context_vecs = mha(batch)"},
      {"functional-dropout", "torch.bmm(F.dropout(self.attention_weights, self.p), values)"},
      {"dropout-reseed", "print(dropout(example)); print(dropout(attn_weights))  # no torch.manual_seed between"},
      {"head-order", "torch.cat([head(x) for head in reversed(self.heads)], dim=-1)"},
      {"view-no-transpose", "keys = self.W_key(x).view(b, self.num_heads, num_tokens, self.head_dim)"},
      {"no-out-proj", "return context_vec  # without self.out_proj"},
      {"linear-order", "self.W_key = nn.Linear(d_in, d_out); self.W_query = nn.Linear(d_in, d_out)"},
      {"init-draw", "W_query = torch.nn.Parameter(torch.randn(d_in, d_out), requires_grad=False)"},
      {"repeat-valid-lens", "valid_lens = valid_lens.repeat(self.num_heads)"},
      {"missing-reseed",
       "mha = MultiHeadAttentionWrapper(...)  # right after the CausalAttention cell, no torch.manual_seed"},
      {"mkl-dropout", "torch.nn.Dropout(0.5)(x) on an Intel CPU with PyTorch <= 2.6"},
      {"stale-scores", "attn_socres = query @ key.transpose(1, 2)  # then attn_scores.masked_fill_(...)"},
      {"export-settings", "export(tensors, \"mha\", path)  # but MultiHeadAttention(d_in, 4, ...)"},
      // The KV cache and sliding-window mistakes (lessons kv-cache, swa: features/check/cache_mistakes.cpp).
      {"swa-window-off-by-one", "mask_bool = (diff < 0) | (diff > self.sliding_window_size)"},
      {"swa-cache-oldest", "self.cache_k = self.cache_k[:, :self.sliding_window_size]"},
      {"kv-mask-row0", "mask_bool = self.mask.bool()[:num_tokens_Q, :num_tokens_K]  # with use_cache=True"},
      {"no-reset-cache", "prompt = mha(x[:, :3, :], use_cache=True)  # a new prompt, no mha.reset_cache() before it"},
      // After the chapter (features/check/bonus_mistakes.cpp), and two more of the chapter's
      {"gqa-repeat", "keys = keys.repeat(1, self.group_size, 1, 1)  # in GroupedQueryAttention"},
      {"gqa-wrong-group", "keys_h = keys[:, h // self.num_kv_groups]  # a loop over the query heads h"},
      {"mla-values-from-uk", "values_all = self.W_UK(latent_total)"},
      {"causal-norm-whole", "masked_simple_norm = masked_simple / masked_simple.sum()"},
      {"wrapper-cat-tokens", "return torch.cat([head(x) for head in self.heads], dim=1)"},
  };
  return all;
}

std::string Mistake::title(Lang lang) const { return ui("mistake." + id + ".title", lang); }
std::string Mistake::explanation(Lang lang) const { return ui("mistake." + id + ".explain", lang); }
std::string Mistake::fix(Lang lang) const { return ui("mistake." + id + ".fix", lang); }

const Mistake* find_mistake(const std::string& id) {
  for (const Mistake& m : known_mistakes())
    if (m.id == id) return &m;
  return nullptr;
}

}  // namespace attn
