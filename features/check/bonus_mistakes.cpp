// The mistakes after the chapter as reruns of the lessons kv-cache, gqa, mla and swa with one switch of
// the bonus module's forward set (lib/nn/variant.h), each only where it changes the numbers; and two of
// the chapter's mistakes that change shapes.
#include "features/check/bonus_mistakes.h"

#include "lessons/lesson_text.h"

namespace attn {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

struct Add {
  const LessonOptions& base;
  std::vector<MistakeRerun>& list;
  void operator()(const std::string& mistake, Prose detail, Variant v) const {
    LessonOptions o = base;
    o.variant = std::move(v);
    list.push_back({mistake, std::move(detail), std::move(o)});
  }
};

}  // namespace

std::vector<MistakeRerun> bonus_mistake_reruns(const std::string& lesson, const LessonOptions& opt) {
  std::vector<MistakeRerun> out;
  if (lesson != "kv-cache" && lesson != "gqa" && lesson != "mla" && lesson != "swa") return out;
  // the lesson's own d_out and heads where not given; none when the lesson refuses them (it cannot run)
  const int64_t heads = opt.heads_or(lesson_default_count(lesson, "--num-heads"));
  const int64_t d_out = opt.d_out_or(lesson_default_count(lesson, "--d-out"));
  if (heads <= 0 || d_out % heads != 0) return out;
  const int64_t head_dim = d_out / heads, tokens = opt.num_tokens();
  const Add add{opt, out};
  Variant v;
  // softmax(scores) not divided by head_dim**0.5: the same numbers when head_dim is 1
  if (head_dim > 1) {
    v.scale = Variant::Scale::None;
    add("no-scaling", text("check.detail.bonus-no-scaling", {str(head_dim)}), v);
  }
  // (b, T, H * hd) viewed straight as (b, H, T, hd): the same numbers with one head or one token
  if (heads > 1 && tokens > 1) {
    v = Variant();
    v.split_without_transpose = true;
    add("view-no-transpose", text("check.detail.bonus-split-no-transpose"), v);
    // merging back: (attn_weights @ values) of shape (b, H, T, hd) viewed straight as (b, T, d_out)
    v = Variant();
    v.merge_without_transpose = true;
    add("view-no-transpose", text("check.detail.merge-no-transpose"), v);
  }
  if (lesson == "gqa") {
    const int64_t groups = opt.num_kv_groups.value_or(lesson_default_count("gqa", "--num-kv-groups"));
    const int64_t group_size = groups > 0 ? heads / groups : 0;
    // repeat tiles the groups (head h reads group h % G): the same as repeat_interleave when G or the
    // group size is 1
    if (groups > 1 && group_size > 1) {
      v = Variant();
      v.gqa_repeat = true;
      add("gqa-repeat", text("check.detail.gqa-repeat", {str(group_size), str(groups)}), v);
    }
    // head h reads group h // G instead of h // group_size: the same when G == group_size (G * G == H),
    // an IndexError when a head's index reaches past the last group (G * G < H)
    if (groups * groups > heads) {
      v = Variant();
      v.gqa_group_by_count = true;
      add("gqa-wrong-group", text("check.detail.gqa-wrong-group", {str(groups), str(group_size)}), v);
    }
  }
  if (lesson == "mla") {
    v = Variant();
    v.mla_values_from_uk = true;
    add("mla-values-from-uk", text("check.detail.mla-values-from-uk"), v);
  }
  return out;
}

std::vector<MistakeRerun> chapter_mistake_reruns(const std::string& lesson, const LessonOptions& opt) {
  std::vector<MistakeRerun> out;
  const Add add{opt, out};
  Variant v;
  if (lesson == "wrapper") {  // (b, H * T, d_out) instead of (b, T, H * d_out): other numbers with two heads or more
    if (opt.heads_or(lesson_default_count("wrapper", "--num-heads")) > 1) {
      v.cat_tokens = true;
      add("wrapper-cat-tokens", text("check.detail.wrapper-cat-tokens"), v);
    }
  } else if (lesson == "causal-mask" && opt.num_tokens() > 1) {  // one sum for the whole matrix: other numbers
    v.norm_whole_sum = 1;
    add("causal-norm-whole", text("check.detail.causal-norm-whole"), v);
    v.norm_whole_sum = 2;
    add("causal-norm-whole", text("check.detail.causal-norm-whole-sums"), v);
    v.norm_whole_sum = 1;
    v.mask = Variant::Mask::AfterSoftmax;
    add("causal-norm-whole", text("check.detail.causal-norm-whole-weights"), v);
  }
  return out;
}

}  // namespace attn
