#pragma once
// Cells the lessons after the chapter share (kv-cache, gqa, mla, swa): the settings they run with, the
// input cell, max|diff| against the full forward, and the cell that feeds the tokens one at a time.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lessons/lesson.h"
#include "nn/bonus_attention.h"
#include "notebook/notebook.h"

namespace attn {

// The options with the lesson's own d_out and head count (its registry row's defaults) where the
// learner gave none, validated (d_out divisible by the heads: UsageError), so that the JSON config
// says what ran.
LessonOptions bonus_options(const LessonOptions& opt, const std::string& lesson);

// inputs, torch.set_grad_enabled(False) and x = inputs.unsqueeze(0), with its note; returns x (1, T, d_in).
Tensor bonus_inputs_cell(Notebook& nb, const LessonOptions& opt, const std::string& note_key = "bonus.inputs.note",
                         const std::string& explain_key = "bonus.inputs.explain");

// max|a - b| as the 0-d tensor (a - b).abs().max().
Tensor max_abs_diff(const Tensor& a, const Tensor& b);
// print(t) of a 0-d tensor, recorded under `name` (no shape line).
void show_scalar(Notebook& nb, const std::string& name, const Tensor& t);

// `module`.reset_cache(), then x fed token by token with use_cache=True: one line per token with the
// cache's shape and max|out - full[:, i:i+1, :]|; records each "out" and the cache (`cache_name`, e.g.
// "gqa.cache_k"). `step` runs the module on one token and returns its output and the cache's tensor.
using CachedStep = std::function<std::pair<Tensor, Tensor>(const Tensor& token)>;
void cached_steps_cell(Notebook& nb, const std::string& module, const std::string& cache_name, const Tensor& x,
                       const Tensor& full, const CachedStep& step);

// Ties a module's forward with use_cache=True to cached_steps_cell, after module.reset_cache() as the
// cell shows it: `cache` is the member it reports.
template <class Module, class Owner>
void module_steps_cell(Notebook& nb, const std::string& module, const std::string& cache_name, const Tensor& x,
                       const Tensor& full, Module& m, std::optional<Tensor> Owner::*cache) {
  m.reset_cache();  // the cell's first line: the steps start from an empty cache
  cached_steps_cell(nb, module, cache_name, x, full, [&](const Tensor& token) {
    Generator none;
    const Tensor out = m.forward(token, true, none, BernoulliPath::Default);
    return std::make_pair(out, *(m.*cache));
  });
}

// The class's listing (lessons/FOLDER/listings.txt), a blank line, then `more` (the lines that build it).
std::vector<std::string> class_code(const std::string& folder, const std::string& name,
                                    const std::vector<std::string>& more);

// "d_in=3, d_out=4, dropout=0.0, num_heads=2": the arguments the lesson's class is built with first.
std::string bonus_class_args(const LessonOptions& opt);

// The class's listing, then `torch.manual_seed(seed)`, `module = cls(args)` and its parameters as
// `for name, p in module.named_parameters(): print(name, tuple(p.shape))` prints them (parameter_lines).
void class_parameters_cell(Notebook& nb, const LessonOptions& opt, const std::string& cls, const std::string& module,
                           const std::string& args, const std::vector<std::pair<std::string, const Linear*>>& layers);

// `code`, then queries and values recorded, keys shown, with heads.note (the keys' shape) and heads.explain.
void heads_cell(Notebook& nb, const std::vector<std::string>& code, const BonusAttentionTrace& t);
// `code`, then attn_scores recorded, the mask (as `mask_name`) shown, attn_scores masked recorded (the class
// masks the scores in a statement of its own) and attn_weights shown, with weights.note
// (the weights' shape, then `more`) and weights.explain.
void weights_cell(Notebook& nb, const std::vector<std::string>& code, const BonusAttentionTrace& t,
                  const std::string& mask_name, const std::vector<Prose>& more = {});
// context_vec = the heads merged, full = `module`.out_proj(context_vec): recorded, shown, full.note, full.explain.
void output_cell(Notebook& nb, const std::string& module, const BonusAttentionTrace& t, const Tensor& full);

// Chapter 3's MultiHeadAttention of the same sizes, for the "against MHA" cells: the line that builds it,
// its parameter count (three projections with --qkv-bias's bias, out_proj with bias) and the numbers its
// cache holds per token (keys and values: 2 x d_out).
struct ChapterMha {
  std::vector<std::string> listing;  // the chapter's class (3.6.2) and a blank line, to come before `code`
  std::string code;
  int64_t parameters = 0, cached_per_token = 0;
};
ChapterMha chapter_mha(const LessonOptions& opt);

// "(1, 2, 6, 2)" as Python prints tuple(t.shape) ("(4,)" for one dimension).
std::string shape_tuple(const Tensor& t);
// `name weight_shape` lines as `for name, p in m.named_parameters(): print(name, tuple(p.shape))` prints,
// for the layers in creation order; records each weight as "<module>.<layer>.weight".
void parameter_lines(Notebook& nb, const std::string& module,
                     const std::vector<std::pair<std::string, const Linear*>>& layers);

}  // namespace attn
