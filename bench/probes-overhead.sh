#!/usr/bin/env bash
# Cost of the framework probes (issue 7): the lab's healthy service at saturation (closed model),
# no agent vs agent + all probes, a fresh lab JVM per phase, alternating none, on, none, on, …;
# each `on` against the mean of its neighbours. Goal: ≤ 2 % throughput lost.
#
#   bench/probes-overhead.sh [PAIRS=2] [DURATION_S=20] [CONNECTIONS=16]
#   LAB_WARMUP_S=120   unrecorded load before the measured phase (JIT)
#
# Every phase: start the lab (it has served its readiness request, so the framework classes are
# loaded), `on` weaves the probes at once (`collect weave`), both load it for LAB_WARMUP_S, then
# `on` starts counting (`collect start --no-jfr`: the probes alone; JFR's cost is
# diagnose-overhead.sh's subject), the measured DURATION_S, and `collect stop` writes the
# evidence: the requests the probes counted are shown beside the responses the load generator
# got, so probes that saw nothing would show. Besides throughput, the lab's CPU time per request
# is printed: it hardly moves when other processes take the shared cores.
#
# Why weave before the warm-up: the first class retransformation in a JVM's life makes HotSpot
# deoptimize ALL compiled code (it has not recorded the dependencies that would let it pick the
# affected methods; -Xlog:redefine+class+nmethod=debug prints "Marked all nmethods for deopt"),
# so weaving a warm service costs one full re-JIT: minutes of C2 on 2 busy cores, during which
# the service runs at a fraction of its speed. That is a one-time transient of any agent that
# retransforms, not the probes' cost; weaving first gives both phases the same JIT warm-up.
#
# Why SERVER_TOMCAT_THREADS_MAX=8 (override with LAB_THREADS): the lab's Orders.find holds a
# pooled connection while its row mapper asks for a second one, so with more request threads
# than the 10 connections every connection can be held by a thread waiting for another: a 30 s
# Hikari timeout per request, and throughput falls to a few requests/s, with or without an
# agent (seen in a cold lab under load). With at most 8 request threads it cannot deadlock.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pairs="${1:-2}"; dur="${2:-20}"; conns="${3:-16}"; warm=0
port="${BENCH_PORT:-18971}"
work="$(mktemp -d)"
lab_cli=""; lab_pid=""
trap 'for p in $lab_pid $lab_cli; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT
. "$root/bench/overhead/lib.sh"
export SERVER_TOMCAT_THREADS_MAX="${LAB_THREADS:-8}"
url="http://127.0.0.1:$port/api/orders/7"

echo "building culprit..." >&2
build_culprit

phase_none() { lab_phase_none "$1"; }

phase_on() {
  start_lab healthy
  cpu_pid="$lab_pid"
  culprit exec "$lab_pid" "collect weave" >"$work/weave-$1.txt" 2>&1 \
    || { echo "probes failed to weave:" >&2; cat "$work/weave-$1.txt" >&2; exit 1; }
  load_phase "warm-on-$1" "$url" "${LAB_WARMUP_S:-120}" >/dev/null
  culprit exec "$lab_pid" "collect start --no-jfr" >"$work/start-$1.txt" 2>&1 \
    || { echo "collect failed to start:" >&2; cat "$work/start-$1.txt" >&2; exit 1; }
  load_phase "on-$1" "$url"
  culprit exec "$lab_pid" "collect stop --case $work/case-$1" >"$work/stop-$1.txt" 2>&1 \
    || { echo "collect failed to stop:" >&2; cat "$work/stop-$1.txt" >&2; exit 1; }
  local sent woven routes
  sent=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["responses"])' "$work/load-on-$1.json")
  woven=$(grep -o 'probes on [0-9]* method(s)' "$work/start-$1.txt" | head -1)
  routes=$(routes_counted "$work/case-$1")
  echo "$woven; routes counted $routes of $sent responses" >"$work/note-$1"
  stop_lab
}

run_pairs "$pairs"

echo "lab healthy $url (Tomcat threads $SERVER_TOMCAT_THREADS_MAX), closed model $conns connections,"
echo "fresh lab per phase: weave (on) or not (none), ${LAB_WARMUP_S:-120}s warm-up, ${dur}s measured"
echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1)"
report_pairs "$pairs" "all framework probes (collect start --no-jfr)"
