#!/usr/bin/env bash
# A stand-in for Claude Code's permission menu, for answer tests: draws
# SCREEN_FILE with a cursor on its numbered rows, moves it on Up/Down,
# and on Enter (or Esc) prints the choice and clears the prompt, as the
# real one does. Then, if NEXT_SCREEN_FILE is given, asks that next.
# "q" exits to a shell (the agent has exited). IGNORE drops that many
# keystrokes first (a program that misses input).
# Run it through a link to bash named like the agent (see agentCommand).
# Usage: menu.sh TITLE SCREEN_FILE IGNORE [NEXT_SCREEN_FILE]
set -u
title=$1 screen=$2 ignore=${3:-0} next=${4:-}
printf '\033]2;%s\033\\' "$title"

ask() {
	mapfile -t lines < "$1"
	rows=()
	for i in "${!lines[@]}"; do
		case "${lines[$i]}" in *[1-9]". "*) rows+=("$i") ;; esac
	done
	sel=0
	while :; do
		printf '\033[H\033[2J'
		for i in "${!lines[@]}"; do
			line=${lines[$i]}
			for r in "${!rows[@]}"; do
				if [ "${rows[$r]}" = "$i" ]; then
					body=${line#"${line%%[0-9]*}"}
					if [ "$r" = "$sel" ]; then line=" ❯ $body"; else line="   $body"; fi
				fi
			done
			printf '%s\n' "$line"
		done
		IFS= read -rsn1 k
		if [ "$ignore" -gt 0 ]; then
			ignore=$((ignore - 1))
			[ "$k" = $'\e' ] && read -rsn2 -t 0.1 _
			continue
		fi
		case "$k" in
		$'\e')
			rest=
			IFS= read -rsn2 -t 0.1 rest
			case "$rest" in
			'[A') [ "$sel" -gt 0 ] && sel=$((sel - 1)) ;;
			'[B') [ "$sel" -lt $((${#rows[@]} - 1)) ] && sel=$((sel + 1)) ;;
			'') chosen=esc; break ;;
			esac ;;
		'') chosen=$((sel + 1)); break ;;
		q) printf '\033[H\033[2J'; exec bash --norc --noprofile -i ;;
		esac
	done
	printf '\033[H\033[2J⏺ You chose: %s\n\n' "$chosen"
}

ask "$screen"
if [ -n "$next" ]; then
	sleep 0.3
	ask "$next"
fi
read -rs -t 3600 _
