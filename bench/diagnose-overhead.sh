#!/usr/bin/env bash
# Diagnose mode on the lab (issue 8).
#  1. Cost: the lab's healthy scenario at saturation (closed model), no agent vs diagnose-mode
#     collection (`collect start` + `profiler start --event cpu --interval 10ms`), alternating
#     none, on, none, on, …; each `on` against the mean of its neighbours. Goal: ≤ 2 % lost.
#  2. Time to verdict: wall time of `culprit diagnose PID --url … --connections 8 --duration 20s`
#     (5 s warm-up included, attach to verdict) on a fresh lab per scenario, and its headline.
#
#   bench/diagnose-overhead.sh [PAIRS=2] [DURATION_S=15] [CONNECTIONS=16] [SCENARIOS="healthy converter-rebuild gc-pool-starvation"]
#   LAB_WARMUP_S=90 (unrecorded load before part 1)
#   COLLECTORS=profiler|collect …   one collector alone in part 1, to split the cost; SCENARIOS=- skips part 2
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pairs="${1:-2}"; dur="${2:-15}"; conns="${3:-16}"; warm=3
scenarios="${4:-healthy converter-rebuild gc-pool-starvation}"
port="${BENCH_PORT:-18951}"
work="$(mktemp -d)"
lab_cli=""; lab_pid=""
trap 'for p in $lab_pid $lab_cli; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT
. "$root/bench/overhead/lib.sh"

echo "building culprit..." >&2
build_culprit

# --- 1. cost of diagnose-mode collection at saturation
pick_collectors
start_lab healthy
url="http://127.0.0.1:$port/api/orders/7"
# Spring Boot on 2 busy cores keeps speeding up for minutes (JIT): without a long warm-up the
# lab's own warm-up is what the phases measure (no-agent control: 187 → 1,258 → 2,772 → 5,234
# req/s over four 10 s phases after a 10 s warm-up).
load_phase warm "$url" "${LAB_WARMUP_S:-90}" >/dev/null
phase_none() { load_phase "none-$1" "$url"; }
phase_on() { exec_pair_on "$lab_pid" "$url" "$1" "$on_cmd"; }
run_pairs "$pairs"
stop_lab

echo "lab healthy $url, closed model $conns connections, ${dur}s per phase after ${warm}s warm-up"
echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1)"
report_pairs "$pairs" "$on_cmd"
[ "$scenarios" = - ] && exit 0

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
