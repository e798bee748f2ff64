#!/bin/sh
# --step in a real terminal (tmux): one cell at a time on single keys without Enter (space, PgDn or
# Enter the next page of a tall cell, then the next cell; n the next cell; PgUp the page before; b the
# cell before, redrawn from its top; c clear the screen before each page; q quit); the prompt counts the
# cell shown (its In number) and its page; the terminal's mode is restored on q and on Ctrl-C. Without a
# terminal --step is ignored and everything is printed.
set -eu
exe="$1"
sock="attn-step-$$"
fail() { echo "FAIL: $1"; tmux -L "$sock" capture-pane -p -S -300 2>/dev/null | tail -25; tmux -L "$sock" kill-server 2>/dev/null || true; exit 1; }
last_prompt() { tmux -L "$sock" capture-pane -p -S -300 | grep -- "-- cell " | tail -n 1; }
visible() { tmux -L "$sock" capture-pane -p; }  # the screen only, without the history
wait_prompt() {  # waits until the last prompt names cell $1 (and, if given, contains $2)
  i=0
  while [ $i -lt 100 ]; do
    case "$(last_prompt)" in *"-- cell $1/"*"${2:-}"*) return 0 ;; esac
    i=$((i + 1)); sleep 0.1
  done
  fail "no prompt for cell $1 ${2:-}"
}
wait_text() {  # waits until the pane's history shows $1
  i=0
  until tmux -L "$sock" capture-pane -p -S -300 | grep -q -- "$1"; do
    i=$((i + 1)); [ $i -lt 100 ] || fail "$2"; sleep 0.1
  done
}

piped=$("$exe" trainable --step --color never </dev/null)
case "$piped" in *"-- cell "*) fail "--step prompted without a terminal" ;; esac
[ "$(printf '%s\n' "$piped" | grep -c '^In \[')" -ge 10 ] || fail "--step without a terminal did not print every cell"

# After q the shell prints the terminal's canonical-mode setting: icanon, not -icanon.
tmux -L "$sock" new-session -d -x 120 -y 60 \
  "'$exe' trainable --step --color never; echo STEP-EXITED; stty -a | tr ' ;' '\n\n' | grep -x -e icanon -e -icanon | sed 's/^/MODE /'; sleep 30"
wait_prompt 1 "(off)"
tmux -L "$sock" capture-pane -p -S -300 | grep -q '^In \[1\]:' || fail "cell 1 not shown"
tmux -L "$sock" capture-pane -p -S -300 | grep -q '^In \[2\]:' && fail "cell 2 shown before a key"
tmux -L "$sock" send-keys n
wait_prompt 2
tmux -L "$sock" capture-pane -p -S -300 | grep -q '^In \[2\]:' || fail "n (no Enter) did not advance to cell 2"
tmux -L "$sock" send-keys Space
wait_prompt 3
tmux -L "$sock" send-keys b
wait_prompt 2
tmux -L "$sock" send-keys Enter
wait_prompt 3
tmux -L "$sock" send-keys x  # no meaning: nothing happens
sleep 0.3
case "$(last_prompt)" in *"-- cell 3/"*) ;; *) fail "an unknown key moved the page" ;; esac
tmux -L "$sock" send-keys c
wait_prompt 3 "(on)"
visible | grep -q '^In \[2\]:' && fail "c did not clear the screen before cell 3"
visible | grep -q '^In \[3\]:' || fail "cell 3 not shown again after c"
tmux -L "$sock" send-keys n
wait_prompt 4 "(on)"
visible | grep -q '^In \[3\]:' && fail "the screen was not cleared before cell 4"
visible | grep -q '^In \[4\]:' || fail "cell 4 not shown"
tmux -L "$sock" send-keys q
wait_text STEP-EXITED "q (no Enter) did not quit"
wait_text "^MODE " "stty did not report the mode"
tmux -L "$sock" capture-pane -p -S -300 | grep -q '^MODE icanon$' || fail "the terminal was left in raw mode after q"
tmux -L "$sock" kill-server 2>/dev/null || true

sock="attn-step-$$-int"  # a new server: the old one may still be exiting
# Ctrl-C at the prompt ends the tutor (the shell ignores SIGINT itself) and restores the mode.
tmux -L "$sock" new-session -d -x 120 -y 60 \
  "trap '' INT; '$exe' trainable --step --color never; echo STEP-EXITED; stty -a | tr ' ;' '\n\n' | grep -x -e icanon -e -icanon | sed 's/^/MODE /'; sleep 30"
wait_prompt 1
tmux -L "$sock" send-keys C-c
wait_text STEP-EXITED "Ctrl-C did not end step mode"
wait_text "^MODE " "stty did not report the mode"
tmux -L "$sock" capture-pane -p -S -300 | grep -q '^MODE icanon$' || fail "the terminal was left in raw mode after Ctrl-C"
tmux -L "$sock" kill-server 2>/dev/null || true
sock="attn-step-$$-from"
# --from with --step: the first page is the cell asked for, and the counter names it (cell 7 of 13).
tmux -L "$sock" new-session -d -x 120 -y 60 "'$exe' mha --step --from 7 --color never; echo STEP-EXITED; sleep 30"
wait_prompt 7 "13"
tmux -L "$sock" capture-pane -p -S -300 | grep -q '^In \[7\]:' || fail "--from 7 --step did not start at In [7]"
tmux -L "$sock" capture-pane -p -S -300 | grep -q '^In \[6\]:' && fail "--from 7 --step showed In [6]"
tmux -L "$sock" send-keys q
wait_text STEP-EXITED "q did not quit after --from"
tmux -L "$sock" kill-server 2>/dev/null || true
sock="attn-step-$$-zh"
# --lang zh: the prompt comes from app/text.txt in Chinese.
tmux -u -L "$sock" new-session -d -x 120 -y 60 "'$exe' softmax --lang zh --step --color never; echo STEP-EXITED; sleep 30"
wait_text "-- 单元格 1/" "no Chinese prompt under --lang zh"
tmux -L "$sock" capture-pane -p -S -300 | grep -- "-- 单元格 1/" | grep -q "下一个" || fail "the Chinese prompt names no key"
tmux -L "$sock" capture-pane -p -S -300 | grep -q -- "-- cell " && fail "an English prompt under --lang zh"
tmux -L "$sock" send-keys q
wait_text STEP-EXITED "q did not quit under --lang zh"
tmux -L "$sock" kill-server 2>/dev/null || true
sock="attn-step-$$-page"
# 80x24: a cell taller than the screen is shown page by page. mha's In [4] (the class and its run) takes
# 4 pages of at most 23 rows above the prompt; every page fits the screen, so its first line is visible.
cell_end=$("$exe" mha --from 4 --color never | sed -n '/^In \[5\]:/q;p' | grep -v '^$' | tail -n 1)  # In [4]'s last line
[ -n "$cell_end" ] || fail "no text for In [4]"
tmux -L "$sock" new-session -d -x 80 -y 24 "'$exe' mha --step --color never; echo STEP-EXITED; sleep 30"
wait_prompt 1 "13"
visible | grep -q '^In \[1\]:' || fail "In [1] not on the screen at 80x24"
tmux -L "$sock" send-keys n n n
wait_prompt 4 "13, page 1/4"
visible | grep -q '^In \[4\]:' || fail "the first page of In [4] does not show its first line"
visible | grep -q 'class MultiHeadAttention' || fail "the first page of In [4] does not show the class line"
visible | grep -qxF -- "$cell_end" && fail "the first page of In [4] shows the cell's end"
[ "$(visible | wc -l)" -le 24 ] || fail "more rows than the screen"
tmux -L "$sock" send-keys Space
wait_prompt 4 "13, page 2/4"
visible | grep -q '^In \[5\]:' && fail "space went past In [4]'s second page"
tmux -L "$sock" send-keys PPage
wait_prompt 4 "13, page 1/4"
[ "$(visible | sed -n 1p)" = "In [4]:" ] || fail "PgUp did not redraw In [4]'s first page from the screen's top"
tmux -L "$sock" send-keys NPage
wait_prompt 4 "13, page 2/4"
tmux -L "$sock" send-keys Space Space
wait_prompt 4 "13, page 4/4"
visible | grep -qxF -- "$cell_end" || fail "the last page of In [4] does not show the cell's end"
tmux -L "$sock" send-keys Space
wait_prompt 5 "13"
visible | grep -q '^In \[5\]:' || fail "space on the last page did not go to In [5]"
tmux -L "$sock" send-keys b
wait_prompt 4 "13, page 1/4"
[ "$(visible | sed -n 1p)" = "In [4]:" ] || fail "b did not redraw In [4] from the screen's top"
visible | grep -q '^In \[5\]:' && fail "b left In [5] on the screen"
tmux -L "$sock" send-keys Enter
wait_prompt 4 "13, page 2/4"
tmux -L "$sock" send-keys n
wait_prompt 5 "13"
tmux -L "$sock" send-keys q
wait_text STEP-EXITED "q did not quit at 80x24"
tmux -L "$sock" kill-server 2>/dev/null || true
echo "step mode ok"
