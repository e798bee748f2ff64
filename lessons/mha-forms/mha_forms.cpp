// After the chapter, ch03/02_bonus_efficient-multihead-attention: the bonus material's nine forms of the
// chapter's causal multi-head attention, each run on the chapter's weights (copied as the bonus's test
// copies them) and compared with the chapter's MultiHeadAttention, max|diff| computed.
#include "lessons/mha-forms/forms.h"

#include "core/ops_shape.h"
#include "core/print.h"
#include "core/tensor_print.h"
#include "core/usage_error.h"
#include "lessons/common/bonus_cells.h"
#include "lessons/lesson_text.h"

namespace attn {

namespace {

void chapter_cell(Notebook& nb, const LessonOptions& opt, FormsSetup& s) {
  std::vector<std::string> code = chapter_mha(opt).listing;
  code.insert(code.end(), {"torch.manual_seed(" + fmt_seed(opt, 123) + ")",
                           "mha = MultiHeadAttention(" + s.d_in + ", " + s.d_out + ", " + s.tokens +
                               ", 0.0, num_heads=" + s.heads + ")  # chapter 3's",
                           "full = mha(x)", "print(full)"});
  nb.cell(code);
  nb.show("full", plain(s.full));
  nb.note("chapter.note", {shape_text(s.full.shape()), s.heads, str(s.mha->head_dim)});
  nb.explain("chapter.explain", {fmt_seed(opt, 123)});
}

void wrapper_cell(Notebook& nb, FormsSetup& s) {
  const std::string hd = str(s.mha->head_dim);
  nb.heading("ch03/02", "heading.wrapper");
  nb.cell(class_code("mha-forms", "Ch03_MHA_Wrapper",
                     {"wrapper = Ch03_MHA_Wrapper(d_in=" + s.d_in + ", d_out=" + hd + ", context_length=" + s.tokens +
                          ", dropout=0.0, num_heads=" + s.heads + ")",
                      "hd = mha.head_dim",
                      "for h, head in enumerate(wrapper.heads):  # head h: rows h*hd:(h+1)*hd of the chapter's weights",
                      "    head.W_query.weight.copy_(mha.W_query.weight[h * hd:(h + 1) * hd])",
                      "    head.W_key.weight.copy_(mha.W_key.weight[h * hd:(h + 1) * hd])",
                      "    head.W_value.weight.copy_(mha.W_value.weight[h * hd:(h + 1) * hd])",
                      "wrapper.out_proj.load_state_dict(mha.out_proj.state_dict())",
                      "head_outputs = [head(x) for head in wrapper.heads]", "print(head_outputs[0])",
                      "out_wrapper = wrapper(x)", "print((out_wrapper - full).abs().max())"}));
  WrapperFormTrace t;
  const Tensor out = WrapperForm::copied_from(*s.mha).forward(s.x, &t);
  nb.show("head_outputs[0]", plain(t.head_outputs[0]));
  for (size_t h = 1; h < t.head_outputs.size(); ++h)
    nb.record("head_outputs[" + str(int64_t(h)) + "]", plain(t.head_outputs[h]));
  const float d = diff_line(nb, s, "out_wrapper", out);
  nb.note("wrapper.note", {s.heads, hd, shape_text(t.head_outputs[0].shape()), py_float(d)});
  nb.explain("wrapper.explain");
  nb.confusion("wrapper.confusion");
  s.outputs.push_back({"1 Ch03_MHA_Wrapper", out});
}

void ch03_cell(Notebook& nb, FormsSetup& s) {
  nb.heading("ch03/02", "heading.chapter_class");
  nb.cell(class_code("mha-forms", "Ch03_MHA",
                     {"mha_ch03 = Ch03_MHA(" + form_args(s, false) + ")", "mha_ch03.load_state_dict(mha.state_dict())",
                      "out_ch03 = mha_ch03(x)", "print((out_ch03 - full).abs().max())"}));
  Generator none;
  const Tensor out = s.mha->forward(s.x, none, BernoulliPath::Default);
  const float d = diff_line(nb, s, "out_ch03", out);
  nb.note("ch03.note", {py_float(d)});
  nb.explain("ch03.explain");
  s.outputs.push_back({"2 Ch03_MHA", out});
}

void combined_cell(Notebook& nb, FormsSetup& s) {
  nb.heading("ch03/02", "heading.combined");
  const std::string b = str(s.x.size(0));
  nb.cell(class_code(
      "mha-forms", "MultiHeadAttentionCombinedQKV",
      {"combined = MultiHeadAttentionCombinedQKV(" + form_args(s, true) + ")",
       "combined.qkv.weight.copy_(torch.cat([mha.W_query.weight, mha.W_key.weight, mha.W_value.weight], dim=0))",
       "combined.proj.load_state_dict(mha.out_proj.state_dict())", "print(combined.qkv.weight)",
       "qkv = combined.qkv(x).view(" + b + ", " + s.tokens +
           ", 3, combined.num_heads, combined.head_dim).permute(2, 0, 3, 1, 4)",
       "print(qkv.shape)", "queries, keys, values = qkv.unbind(0)", "print(keys)", "out_combined = combined(x)",
       "print((out_combined - full).abs().max())"}));
  const CombinedForm form = CombinedForm::copied_from(*s.mha);
  CombinedTrace t;
  const Tensor out = form.forward(s.x, &t);
  nb.show("combined.qkv.weight", parameter(form.qkv.weight));
  nb.record("qkv", plain(t.permuted));
  nb.print(repr_size(t.permuted.shape()));
  nb.record("queries", plain(t.queries));
  nb.show("keys", plain(t.keys));
  nb.record("values", plain(t.values));
  const float d = diff_line(nb, s, "out_combined", out);
  nb.note("combined.note", {shape_text(form.qkv.weight.shape()), shape_text(t.permuted.shape()), py_float(d)});
  nb.explain("combined.explain");
  nb.confusion("combined.confusion");
  s.combined = t;
  s.outputs.push_back({"3 MultiHeadAttentionCombinedQKV", out});
}

void einsum_cell(Notebook& nb, FormsSetup& s) {
  nb.heading("ch03/02", "heading.einsum");
  nb.cell(class_code("mha-forms", "MHAEinsum",
                     {"mha_einsum = MHAEinsum(" + form_args(s, false) + ")",
                      "mha_einsum.W_query.copy_(mha.W_query.weight.T)  # (d_in, d_out): the transpose",
                      "mha_einsum.W_key.copy_(mha.W_key.weight.T)", "mha_einsum.W_value.copy_(mha.W_value.weight.T)",
                      "mha_einsum.out_proj.load_state_dict(mha.out_proj.state_dict())",
                      "Q = torch.einsum(\"bnd,do->bno\", x, mha_einsum.W_query)", "print(Q)",
                      "out_einsum = mha_einsum(x)", "print((out_einsum - full).abs().max())"}));
  const EinsumForm form = EinsumForm::copied_from(*s.mha);
  EinsumTrace t;
  const Tensor out = form.forward(s.x, &t);
  nb.show("Q", plain(view(contiguous(transpose(t.Q, 1, 2)), {s.x.size(0), s.x.size(1), form.d_out})));
  const float d = diff_line(nb, s, "out_einsum", out);
  nb.note("einsum.note", {shape_text(form.W_query.shape()), py_float(d)});
  nb.explain("einsum.explain");
  s.outputs.push_back({"4 MHAEinsum", out});
}

}  // namespace

std::string form_args(const FormsSetup& s, bool heads_before_context) {
  const std::string heads = "num_heads=" + s.heads, context = "context_length=" + s.tokens;
  return "d_in=" + s.d_in + ", d_out=" + s.d_out + ", " + (heads_before_context ? heads + ", " + context : context) +
         ", dropout=0.0" + (heads_before_context ? "" : ", " + heads);
}

float diff_line(Notebook& nb, const FormsSetup& s, const std::string& out_name, const Tensor& out) {
  nb.record(out_name, plain(out));
  const Tensor d = max_abs_diff(out, s.full);
  show_scalar(nb, "(" + out_name + " - full).abs().max()", d);
  return d.item();
}

Notebook mha_forms_lesson(const LessonOptions& given) {
  if (given.qkv_bias) throw UsageError(error_text("mha-forms.err.qkv-bias", {}));
  LessonOptions opt = bonus_options(given, "mha-forms");
  if (opt.d_out != opt.d_in()) throw UsageError(error_text("mha-forms.err.d-out", {str(opt.d_out), str(opt.d_in())}));
  Notebook nb = lesson_notebook("mha-forms", opt);
  nb.heading("ch03/02", "heading.setup");
  FormsSetup s;
  s.d_in = str(opt.d_in()), s.d_out = str(opt.d_out), s.heads = str(*opt.num_heads), s.tokens = str(opt.num_tokens());
  s.x = bonus_inputs_cell(nb, opt, "inputs.note", "inputs.explain");
  Generator gen;
  gen.manual_seed(opt.seed_or(123));
  const MultiHeadAttention mha =
      MultiHeadAttention::init(gen, opt.d_in(), opt.d_out, opt.num_tokens(), 0.0, *opt.num_heads, false);
  s.mha = &mha;
  s.full = plain(mha.forward(s.x, gen, BernoulliPath::Default));
  chapter_cell(nb, opt, s);
  wrapper_cell(nb, s);
  ch03_cell(nb, s);
  combined_cell(nb, s);
  einsum_cell(nb, s);
  torch_class_cells(nb, s);
  sdpa_cells(nb, s);
  return nb;
}

}  // namespace attn
