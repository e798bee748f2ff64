#include "lessons/lesson.h"

#include <cstdlib>
#include <map>
#include <stdexcept>

#include "notebook/json_export.h"

namespace attn {

const std::vector<std::pair<std::string, std::string>>& embedded_text_tables();  // generated

nlohmann::json LessonOptions::config_json() const {
  nlohmann::json c;
  if (!seed) c["seed"] = nullptr;  // the book's torch.manual_seed values
  else if (!seed_text.empty() && seed_text[0] == '-') c["seed"] = std::stoll(seed_text);
  else c["seed"] = std::stoull(seed_text[0] == '+' ? seed_text.substr(1) : seed_text);
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
  c["d_out"] = d_out;
  c["qkv_bias"] = qkv_bias;
  c["init"] = init == Init::Rand ? "rand" : "randn";
  c["num_heads"] = num_heads ? nlohmann::json(*num_heads) : nlohmann::json(nullptr);
  c["dropout"] = dropout ? nlohmann::json(*dropout) : nlohmann::json(nullptr);
  c["context_length"] = context_length ? *context_length : inputs.embeddings.size(0);
  c["bernoulli"] = bernoulli == BernoulliPath::Default ? "default" : "mkl";
  c["no_reseed"] = no_reseed;
  c["gpt2"] = gpt2;
  c["preset"] = preset;
  c["d_model"] = d_model ? nlohmann::json(*d_model) : nlohmann::json(nullptr);
  c["num_hiddens"] = num_hiddens ? nlohmann::json(*num_hiddens) : nlohmann::json(nullptr);
  c["valid_lens"] = valid_lens ? nlohmann::json(*valid_lens) : nlohmann::json(nullptr);
  c["lang"] = lang == Lang::Zh ? "zh" : "en";
  c["explain"] = explain;
  return c;
}

const TextTable& lesson_text(const std::string& folder) {
  static const std::map<std::string, TextTable> tables = [] {
    std::map<std::string, TextTable> out;
    const TextTable* common = nullptr;
    for (const auto& [name, source] : embedded_text_tables())
      if (name == "common") common = &out.emplace(name, TextTable("lessons/common/text.txt", source)).first->second;
    for (const auto& [name, source] : embedded_text_tables())
      if (name != "common") out.emplace(name, TextTable("lessons/" + name + "/text.txt", source, common));
    return out;
  }();
  const auto it = tables.find(folder);
  if (it == tables.end()) throw std::logic_error("no text table lessons/" + folder + "/text.txt");
  return it->second;
}

Notebook lesson_notebook(const std::string& lesson, const std::vector<std::string>& sections,
                         const LessonOptions& opt) {
  return Notebook(lesson, sections, opt.config_json(), opt.inputs.tokens, &lesson_text(lesson));
}

const std::vector<LessonInfo>& lessons() {
  static const std::vector<LessonInfo> all = {
      {"naive-scores", {"3.3.1", "3.3.2"}, "Attention scores from plain dot products",
       "dot products of the query \"journey\" with every token, then all pairs at once",
       "用点积计算注意力分数", "查询 \"journey\" 与每个词元的点积，再一次算出所有词元对的注意力分数",
       naive_scores_lesson},
      {"softmax", {"3.3.1", "3.3.2"}, "Attention weights and context vectors",
       "normalise scores with softmax, weight the inputs into context vectors", "注意力权重与上下文向量",
       "用 softmax 把注意力分数归一化为注意力权重，再加权求和得到上下文向量", softmax_lesson},
      {"trainable", {"3.4.1", "3.4.2"}, "Self-attention with trainable weights",
       "W_query, W_key, W_value, scaled dot-product attention, SelfAttention_v1/v2", "带可训练权重的自注意力",
       "W_query、W_key、W_value，缩放点积注意力，SelfAttention_v1/v2", trainable_lesson},
      {"causal-mask", {"3.5.1"}, "Causal attention: hiding future tokens",
       "mask the weights above the diagonal, renormalise, and the -inf trick", "因果注意力：隐藏未来的词元",
       "掩码对角线以上的注意力权重并重新归一化，以及用 -inf 掩码的技巧", causal_mask_lesson},
      {"dropout", {"3.5.2", "3.5.3"}, "Dropout on attention weights, and CausalAttention",
       "Dropout(p) masks and its 1/(1-p) scale, a batch, the CausalAttention class",
       "对注意力权重应用 dropout，以及 CausalAttention 类", "Dropout(p) 掩码与 1/(1-p) 缩放、批次输入、CausalAttention 类",
       dropout_lesson},
      {"wrapper", {"3.6.1"}, "Multi-head attention by stacking heads",
       "MultiHeadAttentionWrapper, one CausalAttention per head, outputs concatenated", "堆叠单头注意力实现多头注意力",
       "MultiHeadAttentionWrapper：每个头一个 CausalAttention，输出拼接", wrapper_lesson},
      {"mha", {"3.6.2"}, "Multi-head attention with weight splits",
       "MultiHeadAttention, view/transpose into heads, batched matmul, out_proj", "通过权重划分实现多头注意力",
       "MultiHeadAttention：用 view/transpose 拆分成多个头、批量矩阵乘法、out_proj", mha_lesson},
      {"course-mha", {"002"}, "A course's multi-head attention",
       "one Attention module per head, cat, projection and dropout; each head checked against CausalAttention",
       "一门课程中的多头注意力", "每个头一个 Attention 模块，拼接、投影与 dropout；逐头与 CausalAttention 对照",
       course_mha_lesson},
      {"d2l-mha", {"004"}, "d2l's multi-head attention with padding masks",
       "masked_softmax with valid_lens, transpose_qkv/transpose_output beside the book's split, d2l's "
       "MultiHeadAttention",
       "d2l 的多头注意力与填充掩码",
       "带 valid_lens 的 masked_softmax，transpose_qkv/transpose_output 与本书拆分方式对照，d2l 的 MultiHeadAttention",
       d2l_mha_lesson},
  };
  return all;
}

const LessonInfo* find_lesson(const std::string& name) {
  for (const LessonInfo& l : lessons())
    if (l.name == name) return &l;
  return nullptr;
}

}  // namespace attn
