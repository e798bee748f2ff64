// mha-forms: nn.MultiheadAttention (forms 7 and 8, PyTorch 1.13's functional math), the documented math of
// scaled_dot_product_attention (forms 5 and 6) and FlexAttention's causal mask (form 9), then the summary.
#include <algorithm>
#include <cstdio>
#include <limits>

#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "core/print.h"
#include "core/py_repr.h"
#include "core/tensor_print.h"
#include "lessons/common/bonus_cells.h"
#include "lessons/lesson_text.h"
#include "lessons/mha-forms/forms.h"
#include "nn/causal_attention.h"
#include "nn/self_attention.h"

namespace attn {

namespace {

// A form that needs a newer PyTorch than the chapter: what its cell records and prints after computing `out`.
struct NewerTorchForm {
  const char* out_name;  // "out_sdpa": its difference from `full` is shown
  const char* label;     // its row in the summary
  const char* guard;     // what its cell prints on a PyTorch without it
  const char* key;       // its prose: KEY.note (quoting the difference), KEY.explain, KEY.confusion
  bool has_confusion;
};

void newer_torch_form(Notebook& nb, FormsSetup& s, const NewerTorchForm& form, const Tensor& out) {
  const float d = diff_line(nb, s, form.out_name, out);
  nb.print(form.guard);
  nb.note(std::string(form.key) + ".note", {py_float(d)});
  nb.explain(std::string(form.key) + ".explain");
  if (form.has_confusion) nb.confusion(std::string(form.key) + ".confusion");
  s.outputs.push_back({form.label, out});
}

std::vector<std::string> copy_combined(const std::string& module) {
  return {module + ".qkv.load_state_dict(combined.qkv.state_dict())",
          module + ".proj.load_state_dict(combined.proj.state_dict())"};
}

std::string merged_line(const std::string& out, const std::string& module, const FormsSetup& s) {
  return out + " = " + module + ".proj(context.transpose(1, 2).contiguous().view(" + str(s.x.size(0)) + ", " +
         s.tokens + ", " + module + ".d_out))";
}

// sdpa_math on the combined projection's heads, merged and projected: what the class's forward computes.
Tensor sdpa_form(const FormsSetup& s, const Tensor* mask, bool is_causal) {
  CombinedForm form = CombinedForm::copied_from(*s.mha);
  CombinedTrace t = s.combined;
  return form.merge(sdpa_math(t.queries, t.keys, t.values, mask, is_causal), t);
}

std::string g3(float v) {  // f"{v:.3g}"
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", static_cast<double>(v));
  return text;
}

Tensor causal_mask_bool_of(const FormsSetup& s) { return causal_mask_bool(s.mha->mask, s.x.size(1)); }

Tensor flipped(const Tensor& mask) {  // ~mask
  std::vector<float> v = mask.values();
  for (float& f : v) f = f != 0.0f ? 0.0f : 1.0f;
  return to_bool(Tensor(mask.shape(), v));
}

}  // namespace

void torch_class_cells(Notebook& nb, FormsSetup& s) {
  const std::string b = str(s.x.size(0)), n = s.tokens;
  nb.heading("ch03/02", "heading.torch");
  nb.cell(class_code(
      "mha-forms", "MHAPyTorchClass",
      {"mha_torch = MHAPyTorchClass(" + form_args(s, true) + ")", "attn = mha_torch.multihead_attn",
       "attn.in_proj_weight.copy_(torch.cat([mha.W_query.weight, mha.W_key.weight, mha.W_value.weight], dim=0))",
       "attn.out_proj.weight.copy_(torch.eye(" + s.d_out +
           "))  # the heads pass through; proj is the chapter's out_proj",
       "mha_torch.proj.load_state_dict(mha.out_proj.state_dict())",
       "print(attn.in_proj_weight.shape, attn.in_proj_bias, attn.out_proj.bias)",
       "mask = mha_torch.mask[:" + n + ", :" + n + "]  # True = masked",
       "attn_output, attn_weights = attn(x, x, x, attn_mask=mask, need_weights=True)",
       "print(attn_weights)  # averaged over the heads", "out_torch = mha_torch(x)",
       "print((out_torch - full).abs().max())"}));
  const TorchMhaForm form = TorchMhaForm::copied_from(*s.mha);
  TorchMhaTrace t;
  const Tensor out = form.forward(s.x, true, &t);
  nb.print(repr_size(form.in_proj_weight.shape()) + " None None");
  nb.record("mask", plain(causal_mask_bool_of(s)));
  nb.record("attn_output", plain(t.attn_output));
  nb.show("attn_weights", plain(t.averaged_weights));
  const float d = diff_line(nb, s, "out_torch", out);
  nb.note("torch.note", {shape_text(form.in_proj_weight.shape()), shape_text(t.averaged_weights.shape()), py_float(d)});
  nb.explain("torch.explain");
  nb.confusion("torch.confusion");
  s.outputs.push_back({"7 MHAPyTorchClass", out});

  const std::string heads = "attn.num_heads", hd = "attn.head_dim";
  const std::string split = ".contiguous().view(" + n + ", " + b + " * " + heads + ", " + hd + ").transpose(0, 1)";
  nb.cell(
      {"q, k, v = nn.functional.linear(x.transpose(0, 1), attn.in_proj_weight).chunk(3, dim=-1)  # (T, b, E) each",
       "q = q" + split + "  # (b * num_heads, T, head_dim)", "k = k" + split, "v = v" + split,
       "float_mask = torch.zeros(" + n + ", " + n + ").masked_fill_(mask, float(\"-inf\"))  # True -> -inf, False -> 0",
       "q_scaled = q / math.sqrt(" + hd + ")  # scaled BEFORE the product",
       "attn_probs = torch.softmax(torch.baddbmm(float_mask, q_scaled, k.transpose(-2, -1)), dim=-1)",
       "print(float_mask)",
       "print((attn_probs.view(" + b + ", " + heads + ", " + n + ", " + n + ").sum(dim=1) / " + heads +
           " - attn_weights).abs().max())",
       "after = torch.softmax((q @ k.transpose(-2, -1)).masked_fill(mask, -torch.inf) / " + hd + "**0.5, dim=-1)",
       "print((attn_probs - after).abs().max())"});
  nb.record("q", plain(t.q));
  nb.record("k", plain(t.k));
  nb.record("v", plain(t.v));
  nb.record("q_scaled", plain(t.q_scaled));
  const Tensor float_mask = view(t.float_mask, {s.x.size(1), s.x.size(1)});
  nb.show("float_mask", plain(float_mask));
  nb.record("attn_probs", plain(t.attn_output_weights));
  const Tensor averaged =
      div(sum_over_heads(view(t.attn_output_weights, {s.x.size(0), form.num_heads, s.x.size(1), s.x.size(1)})),
          static_cast<double>(form.num_heads));
  show_scalar(nb,
              "(attn_probs.view(" + b + ", " + heads + ", " + n + ", " + n + ").sum(dim=1) / " + heads +
                  " - attn_weights).abs().max()",
              max_abs_diff(averaged, t.averaged_weights));
  const Tensor after = softmax(div(masked_fill(matmul(t.q, transpose(t.k, -2, -1)), causal_mask_bool_of(s),
                                               -std::numeric_limits<float>::infinity()),
                                   sqrt_d_k(form.head_dim)),
                               -1);
  nb.record("after", plain(after));
  const Tensor scaled_diff = max_abs_diff(t.attn_output_weights, after);
  show_scalar(nb, "(attn_probs - after).abs().max()", scaled_diff);
  nb.note("steps.note", {str(form.head_dim), py_float(scaled_diff.item())});
  nb.explain("steps.explain");

  nb.heading("ch03/02", "heading.noweights");
  nb.cell({"mha_torch.need_weights = False", "out_noweights = mha_torch(x)",
           "print((out_noweights - out_torch).abs().max())"});
  const Tensor out8 = form.forward(s.x, false);
  nb.record("out_noweights", plain(out8));
  show_scalar(nb, "(out_noweights - out_torch).abs().max()", max_abs_diff(out8, out));
  nb.note("noweights.note");
  nb.explain("noweights.explain");
  s.outputs.push_back({"8 MHAPyTorchClass need_weights=False", out8});
}

void sdpa_cells(Notebook& nb, FormsSetup& s) {
  const std::string n = s.tokens;
  nb.heading("ch03/02", "heading.sdpa");
  nb.cell({"def sdpa_math(query, key, value, attn_mask=None, is_causal=False):  # the math PyTorch's docs give",
           "    L, S = query.size(-2), key.size(-2)", "    scale_factor = 1 / math.sqrt(query.size(-1))",
           "    attn_bias = torch.zeros(L, S, dtype=query.dtype)",
           "    if is_causal:", "        temp_mask = torch.ones(L, S, dtype=torch.bool).tril(diagonal=0)",
           "        attn_bias.masked_fill_(temp_mask.logical_not(), float(\"-inf\"))",
           "    if attn_mask is not None:", "        if attn_mask.dtype == torch.bool:",
           "            attn_bias.masked_fill_(attn_mask.logical_not(), float(\"-inf\"))  # True = takes part",
           "        else:", "            attn_bias = attn_mask + attn_bias",
           "    attn_weight = query @ key.transpose(-2, -1) * scale_factor", "    attn_weight += attn_bias",
           "    attn_weight = torch.softmax(attn_weight, dim=-1)", "    return attn_weight @ value"});
  nb.note("math.note");
  nb.explain("math.explain");

  nb.cell(class_code("mha-forms", "MHAPyTorchScaledDotProduct", [&] {
    std::vector<std::string> c = {"sdpa = MHAPyTorchScaledDotProduct(" + form_args(s, true) + ")"};
    for (const std::string& l : copy_combined("sdpa")) c.push_back(l);
    c.insert(
        c.end(),
        {"context = sdpa_math(queries, keys, values, is_causal=True)  # what its scaled_dot_product_attention computes",
         merged_line("out_sdpa", "sdpa", s), "print((out_sdpa - full).abs().max())",
         "has_sdpa = hasattr(nn.functional, \"scaled_dot_product_attention\")  # PyTorch 2.0 or newer",
         "if has_sdpa:  # the class itself, on the fused kernel",
         "    print(\"the fused kernel:\", (sdpa(x) - out_sdpa).abs().max().item())",
         "if not has_sdpa:", "    print(\"MHAPyTorchScaledDotProduct needs PyTorch 2.0 or newer\")"});
    return c;
  }()));
  newer_torch_form(nb, s,
                   {"out_sdpa", "5 MHAPyTorchScaledDotProduct", "MHAPyTorchScaledDotProduct needs PyTorch 2.0 or newer",
                    "sdpa", false},
                   sdpa_form(s, nullptr, true));

  nb.heading("ch03/02", "heading.noflash");
  std::vector<std::string> code = {"no_flash = MHAPyTorchSDPAWithoutFlash(" + form_args(s, true) + ")"};
  for (const std::string& l : copy_combined("no_flash")) code.push_back(l);
  code.insert(code.end(), {"attn_mask = no_flash.mask[:" + n + ", :" + n + "]  # as its forward slices it",
                           "context = sdpa_math(queries, keys, values, attn_mask=attn_mask)",
                           merged_line("out_as_written", "no_flash", s), "print(out_as_written)",
                           "context = sdpa_math(queries, keys, values, attn_mask=~attn_mask)  # True = takes part",
                           merged_line("out_no_flash", "no_flash", s), "print((out_no_flash - full).abs().max())",
                           "if not has_sdpa:", "    print(\"MHAPyTorchSDPAWithoutFlash needs PyTorch 2.0 or newer\")"});
  nb.cell(class_code("mha-forms", "MHAPyTorchSDPAWithoutFlash", code));
  const Tensor mask = causal_mask_bool_of(s);
  nb.record("attn_mask", plain(mask));
  const Tensor written = sdpa_form(s, &mask, false);
  nb.show("out_as_written", plain(written));
  const Tensor inverted = flipped(mask);
  newer_torch_form(nb, s,
                   {"out_no_flash", "6 MHAPyTorchSDPAWithoutFlash, ~mask",
                    "MHAPyTorchSDPAWithoutFlash needs PyTorch 2.0 or newer", "noflash", true},
                   sdpa_form(s, &inverted, false));

  nb.heading("ch03/02", "heading.flex");
  std::vector<std::string> flex = {
      "import importlib.util",
      "has_flex = (importlib.util.find_spec(\"torch.nn.attention\") is not None and",
      "            importlib.util.find_spec(\"torch.nn.attention.flex_attention\") is not None)  # PyTorch 2.5 or "
      "newer",
      "if has_flex and torch.cuda.is_available():  # as the bonus imports it",
      "    from torch.nn.attention.flex_attention import flex_attention, create_block_mask",
      ""};
  for (const std::string& l : class_code("mha-forms", "MHAPyTorchFlexAttention",
                                         {"flex = MHAPyTorchFlexAttention(" + form_args(s, true) + ")"}))
    flex.push_back(l);
  for (const std::string& l : copy_combined("flex")) flex.push_back(l);
  flex.insert(flex.end(),
              {"block = causal(None, None, torch.arange(" + n + ").unsqueeze(-1), torch.arange(" + n +
                   ").unsqueeze(0))  # mask_mod on every (q_idx, kv_idx)",
               "print(block)", "context = sdpa_math(queries, keys, values, attn_mask=block)",
               merged_line("out_flex", "flex", s), "print((out_flex - full).abs().max())",
               "if has_flex and torch.cuda.is_available():  # the class itself, on the GPU",
               "    print(\"flex_attention:\", (flex.cuda()(x.cuda()).cpu() - out_flex).abs().max().item())",
               "if not (has_flex and torch.cuda.is_available()):",
               "    print(\"MHAPyTorchFlexAttention needs PyTorch 2.5 or newer (the bonus runs it on a GPU)\")"});
  nb.cell(flex);
  const Tensor block = flipped(mask);
  nb.show("block", plain(block));
  newer_torch_form(nb, s,
                   {"out_flex", "9 MHAPyTorchFlexAttention",
                    "MHAPyTorchFlexAttention needs PyTorch 2.5 or newer (the bonus runs it on a GPU)", "flex", false},
                   sdpa_form(s, &block, false));

  nb.heading("ch03/02", "heading.summary");
  nb.cell({"for name, out in [(\"1 Ch03_MHA_Wrapper\", out_wrapper), (\"2 Ch03_MHA\", out_ch03),",
           "                  (\"3 MultiHeadAttentionCombinedQKV\", out_combined), (\"4 MHAEinsum\", out_einsum),",
           "                  (\"5 MHAPyTorchScaledDotProduct\", out_sdpa), (\"6 MHAPyTorchSDPAWithoutFlash, ~mask\", "
           "out_no_flash),",
           "                  (\"7 MHAPyTorchClass\", out_torch), (\"8 MHAPyTorchClass need_weights=False\", "
           "out_noweights),",
           "                  (\"9 MHAPyTorchFlexAttention\", out_flex)]:",
           "    print(f\"{name:38s} {(out - full).abs().max().item():.3g}\")"});
  float worst = 0.0f;
  std::sort(s.outputs.begin(), s.outputs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [name, out] : s.outputs) {
    const float d = max_abs_diff(out, s.full).item();
    worst = std::max(worst, d);
    char line[128];
    std::snprintf(line, sizeof line, "%-38s %s", name.c_str(), g3(d).c_str());
    nb.print(line);
  }
  nb.note("summary.note", {py_float(worst)});
  nb.explain("summary.explain");
}

}  // namespace attn
