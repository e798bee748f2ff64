// The mistakes `attn-tutor check` can name: what each does, the fix, and a line of a learner's code
// that makes it. Each is a rerun of the lesson (features/check/mistake_replay.cpp).
#include "features/check/check.h"

namespace attn {

const std::vector<Mistake>& known_mistakes() {
  static const std::vector<Mistake> all = {
      {"softmax-dim", "softmax over the wrong dimension",
       "Each query's weights must sum to 1 over the keys, the last dimension. Normalised over another "
       "dimension, the columns sum to 1 instead and every token mixes the values with the wrong weights. "
       "dim=1 is the last dimension of a (tokens, tokens) matrix, but not once a batch dimension comes first.",
       "torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)",
       "attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=1)  # in CausalAttention"},
      {"no-scaling", "no \u221ad_k scaling",
       "The scores went into softmax without being divided by sqrt(d_k) = keys.shape[-1]**0.5, so the weights "
       "are sharper than the book's: large scores take more of the weight, and with the embedding sizes of "
       "real models softmax saturates and its gradients vanish.",
       "torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)", "attn_weights_2 = torch.softmax(attn_scores_2, dim=-1)"},
      {"wrong-scale", "scores divided by the wrong number",
       "The scores must be divided by sqrt(d_k), the square root of the keys' last dimension (one head's "
       "head_dim in MultiHeadAttention). Dividing by d_k itself, by sqrt(d_in) of the input or by sqrt(d_out) of "
       "all heads together gives softmax other temperatures, and the weights differ.",
       "attn_scores / keys.shape[-1]**0.5", "attn_weights = torch.softmax(attn_scores / d_k, dim=-1)"},
      {"triu-diagonal", "mask with triu missing diagonal=1",
       "torch.triu(torch.ones(n, n)) keeps the diagonal, so masked_fill also hides each token from itself: "
       "the first row is all -inf and softmax returns nan for it, and every other row loses its own token.",
       "mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)",
       "mask = torch.triu(torch.ones(context_length, context_length))"},
      {"tril-mask", "tril where masked_fill needs the upper triangle",
       "masked_fill writes -inf where the mask is True. torch.tril marks the past and the token itself, so "
       "each query attends to the future instead (and the last row, all masked, becomes nan). tril is the "
       "mask of the tokens to keep: fill where it is 0, or build the mask with triu(..., diagonal=1).",
       "mask = torch.triu(torch.ones(n, n), diagonal=1); attn_scores.masked_fill_(mask.bool(), -torch.inf)  "
       "(or masked_fill(tril == 0, ...))",
       "attn_scores.masked_fill_(torch.tril(torch.ones(n, n)).bool(), -torch.inf)"},
      {"mask-after-softmax", "masking after softmax without renormalising",
       "The future weights were zeroed after softmax, so the rows sum to less than 1 (only the last row, "
       "which masks nothing, is complete). Divide each row by its sum, or fill the scores with -inf before "
       "softmax, which does both in one step.",
       "masked = attn_scores.masked_fill(mask.bool(), -torch.inf)\n"
       "attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)",
       "attn_weights = attn_weights * mask_simple  # no division by the row sums"},
      {"mask-discarded", "masked_fill's result discarded",
       "masked_fill returns a new tensor and leaves attn_scores as it was; the line that calls it without "
       "keeping the result does nothing, so softmax saw every token, the future included.",
       "attn_scores.masked_fill_(mask_bool, -torch.inf) (with the underscore, in place), or "
       "attn_scores = attn_scores.masked_fill(mask_bool, -torch.inf)",
       "attn_scores.masked_fill(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)"},
      {"dropout-on-scores", "dropout on the scores before softmax",
       "nn.Dropout belongs after softmax, on attn_weights: it zeroes some weights and scales the rest by "
       "1/(1-p). On the scores it scales the logits instead (sharpening softmax), turns dropped -inf into nan "
       "or 0 (un-masking future tokens), and the weights still sum to 1.",
       "attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)\n"
       "attn_weights = self.dropout(attn_weights)",
       "attn_scores = self.dropout(attn_scores)  # before the softmax"},
      {"dropout-scale", "dropout scaled by 1/p",
       "The zeros are the right ones (the same mask as nn.Dropout, or a hand-written torch.rand(...) > p mask "
       "as d2l writes it), but the survivors were multiplied by 1/p instead of 1/(1-p). With p = 0.5 the two "
       "are both 2, which hides the bug in the book's example.",
       "x * mask / (1 - p), or simply torch.nn.Dropout(p)(x)", "return x * mask / p"},
      {"rand-dropout", "a hand-written dropout mask",
       "Not a wrong formula: your dropout keeps (torch.rand(x.shape) > p) and scales by 1/(1-p), as d2l's "
       "dropout_layer does. But it draws its mask from torch.rand, a different random stream from nn.Dropout's "
       "bernoulli_, so other weights are dropped than in the book, and everything after differs.",
       "use torch.nn.Dropout(p) (the book's) to compare value by value",
       "mask = (torch.rand(X.shape) > dropout).float(); return mask * X / (1.0 - dropout)"},
      {"eval-mode", "the module run in eval() where the lesson trains",
       "nn.Dropout is active only in training mode. After model.eval() (or torch.no_grad() confused with it) "
       "dropout passes the weights through unchanged, but the lesson runs the module in training mode, as a "
       "new nn.Module is, so its weights are dropped and rescaled.",
       "call module.train() (a new module already is in training mode) before running it",
       "mha.eval(); context_vecs = mha(batch)"},
      {"functional-dropout", "F.dropout left in training mode in eval()",
       "torch.nn.functional.dropout(x, p) has training=True by default, whatever the module's mode: after "
       "model.eval() it still drops and rescales. nn.Dropout (or F.dropout(x, p, training=self.training)) "
       "follows the module's mode.",
       "self.dropout = nn.Dropout(p) in __init__ and self.dropout(x) in forward, or F.dropout(x, p, training=self.training)",
       "torch.bmm(F.dropout(self.attention_weights, self.p), values)"},
      {"dropout-reseed", "a missing re-seed before a second dropout call",
       "Each dropout call draws new random numbers. The book calls torch.manual_seed(123) before each cell "
       "that prints a dropout, so each starts from the same state; without it the second call continues the "
       "generator where the first left it and drops other entries.",
       "torch.manual_seed(123) right before print(dropout(attn_weights)), as in the book",
       "print(dropout(example)); print(dropout(attn_weights))  # no torch.manual_seed between"},
      {"head-order", "heads concatenated in the wrong order",
       "torch.cat puts the heads side by side in list order: the first d_out columns must be head 0, the "
       "next head 1, and so on. Yours holds the same heads in another order.",
       "torch.cat([head(x) for head in self.heads], dim=-1)",
       "torch.cat([head(x) for head in reversed(self.heads)], dim=-1)"},
      {"view-no-transpose", "view without transpose",
       "view re-reads memory in row-major order; it does not move data. Viewing (b, num_tokens, d_out) "
       "straight as (b, num_heads, num_tokens, head_dim) mixes tokens and heads, and so does viewing the "
       "(b, num_heads, num_tokens, head_dim) result straight back as (b, num_tokens, d_out).",
       "keys = keys.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)\n"
       "context_vec = (attn_weights @ values).transpose(1, 2).contiguous().view(b, num_tokens, self.d_out)",
       "keys = self.W_key(x).view(b, self.num_heads, num_tokens, self.head_dim)"},
      {"no-out-proj", "out_proj forgotten",
       "After the heads are merged back to (b, num_tokens, d_out), MultiHeadAttention mixes them with one "
       "more linear layer, out_proj (the course's projection_layer). Yours returns the merged heads as they are.",
       "context_vec = self.out_proj(context_vec) before return", "return context_vec  # without self.out_proj"},
      {"linear-order", "layers created in another order",
       "nn.Linear draws its weights from the random generator when it is created, so the order of the lines "
       "in __init__ decides which numbers each layer gets. The book creates W_query, W_key, W_value (then "
       "out_proj); yours were created in another order, so every projection differs although the code that "
       "uses them is right.",
       "create them in the book's order: self.W_query, self.W_key, self.W_value (then self.out_proj)",
       "self.W_key = nn.Linear(d_in, d_out); self.W_query = nn.Linear(d_in, d_out)"},
      {"init-draw", "weights drawn with another distribution than the export says",
       "The weights come from the same seed but another distribution: torch.randn (normal) instead of "
       "torch.rand (uniform on [0, 1)), or the other way round. attn-tutor trainable draws them as --init says.",
       "export with init=\"randn\" when you draw with torch.randn (attn-tutor trainable --init randn), or draw with torch.rand as the book does",
       "W_query = torch.nn.Parameter(torch.randn(d_in, d_out), requires_grad=False)"},
      {"repeat-valid-lens", "valid_lens.repeat instead of repeat_interleave",
       "The heads are folded into the batch as (b * num_heads, ...), all heads of sequence 0 first. "
       "repeat_interleave gives each sequence's length num_heads times in a row; repeat tiles the whole list "
       "instead ([3, 2, 3, 2, ...]), so most heads mask with another sequence's length.",
       "valid_lens = torch.repeat_interleave(valid_lens, repeats=self.num_heads, dim=0)",
       "valid_lens = valid_lens.repeat(self.num_heads)"},
      {"missing-reseed", "a missing re-seed",
       "No torch.manual_seed right before the module was built, so its nn.Linear weights continue the "
       "generator where an earlier cell left it (the CausalAttention cell) instead of starting from the seed.",
       "torch.manual_seed(123) (the lesson's seed) in the same cell, just before the module is built",
       "mha = MultiHeadAttentionWrapper(...)  # right after the CausalAttention cell, no torch.manual_seed"},
      {"mkl-dropout", "an MKL-path dropout mask",
       "Not a bug in your code: these dropout masks are the ones PyTorch 2.6 and earlier draws on an Intel CPU "
       "with MKL, a different random stream from the book's (torch's own generator, as on every machine since "
       "PyTorch 2.7). Everything drawn after the first dropout shifts too.",
       "compare with attn-tutor LESSON --bernoulli mkl, or export with bernoulli=\"mkl\"",
       "torch.nn.Dropout(0.5)(x) on an Intel CPU with PyTorch <= 2.6"},
      {"stale-scores", "scores that do not come from the module's own queries and keys",
       "Your weights come from an attn_scores that forward never assigned: a typo such as "
       "`attn_socres = query @ key.transpose(1, 2)` leaves the name attn_scores pointing at the global of an "
       "earlier cell (SelfAttention_v2's queries @ keys.T), and masked_fill_ even changes that global in place. "
       "Only the values are the module's own. Python raises no error for it.",
       "attn_scores = queries @ keys.transpose(1, 2) inside forward, and rerun the notebook from a fresh kernel",
       "attn_socres = query @ key.transpose(1, 2)  # then attn_scores.masked_fill_(...)"},
      {"export-settings", "an export whose shapes show other settings than it declares",
       "Your tensors have the shapes of other settings than the export's config says, so the lesson was "
       "replayed with the wrong ones. With the settings below it gives your numbers.",
       "pass the settings you ran with to export()", "export(tensors, \"mha\", path)  # but MultiHeadAttention(d_in, 4, ...)"},
  };
  return all;
}

const Mistake* find_mistake(const std::string& id) {
  for (const Mistake& m : known_mistakes())
    if (m.id == id) return &m;
  return nullptr;
}

}  // namespace attn
