#!/usr/bin/env bash
# Stands in for an agent CLI in a tmux pane (run it through a link to bash
# named like the agent, so tmux reports that name as the pane's
# foreground command): draws a saved screen, and on
# each Enter typed into the pane moves on: the screen, a working frame,
# the screen again (or SECOND_SCREEN_FILE), then waits.
# Usage: agent.sh TITLE SCREEN_FILE [SECOND_SCREEN_FILE]
set -u
title=$1 screen=$2 second=${3:-$2}
set_title() { printf '\033]2;%s\033\\' "$1"; }
draw() { printf '\033[H\033[2J'; cat "$1"; }
set_title "$title"; draw "$screen"
read -rs _
set_title '⠂ Working'
printf '\033[H\033[2J⏺ Running the next step.\n\n✻ Deliberating… (3s · ↓ 1.2k tokens · esc to interrupt)\n'
read -rs _
set_title "$title"; draw "$second"
read -rs -t 3600 _
