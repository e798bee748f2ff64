#include "notebook/html_document.h"

#include "notebook/html_escape.h"
#include "notebook/picture_text.h"

namespace attn {
namespace {

const char* kCommonStyle = R"css(
body { font-family: "DejaVu Sans", "Noto Sans CJK SC", sans-serif; max-width: 1150px; margin: 1.5em auto;
       padding: 0 1em; color: #1d1d1f; background: #fff; line-height: 1.45; }
h1 { font-size: 1.4em; margin-bottom: .4em; overflow-wrap: anywhere; }
h2 { font-size: 1.2em; border-bottom: 2px solid #7b3fa0; padding-bottom: .2em; margin-top: 1.6em; overflow-wrap: anywhere; }
h3 { font-size: 1em; margin: .8em 0 .3em; }
p { overflow-wrap: anywhere; }
pre { font-family: "DejaVu Sans Mono", "Noto Sans Mono CJK SC", monospace; font-size: 13px; padding: .6em .8em;
      overflow-x: auto; border-radius: 4px; margin: .4em 0; }
pre.code { background: #eef6fb; border-left: 4px solid #2b7bb9; }
pre.out { background: #f7f7f7; border-left: 4px solid #bbb; }
code { font-family: "DejaVu Sans Mono", monospace; }
.verdict { padding: .5em 1em; margin: 1em 0; border-radius: 4px; }
.verdict.match { background: #e9f6ec; border-left: 4px solid #22863a; }
.verdict.differ { background: #fdf0e6; border-left: 4px solid #c24e00; }
.mark-ok { color: #22863a; font-weight: bold; }
.mark-bad { color: #b31d28; font-weight: bold; }
.mark-unknown { color: #777; font-weight: bold; }
)css";

}  // namespace

std::string html_document(Lang lang, const std::string& title, const std::string& css, const std::string& body) {
  return html_shell(lang, title, kCommonStyle + css, body);
}

std::string html_shell(Lang lang, const std::string& title, const std::string& css, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"" + picture_say("html.lang", lang) + "\">\n<head>\n<meta charset=\"utf-8\">\n" +
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" + html_escape(title) +
         "</title>\n<style>" + css + "</style>\n</head>\n<body>\n" + body + "</body>\n</html>\n";
}

}  // namespace attn
