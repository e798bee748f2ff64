#pragma once
// The bench's forms of causal self-attention, fast but shaped like the chapter's code: the
// wrapper (one CausalAttention per head, then out_proj), MultiHeadAttention as written, and
// MultiHeadAttention with one fused qkv projection. All use fast_gemm; flash_attention.h has the
// tiled form. The lessons keep their own plain modules (causal_attention.h, multihead_attention.h).
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "fast/aligned_buffer.h"
#include "fast/fast_gemm.h"

namespace attn {

// x is (batch, tokens, d_model); d_in = d_out = d_model, split into heads of head_dim.
struct AttentionShape {
  int64_t batch = 8, tokens = 1024, d_model = 768, heads = 12;
  int64_t head_dim() const { return d_model / heads; }
  int64_t rows() const { return batch * tokens; }  // b·T rows of x
};

// MultiHeadAttention(d_model, d_model, tokens, 0.0, heads) as nn.Linear draws it after
// torch.manual_seed(seed): W_query, W_key, W_value (qkv_bias=False), then out_proj with bias.
struct MhaWeights {
  std::vector<float> w_query, w_key, w_value;  // (d_out, d_in) each
  std::vector<float> w_out, b_out;             // (d_out, d_out), (d_out)
  std::vector<float> w_qkv;                    // (3·d_out, d_in): W_query's rows, W_key's, W_value's
  // MHAEinsum's nn.Parameter weights, (d_in, d_out): the transposes of W_query, W_key, W_value, as
  // the bonus notebook's test copies them.
  std::vector<float> w_query_t, w_key_t, w_value_t;
};

// The weights, then x = torch.rand(batch, tokens, d_model) from the same generator.
MhaWeights seeded_weights(const AttentionShape& s, uint64_t seed, std::vector<float>& x);

// The buffers a form keeps between runs; their total is the memory the form needs beyond its
// input, weights and output.
class Workspace {
 public:
  float* get(int slot, std::size_t floats);  // slot's buffer, at least floats long
  // A buffer the forms that run one after another can share (the (b, heads, T, T) scores and
  // weights): with a pool (share), slot `slot` of the pool, grown to the largest form's need; without
  // one, this workspace's own. bytes() counts what this form asked for either way.
  float* shared(int slot, std::size_t floats);
  void share(std::shared_ptr<std::vector<AlignedFloats>> pool) { pool_ = std::move(pool); }
  GemmScratch& gemm() { return gemm_; }
  std::size_t bytes() const;
  // Wall time of the phases since the last reset, in ms: the q/k/v projections, the attention
  // itself (scores, mask, softmax, weighted values, heads merged), the output projection.
  enum Phase { kProjections, kAttention, kOutput, kPhases };
  double phase_ms[kPhases] = {};
  template <class F>
  void timed(Phase phase, F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    phase_ms[phase] += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }

 private:
  std::vector<AlignedFloats> slots_;
  GemmScratch gemm_;
  std::shared_ptr<std::vector<AlignedFloats>> pool_;
  std::vector<AlignedFloats> own_shared_;   // the shared slots when there is no pool
  std::vector<std::size_t> shared_floats_;  // the most this form asked of each shared slot
};

// out (batch, tokens, d_model) from x; threads >= 1.
void wrapper_forward(const MhaWeights& w, const AttentionShape& s, const float* x, float* out, int threads,
                     Workspace& ws);
void mha_forward(const MhaWeights& w, const AttentionShape& s, const float* x, float* out, int threads, Workspace& ws);
void fused_qkv_forward(const MhaWeights& w, const AttentionShape& s, const float* x, float* out, int threads,
                       Workspace& ws);

// out = softmax(in * scale) over n values; -inf counts as weight 0 (the active kernels' exp).
void softmax_row(const float* in, float* out, int64_t n, float scale);

}  // namespace attn
