// A course's multi-head attention (a Bilibili course, as a reader wrote it up). One `Attention`
// module per head, concatenated and projected, replayed cell by cell; then each head is checked
// against the book's CausalAttention (§3.5.3) with the same weights.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "nn/causal_attention.h"
#include "nn/course_attention.h"
#include "lessons/common/causal_setup.h"
#include "lessons/course-mha/course_settings.h"
#include "lessons/lesson.h"
#include "lessons/lesson_text.h"
#include "core/ops_shape.h"
#include "core/print.h"
#include "nn/self_attention.h"
#include "core/usage_error.h"

namespace attn {

namespace {

// The lesson's hyper-parameters after the preset and the options.
struct CourseConfig {
  bool post = false;  // --preset post: the course's settings on torch.randn input
  int64_t d_model = 0, num_heads = 0, context_length = 0, batch = 2, T = 0;
  double dropout = 0.0;  // --dropout, else the lesson's default
  uint64_t seed = 123;
  int64_t head_size() const { return d_model / num_heads; }
};

CourseConfig resolve(const LessonOptions& opt) {
  CourseConfig c;
  c.post = opt.preset == "post";
  if (opt.qkv_bias) throw UsageError(error_text("course.err.bias"));
  if (c.post && opt.custom_inputs && opt.inputs_source != "tokens")
    throw UsageError(error_text("course.err.post-inputs", {opt.inputs_source}));
  if (c.post) {
    c.d_model = opt.d_model.value_or(course::kDModel);
  } else {
    c.d_model = opt.d_in();
    if (opt.d_model && *opt.d_model != c.d_model)
      throw UsageError(error_text("course.err.small-d-model", {str(*opt.d_model), str(c.d_model)}));
  }
  c.num_heads = opt.heads_or(c.post ? course::kNumHeads : course::small_num_heads(c.d_model));
  if (c.d_model % c.num_heads != 0)
    throw UsageError(
        error_text(c.post ? "course.err.heads-post" : "course.err.heads", {str(c.d_model), str(c.num_heads)}));
  c.T = opt.num_tokens();
  c.context_length = opt.context_length ? *opt.context_length : c.post ? course::kContextLength : c.T;
  c.dropout = opt.dropout.value_or(lesson_default("course-mha", "--dropout"));
  c.seed = opt.seed_or(123);
  return c;
}

// "d_model = 3  # comment", with the course's value when it differs.
std::string hyper_line(const std::string& name, const std::string& value, const std::string& post_value,
                       const std::string& comment) {
  std::string line = name + " = " + value + "  # " + comment;
  if (value != post_value) line += " (the course: " + post_value + ")";
  return line;
}

std::vector<std::string> hyperparameter_code(const CourseConfig& c) {
  std::vector<std::string> code = {"# Hyperparameters"};
  code.push_back(hyper_line("context_length", str(c.context_length), str(course::kContextLength),
                            c.post ? "Length of the token chunk each batch" : "the number of tokens, as in the book"));
  code.push_back(hyper_line("d_model", str(c.d_model), str(course::kDModel),
                            c.post ? "The size of our model token embeddings" : "the size of the embeddings"));
  if (c.post) code.push_back("num_blocks = 12  # Number of transformer blocks (not used in this lesson)");
  code.push_back(
      hyper_line("num_heads", str(c.num_heads), str(course::kNumHeads), "Number of heads in Multi-head attention"));
  code.push_back(
      hyper_line("dropout", py_float(c.dropout), py_float(lesson_default("course-mha", "--dropout")), "Dropout rate"));
  return code;
}

std::vector<std::string> attention_class_code() { return listing("course-mha", "Attention"); }

std::vector<std::string> multihead_class_code() { return listing("course-mha", "MultiHeadAttention"); }

// Entries of a 0/1 keep mask that dropout set to 0, among those where `before` was not already 0.
int64_t dropped_count(const Tensor& keep, const Tensor& before) {
  if (keep.numel() == 0) return 0;
  const std::vector<float> k = keep.values(), b = before.values();
  int64_t n = 0;
  for (size_t i = 0; i < k.size(); ++i) n += k[i] == 0.0f && b[i] != 0.0f;
  return n;
}

int64_t nonzero_count(const Tensor& t) {
  int64_t n = 0;
  for (float v : t.values()) n += v != 0.0f;
  return n;
}

std::string fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// What a dropout with rate p did, for the notes. `what` names the entries: weights or outputs.
Prose dropout_effect(double p, const Tensor& keep, const Tensor& before, const std::string& what) {
  if (p == 0.0) return text("dropout_effect.none");
  if (p == 1.0) return text("dropout_effect.all");
  const int64_t candidates = nonzero_count(before);
  return text("dropout_effect.some", {py_float(p), str(dropped_count(keep, before)), str(candidates), text(what),
                                      fixed(p * static_cast<double>(candidates), 1), fixed(1.0 / (1.0 - p), 4)});
}

std::string bool_text(bool b) { return b ? "True" : "False"; }

// print(f"head {i}:", o) for a few heads, shapes for many.
void head_output_cells(Notebook& nb, const CourseConfig& c, const CourseMultiHeadTrace& t) {
  const bool each = !c.post;
  std::vector<std::string> code = {"# back in mha(x): self is mha", "self = mha"};
  if (c.dropout > 0.0) code.push_back("torch.set_rng_state(rng)  # the heads draw the dropout masks of mha(x) again");
  code.push_back("head_outputs = [head(x) for head in self.heads]");
  if (each)
    code.insert(code.end(), {"for i, o in enumerate(head_outputs):", "    print(f\"head {i}:\", o)"});
  else
    code.push_back("print(len(head_outputs), head_outputs[0].shape)");
  nb.cell(code);
  for (size_t i = 0; i < t.heads.size(); ++i) {
    const std::string name = "head_outputs[" + str(static_cast<int64_t>(i)) + "]";
    if (each)
      nb.show("head " + str(static_cast<int64_t>(i)) + ":", name, t.heads[i].output);
    else
      nb.record(name, t.heads[i].output);
  }
  if (!each) nb.print(str(c.num_heads) + " " + repr_size(t.heads[0].output.shape()));
  const std::string shape = shape_text(t.heads[0].output.shape()), heads = str(c.num_heads);
  nb.note("intro.note", {heads, shape});
  nb.explain("intro.explain");
}

void comparison_cells(Notebook& nb, const CourseConfig& c, const CourseMultiHeadAttention& mha, const Tensor& x,
                      Generator& gen, BernoulliPath path) {
  nb.source_heading("course", "lesson.source", "heading.book_heads");
  std::vector<std::string> code = causal_attention_class_code();  // the book's listing 3.3 (3.5.3)
  code.insert(code.begin(), "# CausalAttention: the book's listing 3.3 (attn-tutor dropout, 3.5.3)");
  code.insert(code.end(),
              {"", "for i, head in enumerate(mha.heads):",
               "    ca = CausalAttention(d_model, d_model // num_heads, context_length, dropout)",
               "    with torch.no_grad():  # give the book's head this head's weights",
               "        ca.W_query.weight.copy_(head.Wq.weight)", "        ca.W_key.weight.copy_(head.Wk.weight)",
               "        ca.W_value.weight.copy_(head.Wv.weight)", "    state = torch.get_rng_state()",
               "    out_course = head(x)", "    torch.set_rng_state(state)  # the same dropout mask for both",
               "    out_book = ca(x)",
               "    print(i, torch.equal(out_course, out_book), (out_course - out_book).abs().max().item())"});
  nb.cell(code);
  bool all_equal = true;
  for (size_t i = 0; i < mha.heads.size(); ++i) {
    const CourseAttention& head = mha.heads[i];
    CausalAttention ca = CausalAttention::init(gen, c.d_model, c.head_size(), c.context_length, c.dropout, false);
    ca.W_query.weight = head.Wq.weight;
    ca.W_key.weight = head.Wk.weight;
    ca.W_value.weight = head.Wv.weight;
    Generator state = gen;
    Tensor out_course = head.forward(x, gen, path);
    Tensor out_book = ca.forward(x, state, path);
    const std::vector<float> a = out_course.values(), b = out_book.values();
    bool equal = a.size() == b.size();
    double max_diff = 0.0;
    for (size_t j = 0; equal && j < a.size(); ++j) {
      equal = a[j] == b[j];
      max_diff = std::max(max_diff, static_cast<double>(std::fabs(a[j] - b[j])));
    }
    all_equal = all_equal && equal;
    nb.record("out_course", out_course);
    nb.record("out_book", out_book);
    nb.print(str(static_cast<int64_t>(i)) + " " + bool_text(equal) + " " + py_float(max_diff));
  }
  const std::string hs = str(c.head_size());
  nb.note_case("heads_match_book.note", all_equal ? "equal" : "differ", {hs});
  const std::string proj = str(c.d_model * c.d_model + c.d_model), total = str(mha.parameter_count());
  nb.note("course_param_count.note", {proj, total});
  nb.explain("heads_match_book.explain");
}

}  // namespace

Notebook course_mha_lesson(const LessonOptions& opt) {
  const CourseConfig c = resolve(opt);
  Notebook nb = lesson_notebook("course-mha", opt);
  nb.resolve_setting("d_model", str(c.d_model));  // the settings table: the values this run used
  nb.resolve_setting("num_heads", str(c.num_heads));
  nb.resolve_setting("context_length", str(c.context_length));
  const std::string seed_code = "torch.manual_seed(" + fmt_seed(opt, 123) + ")";
  const std::string d_model = str(c.d_model), heads = str(c.num_heads), hs = str(c.head_size());

  nb.source_heading("course", "lesson.source", "heading.course_classes");
  nb.cell(hyperparameter_code(c));
  nb.note("course.intro");  // which code this lesson replays, as the learner knows it
  if (c.post) {
    nb.note("hyper_post.note", {str(c.T)});
  } else {
    const bool several = c.num_heads > 1;
    nb.note("hyper.note",
            {text(opt.custom_inputs ? "hyper.x_tokens" : "hyper.x_chapter"), d_model,
             opt.num_heads ? text("hyper.heads_given", {heads}) : text("hyper.heads_default"), heads,
             text(several ? "hyper.heads_word" : "hyper.head_word"), hs,
             several ? text("hyper.several", {hs}) : Prose(""), c.head_size() == 1 ? text("hyper.size_one") : Prose(""),
             text(opt.dropout ? "hyper.end" : "hyper.end_dropout")});
  }
  nb.explain("hyper.explain");

  nb.cell(attention_class_code());
  nb.note("attention_class.note");
  nb.explain("attention_class.explain");

  nb.cell(multihead_class_code());
  nb.note("multihead_class.note");
  nb.explain("multihead_class.explain");
  nb.confusion("multihead_class.confusion", {hs, d_model});

  Tensor x;
  Generator gen;
  if (!c.post) {
    std::vector<std::string> code = inputs_code(opt);
    code.insert(code.end(),
                {"x = torch.stack((inputs, inputs), dim=0)  # the book's batch: [B, T, d_model]", "print(x.shape)"});
    nb.cell(code);
    x = stack({opt.inputs.embeddings, opt.inputs.embeddings}, 0);
    nb.record("x", x);
    nb.print(repr_size(x.shape()));
    const std::string shape = shape_text(x.shape());
    nb.note_case("x_batch.note", opt.custom_inputs ? "your_tokens" : "chapter_inputs", {shape});
    nb.explain("x_batch.explain");
  }

  nb.cell({seed_code, "mha = MultiHeadAttention()", "print(sum(p.numel() for p in mha.parameters()))",
           "print(mha.heads[0].Wq.weight)"});
  gen.manual_seed(c.seed);
  const CourseMultiHeadAttention mha =
      CourseMultiHeadAttention::init(gen, c.d_model, c.num_heads, c.context_length, c.dropout, opt.variant);
  nb.print(str(mha.parameter_count()));
  nb.show("mha.heads[0].Wq.weight", mha.heads[0].Wq.weight);
  const std::string params = str(mha.parameter_count());
  nb.note("mha_heads_0_wq_weight.note", {params});
  nb.explain("mha_heads_0_wq_weight.explain", {hs, d_model});

  if (c.post) {
    nb.cell({"x = torch.randn(" + str(c.batch) + ", " + str(c.T) + ", d_model)  # stand-in for " + str(c.T) +
                 " token embeddings",
             "print(x.shape)", "print(x)"});
    x = Tensor({c.batch, c.T, c.d_model}, randn_values(gen, c.batch * c.T * c.d_model));
    nb.print(repr_size(x.shape()));
    nb.show("x", x);
    nb.note("x.note");
    const std::string shape = shape_text(x.shape());
    nb.explain("x.explain", {shape, str(c.batch), str(c.T)});
  }

  nb.source_heading("course", "lesson.source", "heading.forward");
  // With dropout, mha(x) draws its masks: the cells that step through it replay them from this state.
  if (c.dropout > 0.0)
    nb.cell({"rng = torch.get_rng_state()  # before mha(x): replayed below", "out = mha(x)", "print(out)"});
  else
    nb.cell({"out = mha(x)", "print(out)"});
  CourseMultiHeadTrace t;
  const Tensor out = mha.forward(x, gen, opt.bernoulli, &t, opt.variant);
  nb.trace(t.steps);
  nb.show("out", out);
  nb.note("out.note");
  nb.explain_case("out.explain", c.dropout > 0.0 && c.dropout < 1.0 ? "random_masks" : "no_random_masks");

  const CourseAttentionTrace& h = t.heads[0];
  std::vector<std::string> qkv = {"# inside mha(x): heads[0](x), self is mha.heads[0]", "self = mha.heads[0]"};
  if (c.dropout > 0.0) qkv.push_back("torch.set_rng_state(rng)  # so that self.dropout draws what mha(x) drew");
  qkv.insert(qkv.end(), {"B, T, C = x.shape", "q = self.Wq(x)", "k = self.Wk(x)", "v = self.Wv(x)", "print(q)"});
  if (c.post)
    qkv.insert(qkv.end(), {"print(k.shape, v.shape)"});
  else
    qkv.insert(qkv.end(), {"print(k)", "print(v)"});
  nb.cell(qkv);
  nb.show("q", h.q);
  if (c.post) {
    nb.record("k", h.k);
    nb.record("v", h.v);
    nb.print(repr_size(h.k.shape()) + " " + repr_size(h.v.shape()));
  } else {
    nb.show("k", h.k);
    nb.show("v", h.v);
  }
  const std::string q_shape = shape_text(h.q.shape());
  nb.note("qkv.note", {d_model, hs, q_shape});
  nb.explain("qkv.explain", {hs});

  nb.cell({"weights = (q @ k.transpose(-2, -1)) / math.sqrt(d_model // num_heads)", "print(q @ k.transpose(-2, -1))",
           "print(weights)", "print(math.sqrt(d_model // num_heads), k.shape[-1]**0.5)"});
  nb.show("q @ k.transpose(-2, -1)", h.scores);
  nb.show("weights", h.scaled);
  nb.print(py_float(math_sqrt(c.head_size())) + " " + py_float(sqrt_d_k(c.head_size())));
  nb.note("head_scale.note");
  nb.explain("head_scale.explain");
  nb.confusion("head_scale.confusion");

  nb.cell({"print(self.mask[:T, :T])", "print(self.mask[:T, :T] == 0)",
           "print(torch.equal(self.mask[:T, :T] == 0, torch.triu(torch.ones(T, T), diagonal=1).bool()))",
           "weights = weights.masked_fill(self.mask[:T, :T] == 0, float('-inf'))", "print(weights)"});
  nb.show("self.mask[:T, :T]", h.mask);
  nb.show("self.mask[:T, :T] == 0", h.mask_is_zero);
  const Tensor book_mask = to_bool(triu(ones({c.T, c.T}), 1));
  nb.print(bool_text(book_mask.values() == h.mask_is_zero.values()));
  nb.show("weights", h.masked);
  const std::string cl = str(c.context_length);
  nb.note("weights.note", {cl});
  nb.explain("weights.explain");
  nb.confusion("weights.confusion");

  tensor_cell(nb, {"weights = F.softmax(weights, dim=-1)", "print(weights)"}, "weights", h.softmaxed, "softmaxed.note",
              "softmaxed.explain", "softmaxed.confusion");

  nb.cell({"weights = self.dropout(weights)", "print(weights)"});
  nb.show("weights", h.dropped);
  const Prose first = dropout_effect(c.dropout, h.dropout_keep, h.softmaxed, "dropout_effect.weights");
  nb.note("first_dropout.note", {first});
  nb.explain("first_dropout.explain");

  nb.cell({"output = weights @ v", "print(output)"});
  nb.show("output", h.output);
  nb.note("output.note");
  nb.explain("output.explain", {hs, d_model});

  head_output_cells(nb, c, t);

  nb.cell({"head_outputs = torch.cat(head_outputs, dim=-1)", "print(head_outputs)"});
  nb.show("head_outputs", t.head_outputs);
  nb.note_case("head_outputs.note", c.head_size() == 1 ? "size_one" : "columns",
               {heads, hs, d_model, str(c.head_size() - 1)});
  nb.explain("head_outputs.explain");

  projection_cell(nb,
                  {"out = self.projection_layer(head_outputs)", "print(self.projection_layer.weight)",
                   "print(self.projection_layer.bias)", "print(out)"},
                  "self.projection_layer", mha.projection_layer, "out", t.projected, "projection.note",
                  "projection.explain");

  nb.cell({"out = self.dropout(out)", "print(out)"});
  nb.show("out", t.out);
  const Prose second = dropout_effect(c.dropout, t.dropout_keep, t.projected, "dropout_effect.outputs");
  nb.note("second_dropout.note", {second});
  nb.explain("second_dropout.explain");

  comparison_cells(nb, c, mha, x, gen, opt.bernoulli);
  return nb;
}

}  // namespace attn
