#include "cli_messages.h"

#include "language.h"

namespace attn {
namespace {

std::string joined(const std::vector<std::string>& words, const std::string& comma) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) out += (i ? comma : "") + words[i];
  return out;
}

std::string lesson_help(const std::string& command) {
  return command.empty() ? "attn-tutor --help" : "attn-tutor " + command + " --help";
}

std::string command_name(const std::string& command) { return command.empty() ? "attn-tutor" : command; }

}  // namespace

std::string run_help(const std::string& command) {
  return in_help_language("; run '" + lesson_help(command) + "'", "；运行 '" + lesson_help(command) + "' 查看选项");
}

std::string unknown_command_message(const std::string& word, const std::string& guess) {
  return in_help_language(word + ": no such lesson or command" + (guess.empty() ? "" : " (did you mean " + guess + "?)") +
                "; run 'attn-tutor' to list them",
            word + "：没有这个课程或命令" + (guess.empty() ? "" : "（是不是想写 " + guess + "？）") +
                "；运行 'attn-tutor' 列出全部课程");
}

std::string unknown_option_message(const std::string& option, const std::string& command, const std::string& guess) {
  return in_help_language(option + ": unknown option for " + command_name(command) +
                (guess.empty() ? "" : " (did you mean " + guess + "?)"),
            option + "：" + command_name(command) + " 没有这个选项" + (guess.empty() ? "" : "（是不是想写 " + guess + "？）")) +
         run_help(command);
}

std::string option_not_taken_message(const std::string& option, const std::string& lesson,
                                     const std::vector<std::string>& takers) {
  return in_help_language(option + ": " + lesson + " does not take it, it would have no effect there; the lessons that take it: " +
                joined(takers, ", "),
            option + "：" + lesson + " 不接受这个选项，它在这里不起作用；接受它的课程：" + joined(takers, "、")) +
         run_help(lesson);
}

std::string unexpected_word_message(const std::string& word, const std::string& command) {
  return in_help_language(word + ": unexpected word after " + command_name(command) + " (options start with --)",
            word + "：" + command_name(command) + " 后面多了这个词（选项以 -- 开头）") +
         run_help(command);
}

std::string missing_value_message(const std::string& option, const std::string& value_name, const std::string& command) {
  const std::string example = option + " " + (value_name.empty() ? "VALUE" : value_name);
  return in_help_language(option + ": needs a value; write " + example, option + "：缺少取值；应写 " + example) + run_help(command);
}

std::string given_twice_message(const std::string& option, const std::string& command) {
  return in_help_language(option + ": given more than once; give it once", option + "：给了不止一次；只需给一次") + run_help(command);
}

std::string out_of_range_message(const std::string& option, const std::string& value, const std::string& min,
                                 const std::string& max, const std::string& command) {
  return in_help_language(option + " " + value + ": out of range; use a whole number from " + min + " to " + max,
            option + " " + value + "：超出范围；请用 " + min + " 到 " + max + " 之间的整数") +
         run_help(command);
}

std::string not_whole_number_message(const std::string& option, const std::string& value, const std::string& min,
                                     const std::string& max, const std::string& command) {
  return in_help_language(option + " " + value + ": not a whole number; use one from " + min + " to " + max,
            option + " " + value + "：不是整数；请用 " + min + " 到 " + max + " 之间的整数") +
         run_help(command);
}

std::string not_a_choice_message(const std::string& option, const std::string& value,
                                 const std::vector<std::string>& choices, const std::string& command) {
  return in_help_language(option + " " + value + ": not one of " + joined(choices, ", "),
            option + " " + value + "：必须是 " + joined(choices, "、") + " 之一") +
         run_help(command);
}

std::string bad_value_message(const std::string& option, const std::string& value, const std::string& value_name,
                              const std::string& command) {
  const std::string what = value_name.empty() ? "value" : value_name;
  return in_help_language(option + " " + value + ": not a valid " + what, option + " " + value + "：不是有效的 " + what) +
         run_help(command);
}

std::string flag_with_value_message(const std::string& option, const std::string& command) {
  return in_help_language(option + ": a switch takes no value; write " + option + " alone",
            option + "：开关选项不带取值；只写 " + option) +
         run_help(command);
}

std::string required_message(const std::string& name, const std::string& command) {
  return in_help_language(name + ": " + command_name(command) + " needs it; write attn-tutor " + command + " " + name,
            name + "：" + command_name(command) + " 需要它；应写 attn-tutor " + command + " " + name) +
         run_help(command);
}

std::string options_before_lesson_message(const std::string& option, const std::string& wrong, const std::string& right) {
  return in_help_language(option + ": options go after the lesson: write '" + right + "', not '" + wrong + "'",
            option + "：选项要写在课程名之后：应写 '" + right + "'，而不是 '" + wrong + "'");
}

std::string option_without_lesson_message(const std::string& option) {
  return in_help_language(option + ": options go after the lesson, e.g. 'attn-tutor mha " + option +
                " ...'; run 'attn-tutor' to list the lessons",
            option + "：选项要写在课程名之后，例如 'attn-tutor mha " + option + " ...'；运行 'attn-tutor' 列出课程");
}

std::string options_after_lesson_help() {
  return in_help_language("Options go after the lesson: 'attn-tutor mha --seed 7', not 'attn-tutor --seed 7 mha'. "
            "Run 'attn-tutor LESSON --help' for a lesson's options.",
            "选项要写在课程名之后：'attn-tutor mha --seed 7'，而不是 'attn-tutor --seed 7 mha'。"
            "运行 'attn-tutor 课程名 --help' 查看一节课的选项。");
}

std::string from_not_found_message(const std::string& from, const std::string& lesson,
                                   const std::vector<std::string>& headings, int cells) {
  std::vector<std::string> sections;  // as a shell word: 'd2l 11.5'
  for (const std::string& h : headings) sections.push_back(h.find(' ') == std::string::npos ? h : "'" + h + "'");
  const std::string range = "1-" + std::to_string(cells);
  const std::string first = sections.empty() ? "1" : sections.front();
  return in_help_language("--from " + from + ": " + lesson + " has no such section or cell; its sections: " + joined(sections, ", ") +
                "; its cells: " + range + " (In [1] to In [" + std::to_string(cells) + "]); e.g. --from " + first,
            "--from " + from + "：" + lesson + " 没有这一节或这个单元格；可用的节：" + joined(sections, "、") +
                "；单元格：" + range + "（In [1] 到 In [" + std::to_string(cells) + "]）；例如 --from " + first);
}

std::string no_weights_message(const std::string& option, const std::string& lesson) {
  return in_help_language(option + ": no effect in " + lesson + ", which has no query, key or value weights (its scores are dot "
                "products of the embeddings themselves); drop " + option,
            option + "：在 " + lesson + " 中不起作用，这节课没有查询、键、值权重（注意力分数直接是嵌入向量的点积）；请去掉 " +
                option);
}

std::string no_random_message(const std::string& lesson) {
  return in_help_language("--seed: no effect in " + lesson + ", which draws no random numbers unless --tokens gives it a sentence "
                "to embed; drop --seed or add --tokens",
            "--seed：在 " + lesson + " 中不起作用，除非用 --tokens 给出要嵌入的句子，这节课不抽取随机数；请去掉 --seed 或加上 --tokens");
}

std::string no_dropout_mask_message(const std::string& lesson) {
  return in_help_language("--bernoulli: no effect in " + lesson + " at this dropout rate: a rate of 0 or 1 (or none in eval mode) "
                "draws no mask; add --dropout with a rate between 0 and 1, e.g. --dropout 0.5, or drop --bernoulli",
            "--bernoulli：在 " + lesson + " 的这个 dropout 率下不起作用：比率为 0 或 1（或在 eval 模式下）不抽取掩码；"
                "请加上 0 到 1 之间的 --dropout，例如 --dropout 0.5，或去掉 --bernoulli");
}

std::string from_with_json_message() {
  return in_help_language("--from: no effect with --json -, which writes every cell of the lesson; drop --from, or write the JSON "
            "to a file (--json FILE) and the text from --from on",
            "--from：与 --json - 一起不起作用，JSON 总是包含课程的全部单元格；请去掉 --from，或把 JSON 写入文件"
            "（--json FILE），文本从 --from 开始");
}

std::string swa_ratio_without_window_message() {
  return in_help_language("--swa-ratio: no effect without --window, which adds the sliding-window rows the ratio divides among "
            "the layers; add --window W, e.g. --window 1024",
            "--swa-ratio：没有 --window 时不起作用，比例只在 --window 加上的滑动窗口各行中分配层数；请加上 --window W，"
            "例如 --window 1024");
}

}  // namespace attn
