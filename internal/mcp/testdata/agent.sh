#!/usr/bin/env bash
# A stand-in for Claude Code at rest, for the MCP tools' tests: it draws a
# transcript line and a composer between two rules (a faint placeholder
# when empty), takes typed keys and bracketed pastes into the composer,
# and on Enter shows what was submitted. Run it through a link to bash
# named "claude" so that tmux reports claude as the pane's command.
# Usage: agent.sh TITLE [MODE]
#   MODE idle (default); work:SECONDS (working, then at rest);
#   ask:FILE (draws FILE, a question, until a key is pressed).
set -u
title=$1 mode=${2:-idle}
printf '\033]2;%s\033\\' "$title"
printf '\033[?2004h'
buf="" last="nothing yet" paste=0
rule='────────────────────────────────────────────────────────────'
draw() {
	printf '\033[H\033[2J'
	printf '⏺ Last message: %s\n\n' "$last"
	if [ "$mode" != idle ]; then printf '✻ Working… (esc to interrupt)\n\n'; fi
	printf '%s\n' "$rule"
	if [ -z "$buf" ]; then printf '❯ \033[2mTry "fix the failing test"\033[0m\n'; else printf '❯ %s\n' "$buf"; fi
	printf '%s\n' "$rule"
	printf '  ? for shortcuts\n'
}
case "$mode" in
work:*)
	draw
	sleep "${mode#work:}"
	mode=idle ;;
ask:*)
	printf '\033[H\033[2J'
	cat "${mode#ask:}"
	IFS= read -rsn1 _
	mode=idle ;;
esac
draw
while IFS= read -rsn1 k; do
	if [ "$k" = $'\e' ]; then
		IFS= read -rsn5 -t 0.5 seq
		case "$seq" in
		'[200~') paste=1 ;;
		'[201~') paste=0 ;;
		esac
		draw
		continue
	fi
	if [ -z "$k" ]; then
		if [ "$paste" = 1 ]; then
			buf="$buf / "
			continue
		fi
		last=${buf:-"(empty)"}
		buf=""
	else
		buf="$buf$k"
	fi
	[ "$paste" = 1 ] || draw
done
