#include "lessons/option_fields.h"

#include <optional>
#include <stdexcept>
#include <type_traits>

namespace attn {
namespace {

using nlohmann::json;

// A field that holds the value itself (an int64_t, a bool, a std::string).
template <auto Field>
json get_plain(const LessonOptions& opt) {
  return opt.*Field;
}
template <auto Field>
void set_plain(LessonOptions& opt, const json& v) {
  v.get_to(opt.*Field);
}

// A std::optional field: null when absent.
template <auto Field>
json get_optional(const LessonOptions& opt) {
  return opt.*Field ? json(*(opt.*Field)) : json(nullptr);
}
template <auto Field>
void set_optional(LessonOptions& opt, const json& v) {
  using Value = typename std::remove_reference_t<decltype(opt.*Field)>::value_type;
  opt.*Field = v.get<Value>();
}

// An enum field whose values are in the order of the row's choices (Init: rand randn, BernoulliPath:
// default mkl, Lang: en zh).
template <auto Field>
const OptionRow*& enum_row() {
  static const OptionRow* row = nullptr;
  return row;
}
template <auto Field>
json get_choice(const LessonOptions& opt) {
  return enum_row<Field>()->choices.at(static_cast<size_t>(opt.*Field));
}
template <auto Field>
void set_choice(LessonOptions& opt, const json& v) {
  const std::vector<std::string>& choices = enum_row<Field>()->choices;
  for (size_t i = 0; i < choices.size(); ++i)
    if (v == choices[i]) opt.*Field = static_cast<std::remove_reference_t<decltype(opt.*Field)>>(i);
}

template <auto Field>
OptionField plain(const char* flag) {
  return {&option_row(flag), get_plain<Field>, set_plain<Field>};
}
template <auto Field>
OptionField optional(const char* flag, bool written_when_given = false) {
  return {&option_row(flag), get_optional<Field>, set_optional<Field>, written_when_given};
}
// How the page is written (its language, its explanations), not what it computes.
OptionField page_form(OptionField f) {
  f.learner_setting = false;
  return f;
}

template <auto Field>
OptionField choice(const char* flag) {
  enum_row<Field>() = &option_row(flag);
  return {&option_row(flag), get_choice<Field>, set_choice<Field>};
}

std::vector<OptionField> bindings() {
  std::vector<OptionField> out = {
      {&option_row("--d-out"), [](const LessonOptions& o) { return json(o.d_out); },
       [](LessonOptions& o, const json& v) {
         o.d_out = v.get<int64_t>();
         o.d_out_given = true;
       }},
      plain<&LessonOptions::qkv_bias>("--qkv-bias"),
      choice<&LessonOptions::init>("--init"),
      optional<&LessonOptions::num_heads>("--num-heads"),
      optional<&LessonOptions::dropout>("--dropout"),
      // The config writes the number of tokens when it is not given (the buffer the lesson builds).
      {&option_row("--context-length"), [](const LessonOptions& o) { return json(o.context_length_or_tokens()); },
       set_optional<&LessonOptions::context_length>, false, true,
       [](const LessonOptions& o) { return o.num_tokens(); }},
      choice<&LessonOptions::bernoulli>("--bernoulli"),
      plain<&LessonOptions::no_reseed>("--no-reseed"),
      plain<&LessonOptions::preset>("--preset"),
      optional<&LessonOptions::d_model>("--d-model"),
      optional<&LessonOptions::num_hiddens>("--num-hiddens"),
      optional<&LessonOptions::valid_lens>("--valid-lens"),
      plain<&LessonOptions::gpt2>("--gpt2"),
      optional<&LessonOptions::num_kv_groups>("--num-kv-groups", true),
      optional<&LessonOptions::latent_dim>("--latent-dim", true),
      optional<&LessonOptions::window>("--window", true),
      page_form(choice<&LessonOptions::lang>("--lang")),
      page_form(plain<&LessonOptions::explain>("--explain")),
  };
  return out;
}

}  // namespace

const std::vector<OptionField>& option_fields() {
  static const std::vector<OptionField> fields = [] {
    std::vector<OptionField> out;
    const std::vector<OptionField> bound = bindings();
    for (const OptionRow& row : option_table())  // the table's order
      for (const OptionField& f : bound)
        if (f.row == &row) out.push_back(f);
    if (out.size() != bound.size()) throw std::logic_error("lessons/option_fields.cpp binds a flag twice");
    return out;
  }();
  return fields;
}

}  // namespace attn
