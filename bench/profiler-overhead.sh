#!/usr/bin/env bash
# Cost of diagnose-mode collection on a busy target (issue 4): target throughput with no agent vs
# with `profiler start --event ctimer --interval 10ms` (CPU time sampled every 10 ms, as diagnose
# runs it; PROFILER_EVENT=cpu for perf events) + `collect start` (live JFR streaming) on.
# bench/twin-overhead.sh measures the same on two twins loaded at once, which resolves far smaller costs.
#
#   bench/profiler-overhead.sh [PAIRS=3] [DURATION_S=15] [CONNECTIONS=8]
#   COLLECTORS=profiler|collect bench/profiler-overhead.sh …   # one collector alone, to split the cost
#
#   SETTLE_S=20   unrecorded load after the collectors start, before the measured phase
#
# One target JVM (bench/overhead/Target.java), warmed, then phases alternate none, on, none, on, …
# none: no agent (the first one before any attach, later ones after `stop` detached it).
# on:   attach, start both collectors, SETTLE_S of unrecorded load (its throughput is printed as
#       the transient), the measured load, then stop them (profile and case file are really
#       written: their sample and event counts are printed) and detach.
# Why the settle period: the first JFR start in a JVM retransforms JDK classes (socket and file
#   streams, Throwable) for its Java-level events, and HotSpot then discards ALL compiled code
#   (-Xlog:redefine+class+nmethod=debug prints "Marked all nmethods for deopt"): for seconds the
#   target runs interpreted while C2 recompiles, and the agent's and JFR's parser code is
#   compiled too. That is a one-time transient of turning JFR on (any JFR user pays it), not
#   the collectors' running cost, so it is shown apart, not averaged in.
# Each `on` is compared with the mean of the none phases either side, so slow drift on this
# shared machine cancels; the target's CPU time per request is printed too, as it hardly moves
# when other processes take the shared cores. Goal: ≤ 2 % throughput lost.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pairs="${1:-3}"; dur="${2:-15}"; conns="${3:-8}"; warm=3; settle="${SETTLE_S:-20}"
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
load_phase warm "$url" 10 >/dev/null
cpu_pid="$target"

phase_none() { load_phase "none-$1" "$url"; }
phase_on() { exec_pair_on "$target" "$url" "$1" "$on_cmd"; }
run_pairs "$pairs"

echo "target $url (JDK HttpServer, 4 threads), closed model $conns connections, ${dur}s per phase after ${warm}s warm-up,"
echo "on: ${settle}s unrecorded after the collectors start"
echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1)"
report_pairs "$pairs" "$on_cmd"
