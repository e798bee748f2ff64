#include "notebook/prose.h"

#include <sstream>
#include <stdexcept>

namespace attn {

Prose text(std::string key, std::vector<Prose> args) {
  Prose p;
  p.key = std::move(key);
  p.args = std::move(args);
  return p;
}

Prose text_case(std::string key, std::string case_name, std::vector<Prose> args) {
  Prose p = text(std::move(key), std::move(args));
  p.case_name = std::move(case_name);
  return p;
}

namespace {

std::string unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == 'n' || s[i + 1] == '\\')) {
      out += s[i + 1] == 'n' ? '\n' : '\\';
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

// "{1} of {2}" with the values filled in; {{ and }} stand for braces.
std::string fill(const std::string& pattern, const std::vector<std::string>& values) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if ((c == '{' || c == '}') && i + 1 < pattern.size() && pattern[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c == '{') {
      const size_t close = pattern.find('}', i);
      const size_t n = close == std::string::npos ? 0 : std::stoul(pattern.substr(i + 1, close - i - 1));
      out += n >= 1 && n <= values.size() ? values[n - 1] : "{?}";
      i = close == std::string::npos ? pattern.size() : close;
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

TextTable::TextTable(const std::string& origin, const std::string& source, const TextTable* fallback)
    : origin_(origin), fallback_(fallback) {
  std::istringstream in(source);
  std::string line, key;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    if (line.front() == '[' && line.back() == ']') {
      key = line.substr(1, line.size() - 2);
      if (entries_.count(key)) throw std::logic_error(origin + ":" + std::to_string(number) + ": [" + key + "] twice");
      entries_[key];
      continue;
    }
    // "en = ", "zh = ", or one case: "en[case] = ", "zh[case] = "
    const bool en = line.rfind("en", 0) == 0, zh = line.rfind("zh", 0) == 0;
    const size_t eq = line.find(" = ");
    std::string case_name;
    bool ok = !key.empty() && (en || zh) && eq != std::string::npos;
    if (ok && eq != 2) {
      ok = line[2] == '[' && line[eq - 1] == ']' && eq > 4;
      if (ok) case_name = line.substr(3, eq - 4);
      ok = ok && case_name.find_first_of("[] ") == std::string::npos;
    }
    if (!ok)
      throw std::logic_error(origin + ":" + std::to_string(number) +
                             ": expected [key], 'en = ', 'zh = ' or 'en[case] = '");
    Entry& entry = entries_[key];
    std::string& target =
        case_name.empty() ? (en ? entry.en : entry.zh) : (en ? entry.cases[case_name].en : entry.cases[case_name].zh);
    target = unescape(line.substr(eq + 3));
    if (!entry.cases.empty() && (!entry.en.empty() || !entry.zh.empty()))
      throw std::logic_error(origin + ":" + std::to_string(number) + ": [" + key + "] has cases and a plain en/zh");
  }
}

const TextTable::Entry* TextTable::find(const std::string& key) const {
  const auto it = entries_.find(key);
  if (it != entries_.end()) return &it->second;
  return fallback_ ? fallback_->find(key) : nullptr;
}

bool TextTable::has(const std::string& key) const { return find(key) != nullptr; }

std::string TextTable::render(const Prose& prose, Lang lang) const {
  if (prose.key.empty()) return prose.literal;
  const Entry* e = find(prose.key);
  if (!e) return "[no text: " + prose.key + "]";
  const std::string* pattern = lang == Lang::Zh ? &e->zh : &e->en;
  if (!prose.case_name.empty() || !e->cases.empty()) {  // a case named, or one needed
    const auto it = e->cases.find(prose.case_name);
    if (it == e->cases.end()) return "[no text: " + prose.key + "[" + prose.case_name + "]]";
    pattern = lang == Lang::Zh ? &it->second.zh : &it->second.en;
  }
  std::vector<std::string> values;
  for (const Prose& arg : prose.args) values.push_back(render(arg, lang));
  return fill(*pattern, values);
}

std::vector<std::string> TextTable::incomplete() const {
  std::vector<std::string> out;
  for (const auto& [key, e] : entries_) {
    if (e.cases.empty()) {
      if (e.en.empty()) out.push_back(origin_ + ": [" + key + "] en");
      if (e.zh.empty()) out.push_back(origin_ + ": [" + key + "] zh");
    }
    for (const auto& [name, s] : e.cases) {
      if (s.en.empty()) out.push_back(origin_ + ": [" + key + "] en[" + name + "]");
      if (s.zh.empty()) out.push_back(origin_ + ": [" + key + "] zh[" + name + "]");
    }
  }
  return out;
}

std::vector<std::string> TextTable::cases(const std::string& key) const {
  std::vector<std::string> out;
  if (const Entry* e = find(key))
    for (const auto& entry : e->cases) out.push_back(entry.first);
  return out;
}

std::vector<std::string> TextTable::keys() const {
  std::vector<std::string> out;
  for (const auto& entry : entries_) out.push_back(entry.first);
  return out;
}

}  // namespace attn
