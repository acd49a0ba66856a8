#!/usr/bin/env bash
# Stands in for an agent CLI in a tmux pane: draws a saved screen, and on
# each Enter typed into the pane moves on: the screen, a working frame,
# the screen again, then waits. Usage: agent.sh TITLE SCREEN_FILE
set -u
title=$1 screen=$2
set_title() { printf '\033]2;%s\033\\' "$1"; }
draw() { printf '\033[H\033[2J'; cat "$1"; }
set_title "$title"; draw "$screen"
read -rs _
set_title '⠂ Working'
printf '\033[H\033[2J⏺ Running the next step.\n\n✻ Deliberating… (3s · ↓ 1.2k tokens · esc to interrupt)\n'
read -rs _
set_title "$title"; draw "$screen"
exec sleep 3600
