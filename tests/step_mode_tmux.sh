#!/bin/sh
# --step in a real terminal (tmux): one cell at a time on single keys without Enter (n or space next,
# b back, c clear the screen before each cell, q quit; Enter goes on too); the terminal's mode is
# restored on q and on Ctrl-C. Without a terminal --step is ignored and everything is printed.
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
# --from with --step: the first page is the cell asked for.
tmux -L "$sock" new-session -d -x 120 -y 60 "'$exe' mha --step --from 7 --color never; echo STEP-EXITED; sleep 30"
wait_prompt 1
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
echo "step mode ok"
