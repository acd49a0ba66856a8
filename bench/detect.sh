#!/usr/bin/env bash
# bench/detect.sh: how fast attn reads agents, and what watching costs (issue 4).
#
#   1. Classification cost per 200x50 screen for every agent CLI: internal/detect's
#      BenchmarkClassify (a blocked screen of each agent, named by its command and by
#      clues alone), COUNT runs of BENCHTIME each; the median in µs per screen.
#   2. Detection latency, screen change -> push decrypted at web-push-testing, p50
#      and p95 with --settle 0s: event-driven (tmux control mode) vs polling every
#      1 s and every 10 s (bench/detect, ROUNDS samples per mode).
#   3. The daemon's CPU and memory with IDLE_PANES idle panes and one device for
#      IDLE_SECS seconds, event-driven and polling every 1 s.
#
# Usage: bench/detect.sh      (from anywhere in the repo; needs go, tmux, node, npm)
# Knobs (environment): ROUNDS=20 MODES=events,poll1s,poll10s IDLE_MODES=events,poll1s
#                      IDLE_PANES=50 IDLE_SECS=60 BENCHTIME=2000x COUNT=5
#
# Everything listens on and talks to 127.0.0.1 and private tmux sockets only.
# Every wait is bounded. bench/detect stops only what it started (processes by
# pid, its private tmux servers by socket name). The last line is
# machine-readable, starting "DETECT ".
set -euo pipefail

ROUNDS=${ROUNDS:-20}
MODES=${MODES:-events,poll1s,poll10s}
IDLE_MODES=${IDLE_MODES:-events,poll1s}
IDLE_PANES=${IDLE_PANES:-50}
IDLE_SECS=${IDLE_SECS:-60}
BENCHTIME=${BENCHTIME:-2000x}
COUNT=${COUNT:-5}

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
work=$(mktemp -d "${TMPDIR:-/tmp}/attn-detect-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

for tool in go tmux node; do
	command -v "$tool" >/dev/null || { echo "bench/detect.sh: $tool is not installed" >&2; exit 1; }
done
peer=tools/pushpeer/node_modules/web-push-testing/src/bin/server.js
if [ ! -f "$peer" ]; then
	echo "installing web-push-testing (npm ci --prefix tools/pushpeer)" >&2
	npm ci --prefix tools/pushpeer >/dev/null
fi
fixtures=$(cd "$root/.." && pwd)/shared/fixtures/screens
[ -d "$fixtures" ] || { echo "bench/detect.sh: no screen fixtures at $fixtures" >&2; exit 1; }

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -sr), $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(go version | cut -d' ' -f3), $(tmux -V)"

echo "## classification, µs per 200x50 screen (median of $COUNT runs of $BENCHTIME)"
go test -run '^$' -bench 'BenchmarkClassify/200x50/' -benchtime "$BENCHTIME" -count "$COUNT" ./internal/detect >"$work/classify.txt"
awk '/^BenchmarkClassify\/200x50\// {
	name = $1; sub(/^BenchmarkClassify\/200x50\//, "", name); sub(/-[0-9]+$/, "", name)
	for (i = 2; i < NF; i++) if ($(i+1) == "ns/op") v[name] = v[name] " " $i
}
END {
	for (name in v) {
		n = split(substr(v[name], 2), a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		printf "%-22s %8.1f\n", name, a[int((n + 1) / 2)] / 1000
	}
}' "$work/classify.txt" | sort | tee "$work/classify.sum"

echo "## detection latency and idle cost"
go build -o "$work/attn" ./cmd/attn
go run ./bench/detect -attn "$work/attn" -pushpeer "$peer" -fixtures "$fixtures" \
	-rounds "$ROUNDS" -modes "$MODES" -idle-modes "$IDLE_MODES" -idle-panes "$IDLE_PANES" -idle-for "${IDLE_SECS}s" | tee "$work/detect.txt"

# One machine-readable line: classification figures merged into bench/detect's.
classify=$(awk '{ printf "%s\"%s\":%s", (NR > 1 ? "," : ""), $1, $2 }' "$work/classify.sum")
detect=$(sed -n 's/^DETECT //p' "$work/detect.txt")
echo "DETECT {\"classify_us\":{$classify},${detect#\{}"
