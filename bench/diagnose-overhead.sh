#!/usr/bin/env bash
# Diagnose mode on the lab (issue 8).
#  1. Cost: the lab's healthy scenario at saturation (closed model), no agent vs the collection a
#     live `culprit diagnose` runs, alternating none, on, none, on, …; each `on` against the mean
#     of its neighbours. Goal: ≤ 2 % lost. CPU per request of the lab JVM is printed beside
#     throughput: it hardly moves when other processes take the shared cores.
#  2. Time to verdict: wall time of `culprit diagnose PID --url … --connections 8 --duration 20s`
#     (5 s warm-up included, attach to verdict) on a fresh lab per scenario, and its headline.
#
#   bench/diagnose-overhead.sh [PAIRS=2] [DURATION_S=20] [CONNECTIONS=16] [SCENARIOS="healthy converter-rebuild gc-pool-starvation"]
#   LAB_WARMUP_S=120 (unrecorded load before each measured phase)
#   COLLECTORS="probes jfr profiler" (default: all three, as diagnose runs them) to split the cost; SCENARIOS=- skips part 2
#
# Part 1 follows LiveDiagnosis step by step, on a fresh lab JVM per phase:
#   on:   attach, `collect weave` (the probes), warm-up, `profiler start --event ctimer --interval 10ms`,
#         `jfr start` (culprit.jfc, recorded to a file, parsed later by the CLI), `collect start --no-jfr`,
#         the measured load, then `jfr stop --file`, `collect stop --case`, `profiler stop`, detach.
#   none: the same warm-up and measured load with no agent.
# Why weave before the warm-up, as diagnose does: the first class retransformation in a JVM makes
# HotSpot deoptimize all compiled code; woven after the warm-up, the measured phase would time the
# re-JIT (a one-time transient of any retransforming agent), not the collection.
# Why SERVER_TOMCAT_THREADS_MAX=8 (LAB_THREADS): see bench/probes-overhead.sh (more request threads
# than pooled connections could deadlock the lab's nested acquire on an old build).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pairs="${1:-2}"; dur="${2:-20}"; conns="${3:-16}"; warm=0
scenarios="${4:-healthy converter-rebuild gc-pool-starvation}"
port="${BENCH_PORT:-18951}"
work="$(mktemp -d)"
lab_cli=""; lab_pid=""
trap 'for p in $lab_pid $lab_cli; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT
. "$root/bench/overhead/lib.sh"
collectors="${COLLECTORS:-probes jfr profiler}"
for c in $collectors; do
  case "$c" in probes|jfr|profiler) ;; *) echo "COLLECTORS: probes, jfr or profiler, got '$c'" >&2; exit 2 ;; esac
done
has() { [[ " $collectors " == *" $1 "* ]]; }

echo "building culprit..." >&2
build_culprit

# --- 1. cost of diagnose-mode collection at saturation
export SERVER_TOMCAT_THREADS_MAX="${LAB_THREADS:-8}"
url="http://127.0.0.1:$port/api/orders/7"
agent() { # agent PHASE STEP COMMANDS: one `culprit exec`, its output kept; fails the bench on error
  culprit exec "$lab_pid" "$3" >"$work/$2-$1.txt" 2>&1 || { echo "$2 failed:" >&2; cat "$work/$2-$1.txt" >&2; exit 1; }
}

phase_none() { lab_phase_none "$1"; }

phase_on() {
  start_lab healthy
  cpu_pid="$lab_pid"
  local start=() stop=()
  has probes && agent "$1" weave "collect weave"
  load_phase "warm-on-$1" "$url" "${LAB_WARMUP_S:-120}" >/dev/null
  has profiler && start+=("profiler start --event ctimer --interval 10ms")
  has jfr && start+=("jfr start")
  has probes && start+=("collect start --no-jfr")
  agent "$1" start "$(IFS=';'; echo "${start[*]}")"
  load_phase "on-$1" "$url"
  has jfr && stop+=("jfr stop --file $work/rec-$1.jfr")
  has probes && stop+=("collect stop --case $work/case-$1")
  has profiler && stop+=("profiler stop --format collapsed --file $work/profile-$1.txt")
  agent "$1" stop "$(IFS=';'; echo "${stop[*]}")"
  agent "$1" detach stop
  local note=() sent
  sent=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["responses"])' "$work/load-on-$1.json")
  has probes && note+=("routes counted $(routes_counted "$work/case-$1") of $sent")
  has jfr && note+=("jfr $(du -k "$work/rec-$1.jfr" | cut -f1) KB")
  has profiler && note+=("$(grep -o 'engine [a-z_]*, [0-9]* samples' "$work/stop-$1.txt" || echo 'profile ?')")
  (IFS=';'; echo "${note[*]}") >"$work/note-$1"
  stop_lab
}

run_pairs "$pairs"
cpu_pid=""

echo "lab healthy $url (Tomcat threads $SERVER_TOMCAT_THREADS_MAX), closed model $conns connections,"
echo "fresh lab per phase, ${LAB_WARMUP_S:-120}s warm-up, ${dur}s measured; on = $collectors as diagnose runs them"
echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1)"
report_pairs "$pairs" "diagnose-mode collection ($collectors)"
[ "$scenarios" = - ] && exit 0
unset SERVER_TOMCAT_THREADS_MAX  # part 2 runs the lab as demo does

# --- 2. time from start to verdict
printf '\n%-20s %8s %5s  %s\n' scenario "verdict" exit "observed load; the #1 finding"
declare -A path=([healthy]=/api/orders/7 [idle-resource-scan]=/api/orders/7 [gc-pool-starvation]=/api/orders/7/statement
  [converter-rebuild]=/api/orders/7/availability [prototype-bean]=/api/customers/3/feed [timer-lock]=/api/products/4
  [log-storm]=/api/orders/7/invoice)
for s in $scenarios; do
  [ -n "${path[$s]:-}" ] || { echo "no GET endpoint known for scenario $s" >&2; exit 2; }
  echo "diagnosing $s..." >&2
  start_lab "$s"
  t0=$(date +%s.%N)
  rc=0
  culprit diagnose "$lab_pid" --url "http://127.0.0.1:$port${path[$s]}" --connections 8 --duration 20s \
    --out "$work/case-$s" >"$work/verdict-$s.txt" 2>"$work/diagnose-$s.err" || rc=$?
  t1=$(date +%s.%N)
  stop_lab
  head="$(grep -m1 -o '[0-9.,]* s observed, [0-9.,]* requests' "$work/verdict-$s.txt" || true); $(grep -m1 '^#1 ' "$work/verdict-$s.txt" || true)"
  [ "$rc" = 0 ] || head="FAILED: $(tail -1 "$work/diagnose-$s.err")"
  printf '%-20s %7.1fs %5s  %s\n' "$s" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" "$rc" "${head:0:130}"
done
