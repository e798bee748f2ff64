#include "features/bench/bonus_timings.h"

namespace attn {

// The one place the notebook's figures live: section 10.1, "Speed comparisons on M3 Macbook Air CPU",
// each the mean %timeit printed ("179 ms ± 7.39 ms per loop"). Row 9 has no CPU figure: the notebook
// runs FlexAttention only on CUDA.
const std::vector<BonusRow>& bonus_rows() {
  static const std::vector<BonusRow> rows = {
      {1, "1 Ch03_MHA_Wrapper", "Ch03_MHA_Wrapper", "wrapper", 179},
      {2, "2 Ch03_MHA", "Ch03_MHA", "mha", 166},
      {3, "3 CombinedQKV", "MultiHeadAttentionCombinedQKV", "fused-qkv", 190},
      {4, "4 MHAEinsum", "MHAEinsum", "einsum", 196},
      {5, "5 SDPA is_causal", "MHAPyTorchScaledDotProduct (is_causal=True)", "flash", 110},
      {6, "6 SDPA attn_mask", "MHAPyTorchSDPAWithoutFlash (attn_mask)", "sdpa-mask", 99.5},
      {7, "7 nn.MHA weights", "MHAPyTorchClass (need_weights=True)", "torch-mha-weights", 198},
      {8, "8 nn.MHA no weights", "MHAPyTorchClass (need_weights=False)", "torch-mha", 168},
      {9, "9 FlexAttention", "MHAPyTorchFlexAttention", "", std::nullopt},
  };
  return rows;
}

const BonusRow* bonus_row_of(const std::string& form) {
  if (form.empty()) return nullptr;
  for (const BonusRow& r : bonus_rows())
    if (r.form == form) return &r;
  return nullptr;
}

}  // namespace attn
