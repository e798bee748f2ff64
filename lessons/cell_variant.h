#pragma once
// A learner's mistake in a lesson's own cells (not in a module's forward: those are lib/nn/variant.h's):
// `check` reruns the lesson with one of these set. Each switch names the cell it changes.
namespace attn {

struct CellVariant {
  // dropout: the cell print(dropout(attn_weights)) without its torch.manual_seed(123) before it
  bool no_reseed_before_dropout_weights = false;
  // dropout: the cell print(dropout(attn_weights).sum(dim=-1)) without its torch.manual_seed(123) before it
  bool no_reseed_before_dropout_sum = false;
  // kv-cache: the prefill cell's new prompt without mha.reset_cache() before it
  bool no_reset_cache = false;
  // causal-mask: the weights renormalised by the whole matrix's sum, not each row's: in the cell
  // masked_simple_norm = masked_simple / masked_simple.sum() (Norm), with row_sums = masked_simple.sum() too
  // (RowSums); with Variant::Mask::AfterSoftmax, attn_weights / attn_weights.sum() as well
  enum class WholeSum { No, Norm, RowSums };
  WholeSum whole_sum = WholeSum::No;
  // trainable: the module mistake (LessonOptions::variant) in one place only, the others as the book writes
  // them: 3.4.1's step-by-step cells, SelfAttention_v1's forward or SelfAttention_v2's (a learner who writes
  // one class wrong); Everywhere: each place has it
  enum class VariantIn { Everywhere, Steps, SelfAttentionV1, SelfAttentionV2 };
  VariantIn variant_in = VariantIn::Everywhere;
};

}  // namespace attn
