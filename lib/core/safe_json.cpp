#include "core/safe_json.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <vector>

#include "core/safe_text.h"
#include "core/usage_error.h"

namespace attn {

namespace {

using nlohmann::json;

// Builds the document as nlohmann's own DOM parser does, one value at a time (no recursion), and
// stops at the first array or object nested deeper than the limit, or at the value past `max_values`.
class BoundedBuilder : public nlohmann::json_sax<json> {
 public:
  BoundedBuilder(json& root, int max_depth, std::size_t max_values)
      : root_(root), max_depth_(max_depth), max_values_(max_values) {}

  bool null() override { return add(nullptr); }
  bool boolean(bool v) override { return add(v); }
  bool number_integer(number_integer_t v) override { return add(v); }
  bool number_unsigned(number_unsigned_t v) override { return add(v); }
  bool number_float(number_float_t v, const string_t&) override { return add(v); }
  bool string(string_t& v) override { return add(std::move(v)); }
  bool binary(binary_t& v) override { return add(json::binary(std::move(v))); }
  bool start_object(std::size_t) override { return open(json::object()); }
  bool key(string_t& k) override {
    member_ = &(*stack_.back())[k];
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(json::array()); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
    error_ = true;
    position_ = position;
    id_ = ex.id;
    message_ = ex.what();
    return false;
  }

  bool too_deep() const { return too_deep_; }
  bool too_many() const { return too_many_; }
  bool error() const { return error_; }
  std::size_t position() const { return position_; }
  int id() const { return id_; }
  const std::string& message() const { return message_; }

 private:
  json* place(json&& v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    if (stack_.back()->is_array()) {
      stack_.back()->push_back(std::move(v));
      return &stack_.back()->back();
    }
    *member_ = std::move(v);
    return member_;
  }
  // False (the parse stops) at the value past the limit.
  bool count() {
    if (max_values_ == 0 || ++values_ <= max_values_) return true;
    too_many_ = true;
    return false;
  }
  template <typename T>
  bool add(T&& v) {
    if (!count()) return false;
    place(json(std::forward<T>(v)));
    return true;
  }
  bool open(json&& container) {
    if (static_cast<int>(stack_.size()) >= max_depth_) {
      too_deep_ = true;
      return false;
    }
    if (!count()) return false;
    stack_.push_back(place(std::move(container)));
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }

  json& root_;
  int max_depth_;
  std::size_t max_values_, values_ = 0;
  std::vector<json*> stack_;  // the open arrays and objects, innermost last
  json* member_ = nullptr;    // the object member the next value goes to
  bool too_deep_ = false, too_many_ = false, error_ = false;
  std::size_t position_ = 0;
  std::string message_;
  int id_ = 0;
};

ErrorText where(const std::string& text, std::size_t at) {
  at = std::min(at, text.size());
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + at, '\n'));
  const std::size_t newline = at == 0 ? std::string::npos : text.rfind('\n', at - 1);
  const std::size_t column = newline == std::string::npos ? at + 1 : at - newline;
  return error_text("core.json.where", {std::to_string(line), std::to_string(column)});
}

// The byte where arrays and objects first nest deeper than `max_depth` (outside strings).
std::size_t too_deep_at(const std::string& text, int max_depth) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return text.size();
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.'; }

// Where the word (a number or a literal: letters, digits, signs, dots) that ends at `last` starts.
std::size_t word_start(const std::string& text, std::size_t last) {
  if (last >= text.size() || !word_char(text[last])) return last;
  std::size_t start = last;
  while (start > 0 && word_char(text[start - 1])) --start;
  return start;
}

// The word from `start` on, at most 24 characters (one character when none is a word character).
std::string word_from(const std::string& text, std::size_t start) {
  std::size_t end = start;
  while (end < text.size() && end - start < 24 && word_char(text[end])) ++end;
  if (end == start && start < text.size()) ++end;
  return text.substr(start, end - start);
}

bool non_finite_word(std::string w) {
  for (char& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!w.empty() && (w[0] == '-' || w[0] == '+')) w.erase(0, 1);
  return w == "nan" || w == "inf" || w == "infinity";
}

// "'[', '{', or a literal" and the other names of what the parser expected, in the messages' words.
ErrorText expected_text(const std::string& message) {
  const std::size_t at = message.find("; expected ");
  if (at == std::string::npos) return "";
  const std::string name = message.substr(at + 11);
  if (name == "'[', '{', or a literal") return error_text("core.json.a-value");
  if (name == "end of input") return error_text("core.json.the-end");
  if (name == "string literal") return error_text("core.json.a-key");
  if (name.size() == 3 && name[0] == '\'') return name;  // ']', '}', ':', ','
  return "";
}

std::string quoted(const std::string& token) { return "'" + echo(token, 24) + "'"; }

}  // namespace

json parse_json_safely(const std::string& text, const JsonRules& rules) {
  json doc;
  BoundedBuilder builder(doc, rules.max_depth, rules.max_values);
  const bool ok = json::sax_parse(text, &builder, json::input_format_t::json, true, false);
  if (ok && !builder.too_deep() && !builder.too_many() && !builder.error()) return doc;
  if (builder.too_many()) {
    json().swap(doc);  // its memory back before the message is made
    throw UsageError(
        error_text("core.json.too-many", {rules.source, std::to_string(rules.max_values), rules.values_fix}));
  }
  if (builder.too_deep())
    throw UsageError(
        error_text("core.json.too-deep", {rules.source, std::to_string(rules.max_depth),
                                          where(text, too_deep_at(text, rules.max_depth)), rules.depth_fix}));

  // nlohmann's position is just past the last character it read: the one that broke the JSON, or
  // the last of the token that came unexpected.
  const std::string& m = builder.message();
  const std::size_t end = std::min(builder.position(), text.size());
  const std::size_t last = end > 0 ? end - 1 : 0;
  std::size_t at = word_start(text, last);
  const std::string word = word_from(text, at);
  ErrorText what, fix = rules.fix;
  if (builder.id() == 406) {
    what = error_text("core.json.too-large", {quoted(word)});
    fix = rules.nonfinite_fix;
  } else if (m.find("ill-formed UTF-8") != std::string::npos) {
    at = last;
    what = error_text("core.json.not-utf-8-text");
    fix = error_text("core.json.not-utf-8-fix");
  } else if (m.find("control character") != std::string::npos) {
    at = last;
    char code[16];
    std::snprintf(code, sizeof code, "U+%04X", at < text.size() ? static_cast<unsigned char>(text[at]) : 0u);
    what = error_text("core.json.control", {std::string(code)});
    fix = error_text("core.json.control-fix");
  } else if (m.find("missing closing quote") != std::string::npos) {
    at = text.size();
    what = error_text("core.json.no-closing-quote");
    fix = error_text("core.json.no-closing-quote-fix");
  } else if (m.find("invalid string") != std::string::npos) {
    at = last;
    what = error_text("core.json.bad-escape");
    fix = error_text("core.json.bad-escape-fix");
  } else if (non_finite_word(word) &&
             (m.find("invalid literal") != std::string::npos || m.find("invalid number") != std::string::npos)) {
    what = error_text("core.json.not-finite", {quoted(word)});
    fix = rules.nonfinite_fix;
  } else if (m.find("; expected end of input") != std::string::npos) {
    what = error_text("core.json.more-text", {quoted(word)});
  } else if (m.find("invalid number") != std::string::npos) {
    what = error_text("core.json.bad-number", {quoted(word)});
    fix = error_text("core.json.bad-number-fix");
  } else if (m.find("invalid literal") != std::string::npos) {
    what = error_text("core.json.bad-literal", {quoted(word)});
    fix = error_text("core.json.bad-literal-fix", {rules.fix});
  } else if (m.find("unexpected end of input") != std::string::npos) {
    at = text.size();
    const bool blank = text.find_first_not_of(" \t\r\n") == std::string::npos;
    what = error_text(blank ? "core.json.empty" : "core.json.ends-early");
  } else if (m.find("unexpected string literal") != std::string::npos) {
    at = last;
    const ErrorText expected = expected_text(m);
    what = expected.empty() ? error_text("core.json.unexpected-string")
                            : error_text("core.json.unexpected-string-expected", {expected});
  } else if (m.find("unexpected ") != std::string::npos) {
    const ErrorText expected = expected_text(m);
    what = expected.empty() ? error_text("core.json.unexpected", {quoted(word)})
                            : error_text("core.json.unexpected-expected", {quoted(word), expected});
    const std::size_t before = at == 0 ? std::string::npos : text.find_last_not_of(" \t\r\n", at - 1);
    if ((word == "]" || word == "}") && before != std::string::npos && text[before] == ',')
      what = error_text("core.json.trailing-comma", {what, word});
  } else {
    what = error_text("core.json.malformed");
  }
  throw UsageError(error_text("core.json.invalid", {rules.source, where(text, at), what, fix}));
}

}  // namespace attn
