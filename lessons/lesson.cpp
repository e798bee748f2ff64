#include "lessons/lesson.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "lessons/option_fields.h"
#include "lessons/options.h"
#include "notebook/attention_matrix.h"
#include "notebook/json_export.h"
#include "lessons/embedded_texts.h"

namespace attn {

nlohmann::json LessonOptions::config_json() const {
  nlohmann::json c;
  if (!seed)
    c["seed"] = nullptr;  // the book's torch.manual_seed values
  else if (!seed_text.empty() && seed_text[0] == '-')
    c["seed"] = std::stoll(seed_text);
  else
    c["seed"] = std::stoull(seed_text[0] == '+' ? seed_text.substr(1) : seed_text);
  c["inputs"] = inputs_source.empty() ? "book" : inputs_source;
  if (custom_inputs && inputs_source != "tokens") {  // the numbers too, so `attn-tutor check` can replay them
    const std::vector<float> v = inputs.embeddings.values();
    const size_t cols = static_cast<size_t>(inputs.embeddings.size(1));
    nlohmann::json rows = nlohmann::json::array();
    for (size_t i = 0; i < v.size(); ++i) {
      if (i % cols == 0) rows.push_back(nlohmann::json::array());
      rows.back().push_back(std::strtod(json_float(v[i]).c_str(), nullptr));  // 0.43, not 0.4300000071525574
    }
    c["inputs_data"] = rows;
  }
  c["d_in"] = inputs.embeddings.size(1);
  c["num_tokens"] = inputs.embeddings.size(0);
  for (const OptionField& f : option_fields()) {
    const nlohmann::json value = f.get(*this);
    if (!f.written_when_given || !value.is_null()) c[f.row->config_key()] = value;
  }
  return c;
}

const TextTable& lesson_text(const std::string& folder) {
  static const std::map<std::string, TextTable> tables = [] {
    std::map<std::string, TextTable> out;
    const TextTable* common = nullptr;
    for (const auto& [name, source] : embedded_text_tables())
      if (name == "common") common = &out.emplace(name, TextTable("lessons/common/text.txt", source)).first->second;
    for (const auto& [name, source] : embedded_text_tables())
      if (name != "common" && name.find_first_of(".:") == std::string::npos)
        out.emplace(name, TextTable("lessons/" + name + "/text.txt", source, common));
    return out;
  }();
  const auto it = tables.find(folder);
  if (it == tables.end()) throw std::logic_error("no text table lessons/" + folder + "/text.txt");
  return it->second;
}

std::vector<std::string> listing(const std::string& folder, const std::string& name) {
  const std::string file = folder + "/listings.txt";
  for (const auto& [embedded, source] : embedded_text_tables()) {
    if (embedded != file) continue;
    std::vector<std::string> lines;
    bool in = false;
    std::istringstream text(source);
    for (std::string line; std::getline(text, line);) {
      if (line.rfind("@@ ", 0) == 0) {
        if (in) break;
        in = line.substr(3) == name;
      } else if (in) {
        lines.push_back(line);
      }
    }
    while (!lines.empty() && lines.back().empty()) lines.pop_back();
    if (lines.empty()) break;
    return lines;
  }
  throw std::logic_error("no listing '" + name + "' in lessons/" + file);
}

Notebook lesson_notebook(const std::string& lesson, const LessonOptions& opt) {
  const LessonInfo* info = find_lesson(lesson);
  if (!info) throw std::logic_error("lesson " + lesson + " is not in lessons/registry.cpp");
  Notebook nb(lesson, info->sections, opt.config_json(), opt.inputs.tokens, &lesson_text(lesson));
  nb.set_settings(lesson_settings(*info, opt));
  return nb;
}

namespace {

// The settings table's rows for the options `takes` accepts: the given value, else `unsaid(row)`.
std::vector<Setting> settings_for(const std::function<bool(const OptionRow&)>& takes,
                                  const std::function<Prose(const OptionRow&)>& unsaid, const LessonOptions& opt) {
  const nlohmann::json config = opt.config_json();
  std::vector<Setting> out;
  for (const OptionRow& row : option_table()) {
    // What the page is (its language, its explanations) and where it goes are not settings; --tokens
    // is a way of giving the inputs, listed under "inputs".
    if (!takes(row) || row.display || row.flag == "--lang" || row.flag == "--explain" || row.flag == "--tokens")
      continue;
    if (row.flag == "--d-in" && opt.inputs_source != "tokens") continue;  // the inputs' width: set by --tokens only
    const std::string key = row.config_key();
    const auto it = config.find(key);
    if (row.flag == "--inputs") {
      const std::string source = config.value("inputs", std::string("book"));
      std::string tokens;
      for (const std::string& t : opt.inputs.tokens) tokens += (tokens.empty() ? "" : " ") + label_text(t);
      out.push_back({key, source == "book"     ? text("setting.inputs-book")
                          : source == "tokens" ? text("setting.inputs-tokens", {tokens})
                                               : text("setting.inputs-file", {source, tokens})});
    } else if (it != config.end() && !it->is_null()) {
      out.push_back({key, it->is_string() ? it->get<std::string>() : it->dump()});
    } else if (row.flag == "--seed") {
      out.push_back({key, text("setting.seed-book")});
    } else {
      out.push_back({key, unsaid(row)});
    }
  }
  return out;
}

}  // namespace

std::vector<Setting> lesson_settings(const LessonInfo& info, const LessonOptions& opt) {
  const TextTable& words = lesson_text(info.name);
  return settings_for(
      [&](const OptionRow& row) { return info.takes(row); },
      [&](const OptionRow& row) -> Prose {
        const std::string key = row.config_key();
        const auto own = std::find_if(info.defaults.begin(), info.defaults.end(),
                                      [&](const OptionDefault& d) { return d.flag == row.flag; });
        const bool in_words = own != info.defaults.end() && own->value.empty() && words.has("default." + key);
        const std::string value = info.default_value(row.flag);
        return in_words ? text("default." + key) : !value.empty() ? Prose(value) : text("setting.unset");
      },
      opt);
}

std::vector<Setting> chapter_settings(const LessonOptions& opt) {
  return settings_for(
      [](const OptionRow& row) {
        for (const LessonInfo& l : lessons())
          if (l.in_chapter() && l.takes(row)) return true;
        return false;
      },
      [](const OptionRow& row) -> Prose {
        const std::string value = chapter_default(row);
        return value.empty() ? text("setting.each-lesson") : Prose(value);
      },
      opt);
}

std::string LessonInfo::title(Lang lang) const { return lesson_text(name).render(text("lesson.title"), lang); }

std::string LessonInfo::summary(Lang lang) const {
  std::vector<Prose> values;  // {1}, {2}, ...: its own defaults, in the row's order
  for (const OptionDefault& d : defaults) values.push_back(d.value);
  return lesson_text(name).render(text("lesson.summary", values), lang);
}

std::string LessonInfo::source(Lang lang) const {
  if (after_chapter()) return sections.front();  // "ch04/03_kv-cache", "ch03/02_bonus"
  if (!in_chapter()) return lesson_text(name).render(text("lesson.source"), lang);
  std::string out = "\u00a7";
  for (size_t i = 0; i < sections.size(); ++i) out += (i ? ", " : "") + sections[i];
  return out;
}

bool LessonInfo::in_chapter() const { return sections.front().rfind("3.", 0) == 0; }

bool LessonInfo::after_chapter() const {
  return sections.front().rfind("ch04/", 0) == 0 || sections.front().rfind("ch03/", 0) == 0;
}

bool LessonInfo::takes(const OptionRow& row) const {
  return row.common || std::find(options.begin(), options.end(), row.flag) != options.end();
}

const std::vector<std::string>& ExportNames::list() const {
  static std::mutex computing;
  const std::lock_guard<std::mutex> lock(computing);
  if (!names_) {
    if (run_ == nullptr) throw std::logic_error("ExportNames: not bound to a lesson (lessons() binds them)");
    auto names = std::make_shared<std::vector<std::string>>();
    const Notebook nb = run_(LessonOptions{});
    for (const NamedTensor& t : nb.tensors())
      if (std::find(names->begin(), names->end(), t.name) == names->end()) names->push_back(t.name);
    names_ = std::move(names);
  }
  return *names_;
}

std::string LessonInfo::exports_help(Lang lang) const {
  std::string names;
  for (const std::string& n : exports) names += (names.empty() ? "" : ", ") + n;
  return lesson_text(name).render(text("help.exports", {names}), lang);
}

std::string LessonInfo::default_value(const std::string& flag) const {
  for (const OptionDefault& d : defaults)
    if (d.flag == flag) return d.value;
  return option_row(flag).default_value;
}

std::string LessonInfo::option_help(const OptionRow& row, Lang lang) const {
  const std::string& help = lang == Lang::Zh ? row.help_zh : row.help_en;
  const auto own =
      std::find_if(defaults.begin(), defaults.end(), [&](const OptionDefault& d) { return d.flag == row.flag; });
  const bool in_words = own != defaults.end() && own->value.empty();  // it follows from other options
  const TextTable& words = lesson_text(name);
  const std::string value =
      in_words ? words.render(text("default." + row.config_key()), lang) : default_value(row.flag);
  return value.empty() ? help : words.render(text("help.with-default", {help, value}), lang);
}

std::string chapter_default(const OptionRow& row) {
  std::vector<std::string> values;
  for (const LessonInfo& l : lessons()) {
    const std::string value = l.in_chapter() && l.takes(row) ? l.default_value(row.flag) : "";
    if (!value.empty()) values.push_back(value);
  }
  const bool agree = std::count(values.begin(), values.end(), values.empty() ? "" : values.front()) ==
                     static_cast<long>(values.size());
  return agree && !values.empty() ? values.front() : "";
}

std::string chapter_option_help(const OptionRow& row, Lang lang) {
  const std::string& help = lang == Lang::Zh ? row.help_zh : row.help_en;
  const std::string agreed = chapter_default(row);
  if (!agreed.empty()) return lesson_text("common").render(text("help.with-default", {help, agreed}), lang);
  std::string each;  // "dropout 0.5, wrapper 0.0, mha 0.0"
  for (const LessonInfo& l : lessons()) {
    const std::string value = l.in_chapter() && l.takes(row) ? l.default_value(row.flag) : "";
    if (!value.empty()) each += (each.empty() ? "" : ", ") + l.name + " " + value;
  }
  return each.empty() ? help : lesson_text("common").render(text("help.with-defaults", {help, each}), lang);
}

const LessonInfo* find_lesson(const std::string& name) {
  for (const LessonInfo& l : lessons())
    if (l.name == name) return &l;
  return nullptr;
}

double lesson_default(const std::string& lesson, const std::string& flag) {
  const LessonInfo* info = find_lesson(lesson);
  const std::string value = info ? info->default_value(flag) : std::string();
  if (value.empty()) throw std::logic_error(lesson + " states no default for " + flag + " (lessons/registry.cpp)");
  return std::strtod(value.c_str(), nullptr);
}

int64_t lesson_default_count(const std::string& lesson, const std::string& flag) {
  return static_cast<int64_t>(lesson_default(lesson, flag));
}

double dropout_rate(const std::string& lesson, std::optional<double> given) {
  const LessonInfo* info = find_lesson(lesson);
  if (!info || !info->takes(option_row("--dropout"))) return 0.0;
  if (info->eval_unless_dropout) return given.value_or(0.0);  // eval(): its default rate drops nothing
  return given.value_or(lesson_default(lesson, "--dropout"));
}

}  // namespace attn
