#pragma once
// A variation of one step of the chapter's modules: the mistakes learners make, as switches of the one
// forward each module has. The default is the book's code, bit for bit; `attn-tutor check` runs the
// lessons with one switch set to see whether a known mistake gives a learner's numbers.
// Only what a module's forward (or __init__) reads is here; a mistake in a lesson's own cells is a switch of
// lessons/cell_variant.h.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace attn {

struct Variant {
  // __init__: the order the projections are created in, as indices of (W_query, W_key, W_value, out_proj)
  // (the course's and d2l's: Wq, Wk, Wv, W_o); empty: the book's.
  std::vector<int> linear_order;
  // The scores' divisor: the book's (keys.shape[-1]**0.5), none, d_k itself, sqrt(d_in) of the input,
  // sqrt of the whole projection width (d_out, d_model) instead of one head's, or the book's divisor applied
  // to the weights after softmax instead of to the scores.
  enum class Scale { Book, None, Dk, SqrtDin, SqrtWidth, AfterSoftmax };
  Scale scale = Scale::Book;
  std::optional<int64_t> softmax_dim;  // softmax over this dim instead of the last (when it is not the last)
  // The causal mask: the book's triu(diagonal=1); triu without diagonal=1; tril (the lower triangle filled);
  // zeroing after softmax without renormalising; masked_fill's result dropped (no mask at all); the book's
  // mask filled with 0 or with +inf instead of -inf; the 0/1 mask added to the scores instead of filled.
  enum class Mask { Book, NoDiagonal, Tril, AfterSoftmax, Discarded, FillZero, PlusInf, AddOnes };
  Mask mask = Mask::Book;
  // nn.Dropout on the scores (before or after the mask) instead of on the weights.
  enum class DropoutOn { Weights, ScoresBeforeMask, ScoresAfterMask };
  DropoutOn dropout_on = DropoutOn::Weights;
  bool eval = false;                // module.eval() where the lesson trains: nn.Dropout is the identity
  bool functional_dropout = false;  // F.dropout(x, p) with training left True: drops even in eval()
  bool rand_mask = false;           // a hand-written dropout: (torch.rand(x.shape) > p) instead of nn.Dropout's draws
  bool dropout_by_p = false;        // survivors * 1/p instead of 1/(1-p)
  // A learner's own 0/1 keep masks (dropout drawn by another generator: CUDA's, MPS's, another seed's): a
  // dropout of a tensor of one of their shapes keeps where the first mask of that shape is 1, drawing nothing.
  std::vector<Tensor> own_masks;
  bool split_without_transpose = false;  // mha: x.view(b, num_heads, T, head_dim) straight away
  bool merge_without_transpose = false;  // mha, bonus: (w @ v).contiguous().view(b, T, d_out), heads not moved back
  bool no_out_proj = false;              // mha: out_proj never applied
  std::vector<int> head_order;           // wrapper: torch.cat of the heads in this order (empty: list order)
  std::optional<Tensor> stale_scores;    // every head masks and softmaxes this global instead of its own scores
  bool repeat_heads = false;             // d2l: valid_lens.repeat(num_heads) instead of repeat_interleave
  bool repeat_rows = false;              // d2l masked_softmax: valid_lens.repeat(shape[1]) likewise
  // The KV cache and sliding-window mistakes of the bonus forwards (lib/nn/bonus_mha.cpp).
  bool window_off_by_one = false;   // swa: mask_bool = (diff < 0) | (diff > W): W + 1 keys visible
  bool cache_keeps_oldest = false;  // swa: self.cache_k = ...[:, :W] (the oldest W tokens) instead of [:, -W:]
  // swa: the bonus forward before its fix for a cached multi-token prefill: the cache is trimmed to the last W
  // first and the chunk attends to those W keys only (a query more than W - 1 tokens before the chunk's end
  // sees no key at all: its row is all -inf, its softmax NaN)
  bool swa_trim_before_attend = false;
  bool mask_from_row0 = false;  // kv-cache: self.mask.bool()[:num_tokens, :num_keys], not from ptr_current_pos
  // The mistakes of the lessons after the chapter (lib/nn/bonus_*.cpp; split_without_transpose
  // and scale None apply there too) and two more of the chapter's.
  bool gqa_repeat = false;          // gqa: keys_base.repeat(1, group_size, 1, 1): the groups tiled, not interleaved
  bool gqa_group_by_count = false;  // gqa: query head h reads group h // num_kv_groups, not h // group_size
  bool mla_values_from_uk = false;  // mla: values_all = self.W_UK(latent), not self.W_UV
  bool cat_tokens = false;          // wrapper: torch.cat([head(x) for head in self.heads], dim=1), along the tokens
};

// The order `n` projections are created in under `v` (0, 1, ..., n-1 for the book).
std::vector<int> creation_order(const Variant& v, int n);

}  // namespace attn
