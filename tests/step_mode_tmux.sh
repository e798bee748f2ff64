#!/bin/sh
# --step in a real terminal (tmux): one cell at a time, Enter advances, b goes back, q quits.
# Without a terminal --step is ignored and everything is printed.
set -eu
exe="$1"
sock="attn-step-$$"
fail() { echo "FAIL: $1"; tmux -L "$sock" capture-pane -p -S -300 2>/dev/null | tail -25; tmux -L "$sock" kill-server 2>/dev/null || true; exit 1; }
last_prompt() { tmux -L "$sock" capture-pane -p -S -300 | grep -- "-- cell " | tail -n 1; }
wait_prompt() {  # waits until the last prompt names cell $1
  i=0
  while [ $i -lt 100 ]; do
    case "$(last_prompt)" in *"-- cell $1/"*) return 0 ;; esac
    i=$((i + 1)); sleep 0.1
  done
  fail "no prompt for cell $1"
}
quit_step() {  # q, then waits for the program to end; $1 is the failure message
  tmux -L "$sock" send-keys q Enter
  i=0
  until tmux -L "$sock" capture-pane -p -S -300 | grep -q STEP-EXITED; do
    i=$((i + 1)); [ $i -lt 100 ] || fail "$1"; sleep 0.1
  done
  tmux -L "$sock" kill-server 2>/dev/null || true
}

piped=$("$exe" trainable --step --color never </dev/null)
case "$piped" in *"[Enter]"*) fail "--step prompted without a terminal" ;; esac
[ "$(printf '%s\n' "$piped" | grep -c '^In \[')" -ge 10 ] || fail "--step without a terminal did not print every cell"

tmux -L "$sock" new-session -d -x 120 -y 60 "'$exe' trainable --step --color never; echo STEP-EXITED; sleep 30"
wait_prompt 1
tmux -L "$sock" capture-pane -p -S -300 | grep -q '^In \[1\]:' || fail "cell 1 not shown"
tmux -L "$sock" capture-pane -p -S -300 | grep -q '^In \[2\]:' && fail "cell 2 shown before Enter"
tmux -L "$sock" send-keys Enter
wait_prompt 2
tmux -L "$sock" capture-pane -p -S -300 | grep -q '^In \[2\]:' || fail "Enter did not advance to cell 2"
tmux -L "$sock" send-keys Enter
wait_prompt 3
tmux -L "$sock" send-keys b Enter
wait_prompt 2
quit_step "q did not quit"

# --lang zh: the prompt is Chinese too.
tmux -u -L "$sock" new-session -d -x 120 -y 60 "'$exe' softmax --lang zh --step --color never; echo STEP-EXITED; sleep 30"
i=0
until tmux -L "$sock" capture-pane -p -S -300 | grep -q -- "-- 单元 1/"; do
  i=$((i + 1)); [ $i -lt 100 ] || fail "no Chinese prompt under --lang zh"; sleep 0.1
done
tmux -L "$sock" capture-pane -p -S -300 | grep -- "-- 单元 1/" | grep -q "下一个" || fail "the Chinese prompt names no key"
tmux -L "$sock" capture-pane -p -S -300 | grep -q -- "-- cell " && fail "an English prompt under --lang zh"
quit_step "q did not quit under --lang zh"
echo "step mode ok"
