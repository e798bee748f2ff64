#include "lessons/common/bonus_cells.h"

#include <cmath>

#include "core/ops_shape.h"
#include "core/print.h"
#include "core/tensor_print.h"
#include "core/usage_error.h"
#include "lessons/lesson_text.h"

namespace attn {

LessonOptions bonus_options(const LessonOptions& opt, const std::string& lesson) {
  LessonOptions o = opt;
  o.d_out = opt.d_out_or(lesson_default_count(lesson, "--d-out"));
  o.d_out_given = true;
  o.num_heads = opt.heads_or(lesson_default_count(lesson, "--num-heads"));
  if (o.d_out % *o.num_heads != 0)
    throw UsageError(error_text("bonus.err.heads", {std::to_string(o.d_out), std::to_string(*o.num_heads)}));
  return o;
}

Tensor bonus_inputs_cell(Notebook& nb, const LessonOptions& opt, const std::string& note_key,
                         const std::string& explain_key) {
  std::vector<std::string> code = inputs_code(opt);
  code.insert(code.end(), {"torch.set_grad_enabled(False)  # inference only, as when generating text",
                           "x = inputs.unsqueeze(0)  # a batch of one text", "print(x.shape)"});
  nb.cell(code);
  const Tensor& e = opt.inputs.embeddings;
  Tensor x = view(e, {1, e.size(0), e.size(1)});
  nb.record("x", x);
  nb.print(repr_size(x.shape()));
  nb.note(note_key, {shape_text(x.shape()), std::to_string(e.size(0))});
  nb.explain(explain_key);
  return x;
}

Tensor max_abs_diff(const Tensor& a, const Tensor& b) {
  const std::vector<float> x = a.values(), y = b.values();
  float m = 0.0f;
  for (size_t i = 0; i < x.size(); ++i) m = std::max(m, std::fabs(x[i] - y[i]));
  return Tensor({}, {m});
}

void show_scalar(Notebook& nb, const std::string& name, const Tensor& t) {
  nb.print(repr(t));
  nb.record(name, t);
}

std::vector<std::string> class_code(const std::string& folder, const std::string& name,
                                    const std::vector<std::string>& more) {
  std::vector<std::string> code = listing(folder, name);
  code.push_back("");
  code.insert(code.end(), more.begin(), more.end());
  return code;
}

std::string bonus_class_args(const LessonOptions& opt) {
  return "d_in=" + std::to_string(opt.d_in()) + ", d_out=" + std::to_string(opt.d_out) +
         ", dropout=0.0, num_heads=" + std::to_string(opt.num_heads.value());
}

void class_parameters_cell(Notebook& nb, const LessonOptions& opt, const std::string& cls, const std::string& module,
                           const std::string& args, const std::vector<std::pair<std::string, const Linear*>>& layers) {
  nb.cell(class_code(module, cls,
                     {"torch.manual_seed(" + fmt_seed(opt, 123) + ")", module + " = " + cls + "(" + args + ")",
                      "for name, p in " + module + ".named_parameters():", "    print(name, tuple(p.shape))"}));
  parameter_lines(nb, module, layers);
}

void heads_cell(Notebook& nb, const std::vector<std::string>& code, const BonusAttentionTrace& t) {
  nb.cell(code);
  nb.record("queries", t.queries);
  nb.show("keys", t.keys);
  nb.record("values", t.values);
  nb.note("heads.note", {shape_text(t.keys.shape())});
  nb.explain("heads.explain");
}

void weights_cell(Notebook& nb, const std::vector<std::string>& code, const BonusAttentionTrace& t,
                  const std::string& mask_name, const std::vector<Prose>& more) {
  nb.cell(code);
  nb.record("attn_scores", t.attn_scores);
  nb.show(mask_name, t.mask_bool);
  nb.record("attn_scores", t.masked_scores, true);  // the class's own masked_fill(_) binds (or fills) attn_scores again
  nb.show("attn_weights", t.attn_weights);
  std::vector<Prose> values = {shape_text(t.attn_weights.shape())};
  values.insert(values.end(), more.begin(), more.end());
  nb.note("weights.note", values);
  nb.explain("weights.explain");
}

void output_cell(Notebook& nb, const std::string& module, const BonusAttentionTrace& t, const Tensor& full) {
  nb.cell(
      {"context_vec = (attn_weights @ values).transpose(1, 2).contiguous().view(b, num_tokens, " + module + ".d_out)",
       "full = " + module + ".out_proj(context_vec)  # = " + module + "(x)", "print(full)"});
  nb.record("context_vec", t.context_merged);
  nb.show("full", full);
  nb.note("full.note", {shape_text(full.shape())});
  nb.explain("full.explain");
}

ChapterMha chapter_mha(const LessonOptions& opt) {
  const int64_t d_in = opt.d_in(), d = opt.d_out, bias = opt.qkv_bias ? d : 0;
  ChapterMha m;
  m.listing = listing("common", "MultiHeadAttention");
  m.listing.push_back("");
  m.code = "mha = MultiHeadAttention(" + std::to_string(d_in) + ", " + std::to_string(d) + ", " +
           std::to_string(opt.num_tokens()) + ", 0.0, num_heads=" + std::to_string(opt.num_heads.value()) +
           (opt.qkv_bias ? ", qkv_bias=True)" : ")") + "  # chapter 3's, to compare";
  m.parameters = 3 * (d_in * d + bias) + d * d + d;
  m.cached_per_token = 2 * d;
  return m;
}

std::string shape_tuple(const Tensor& t) {
  return t.dim() == 1 ? "(" + std::to_string(t.size(0)) + ",)" : shape_text(t.shape());
}

void parameter_lines(Notebook& nb, const std::string& module,
                     const std::vector<std::pair<std::string, const Linear*>>& layers) {
  for (const auto& [name, layer] : layers) {
    nb.record(module + "." + name + ".weight", layer->weight);
    nb.print(name + ".weight " + shape_tuple(layer->weight));
    if (layer->bias) nb.print(name + ".bias " + shape_tuple(*layer->bias));
  }
}

void cached_steps_cell(Notebook& nb, const std::string& module, const std::string& cache_name, const Tensor& x,
                       const Tensor& full, const CachedStep& step) {
  nb.cell({module + ".reset_cache()",
           "for i in range(x.shape[1]):", "    out = " + module + "(x[:, i:i+1, :], use_cache=True)",
           "    print(i, tuple(" + cache_name + ".shape), (out - full[:, i:i+1, :]).abs().max().item())"});
  float worst = 0.0f;
  std::string first_shape, last_shape;
  for (int64_t i = 0; i < x.size(1); ++i) {
    const auto [out, cache] = step(token_slice(x, i, 1));
    nb.record("out", out, true);  // bound anew each step, even to an equal value
    nb.record(cache_name, cache, true);
    const float diff = max_abs_diff(out, token_slice(full, i, 1)).item();
    worst = std::max(worst, diff);
    nb.print(std::to_string(i) + " " + shape_tuple(cache) + " " + py_float(diff));
    (i == 0 ? first_shape : last_shape) = shape_tuple(cache);
  }
  nb.note("bonus.steps.note",
          {cache_name, first_shape, last_shape.empty() ? first_shape : last_shape, py_float(worst)});
  nb.explain("bonus.steps.explain", {module});
}

}  // namespace attn
