#!/usr/bin/env bash
# Cost of diagnose-mode collection on a busy target (issue 4): target throughput with no agent vs
# with `profiler start --event cpu --interval 10ms` + `collect start` (live JFR streaming) on.
#
#   bench/profiler-overhead.sh [PAIRS=3] [DURATION_S=15] [CONNECTIONS=8]
#   COLLECTORS=profiler|collect bench/profiler-overhead.sh …   # one collector alone, to split the cost
#
# One target JVM (bench/overhead/Target.java), warmed, then phases alternate none, on, none, on, …
# none: no agent (the first one before any attach, later ones after `stop` detached it).
# on:   attach, start both collectors, run the load, then stop them (profile and case file are
#       really written: their sample and event counts are printed) and detach.
# Each `on` is compared with the mean of the none phases either side, so slow drift on this
# shared machine cancels. Goal: ≤ 2 % throughput lost.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pairs="${1:-3}"; dur="${2:-15}"; conns="${3:-8}"; warm=3
port="${BENCH_PORT:-18941}"
work="$(mktemp -d)"
target=""
trap 'for p in $target; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT
. "$root/bench/overhead/lib.sh"
url="http://127.0.0.1:$port/?id=42"
pick_collectors

echo "building culprit..." >&2
build_culprit
compile_target
target=$(start_target "$work/target.log")
load_phase warm "$url" 5 >/dev/null

phase_none() { load_phase "none-$1" "$url"; }
phase_on() { exec_pair_on "$target" "$url" "$1" "$on_cmd"; }
run_pairs "$pairs"

echo "target $url (JDK HttpServer, 4 threads), closed model $conns connections, ${dur}s per phase after ${warm}s warm-up"
echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1)"
report_pairs "$pairs" "$on_cmd"
