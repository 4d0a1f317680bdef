#!/usr/bin/env bash
# Collectors' cost measured on twins (issues 4, 7, 8): two identical targets
# (bench/overhead/Target.java, or with TARGET=lab two healthy lab services) run side by side and
# are loaded in the same seconds by two generators; one twin has the collectors on, the other none,
# then they swap roles. Whatever else the machine does (other processes, steal, the other twin)
# hits both twins at once, so the ratio of their CPU time per request isolates the collectors' cost; phases taken one after another moved by up to ±10 %
# between two none phases on this 2-core VM (see profiler-overhead.sh's noise floor).
#
#   bench/twin-overhead.sh [ROUNDS=3] [DURATION_S=15] [CONNECTIONS=4 per twin]
#   COLLECTORS=both|profiler|collect|record|probes|diagnose   (default both: profiler 10 ms + live
#                 JFR stream; lib.sh's pick_collectors says what each runs)
#   TARGET=lab    two `culprit lab --scenario healthy` services (Spring Boot, Tomcat with 8 threads,
#                 the embedded database) on GET /api/orders/7 instead of the bench target. Before
#                 the floor, each twin runs the collectors once (on, load, off, detach): the first
#                 weave and the first JFR start in a JVM deoptimize all compiled code, a one-time
#                 transient that both twins then have behind them. LAB_WARMUP_S=60: the priming
#                 load and the warm-up after it, each.
#   SETTLE_S=30   load after the collectors start, not measured (the first JFR start in a JVM
#                 makes HotSpot recompile everything: profiler-overhead.sh explains)
#   RATE=R        open model instead: each twin gets R requests/s (at most CONNECTIONS in flight),
#                 so both serve the same rate and CPU per request is compared at equal load. At
#                 saturation a slower twin also batches fewer requests per wake-up, which inflates
#                 its CPU per request beyond the collectors' own cost and widens the spread.
#
# Round r: A on / B none, then A none / B on. First, one none/none measurement shows how far apart
# the twins are with no agent at all (the floor this method resolves). Reported: CPU per request
# on ÷ none (the collectors' own threads included: JFR, the stream, the profiler) and throughput
# on ÷ none. The twins share the cores, so a cost shows in CPU per request fully and in throughput
# only in part (the scheduler shares CPU time among all runnable threads, the agent's included).
# Under each row, the same difference split by thread group (lib.sh's thread_ticks): whether the
# cost is in the request threads, the JIT, GC, JFR's threads or the agent's.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds="${1:-3}"; dur="${2:-15}"; conns="${3:-4}"; warm=0; settle="${SETTLE_S:-30}"
port="${BENCH_PORT:-18981}"
work="$(mktemp -d)"
pids=""
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT
. "$root/bench/overhead/lib.sh"
pick_collectors

echo "building culprit..." >&2
build_culprit
if [ "${TARGET:-bench}" = lab ]; then
  # More request threads than the lab's 10 pooled connections can deadlock its nested acquire (probes-overhead.sh).
  export SERVER_TOMCAT_THREADS_MAX="${LAB_THREADS:-8}"
  port="$port" start_lab healthy "$work/lab-a.log"; pa=$lab_pid; pids="$lab_cli $pa"
  port="$((port + 1))" start_lab healthy "$work/lab-b.log"; pb=$lab_pid; pids="$pids $lab_cli $pb"
  path=/api/orders/7; what="two healthy lab services (Spring Boot, Tomcat $SERVER_TOMCAT_THREADS_MAX threads each)"
else
  compile_target
  pa=$(port="$port" start_target "$work/a.log"); pids="$pa"
  pb=$(port="$((port + 1))" start_target "$work/b.log"); pids="$pa $pb"
  path="/?id=42"; what="two targets (JDK HttpServer, 4 threads each)"
fi
url_a="http://127.0.0.1:$port$path"; url_b="http://127.0.0.1:$((port + 1))$path"

# twin_phase NAME SECONDS: both twins loaded at once; writes NAME-a / NAME-b: "rps cpu_us_per_req"
twin_phase() {
  local ca cb model=(--connections "$conns")
  [ -n "${RATE:-}" ] && model=(--rate "${RATE}/s" --connections "$conns")
  ca=$(cpu_ticks "$pa"); cb=$(cpu_ticks "$pb")
  thread_ticks "$pa" >"$work/$1-a.t0"; thread_ticks "$pb" >"$work/$1-b.t0"
  culprit load "$url_a" "${model[@]}" --duration "${2}s" --warmup 0s --out "$work/$1-a.json" >"$work/$1-a.txt" 2>&1 &
  local la=$!
  culprit load "$url_b" "${model[@]}" --duration "${2}s" --warmup 0s --out "$work/$1-b.json" >"$work/$1-b.txt" 2>&1 &
  local lb=$!
  wait "$la" || { echo "load on A failed in $1:" >&2; tail -3 "$work/$1-a.txt" >&2; exit 1; }
  wait "$lb" || { echo "load on B failed in $1:" >&2; tail -3 "$work/$1-b.txt" >&2; exit 1; }
  local side
  for side in a b; do
    local c0 pid; [ "$side" = a ] && { c0=$ca; pid=$pa; } || { c0=$cb; pid=$pb; }
    # NAME-SIDE: "rps cpu_us_per_req"; NAME-SIDE.groups: the same CPU per request by thread group
    thread_ticks "$pid" | python3 -c 'import json,sys,os
s=json.load(open(sys.argv[1]))["summary"]; n=max(1, s["responses"]); us=1e6 / os.sysconf("SC_CLK_TCK") / n
print("%.1f %.2f" % (s["achieved_rps"], (int(sys.argv[3]) - int(sys.argv[2])) * us), file=open(sys.argv[5], "w"))
a=open(sys.argv[4]).read().split(); b=sys.stdin.read().split()
print(" ".join("%s %.2f" % (a[i], (int(b[i+1]) - int(a[i+1])) * us) for i in range(0, len(a), 2)), file=open(sys.argv[5] + ".groups", "w"))' \
      "$work/$1-$side.json" "$c0" "$(cpu_ticks "$pid")" "$work/$1-$side.t0" "$work/$1-$side"
  done
}

# collectors_on PID KEY / collectors_off PID KEY: start the collectors in PID; stop them (writing
# what they collected under KEY) and detach
collectors_on() {
  culprit exec "$1" "$on_cmd" >"$work/start-$2.txt" 2>&1 || { echo "collectors failed to start:" >&2; cat "$work/start-$2.txt" >&2; exit 1; }
}
collectors_off() {
  culprit exec "$1" "$(off_cmd "$2")" >"$work/stop-$2.txt" 2>&1 || { echo "collectors failed to stop:" >&2; cat "$work/stop-$2.txt" >&2; exit 1; }
  culprit exec "$1" stop >/dev/null
}

if [ "${TARGET:-bench}" = lab ]; then
  echo "priming: collectors on and off once in each twin, under load..." >&2
  collectors_on "$pa" prime-a; collectors_on "$pb" prime-b
  twin_phase prime "${LAB_WARMUP_S:-60}"
  collectors_off "$pa" prime-a; collectors_off "$pb" prime-b
  twin_phase warm "${LAB_WARMUP_S:-60}"
else
  twin_phase warm 20
fi
twin_phase floor "$dur"
rows=()
for r in $(seq "$rounds"); do
  for on in a b; do
    pid=$pa; [ "$on" = b ] && pid=$pb
    echo "round $r/$rounds: collectors on $on..." >&2
    collectors_on "$pid" "$r$on"
    twin_phase "settle-$r$on" "$settle"
    twin_phase "m-$r$on" "$dur"
    collectors_off "$pid" "$r$on"
    rows+=("$r$on")
  done
done

if [ -n "${RATE:-}" ]; then
  echo "twins: $what, loaded at once by two open-model generators of ${RATE} req/s each (at most $conns in flight),"
else
  echo "twins: $what, loaded at once by two closed-model generators of $conns connections,"
fi
echo "${dur}s measured after ${settle}s of unmeasured load with the collectors on; on = $on_cmd"
echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1)"
printf '\n%-8s %-4s %12s %12s %9s %22s %9s  %s\n' phase on "rps on" "rps none" kept "CPU µs/req on / none" ratio collected
read -r fa_rps fa_cpu <"$work/floor-a"; read -r fb_rps fb_cpu <"$work/floor-b"
printf '%-8s %-4s %12.0f %12.0f %8.3f× %10.2f / %9.2f %8.3f×  %s\n' floor "-" "$fa_rps" "$fb_rps" \
  "$(awk -v a="$fa_rps" -v b="$fb_rps" 'BEGIN{print a/b}')" "$fa_cpu" "$fb_cpu" "$(awk -v a="$fa_cpu" -v b="$fb_cpu" 'BEGIN{print a/b}')" "A vs B, no agent on either"
kept=(); cpu=()
for k in "${rows[@]}"; do
  on=${k: -1}; off=a; [ "$on" = a ] && off=b
  read -r on_rps on_cpu <"$work/m-$k-$on"; read -r off_rps off_cpu <"$work/m-$k-$off"
  kept+=("$(awk -v a="$on_rps" -v b="$off_rps" 'BEGIN{printf "%.3f", a/b}')")
  cpu+=("$(awk -v a="$on_cpu" -v b="$off_cpu" 'BEGIN{printf "%.3f", a/b}')")
  note="$(grep -o 'engine [a-z_]*, [0-9]* samples' "$work/stop-$k.txt" || true) $(grep -o 'wrote [0-9]* events' "$work/stop-$k.txt" || true)"
  # Probes that counted nothing would show here: the requests they saw over the whole on period.
  [ -f "$work/case-$k/tables/routes.json" ] && note="$note routes counted $(routes_counted "$work/case-$k")"
  [ -f "$work/rec-$k.jfr" ] && note="$note jfr $(du -k "$work/rec-$k.jfr" | cut -f1) KB"
  printf '%-8s %-4s %12.0f %12.0f %8.3f× %10.2f / %9.2f %8.3f×  %s\n' "m-$k" "$on" "$on_rps" "$off_rps" "${kept[-1]}" "$on_cpu" "$off_cpu" "${cpu[-1]}" "$note"
  python3 -c 'import sys
on=sys.argv[1].split(); off=sys.argv[2].split()
print("%-8s %s" % ("", "on − none, µs/req by thread: " + "  ".join("%s %+.2f" % (on[i], float(on[i+1]) - float(off[i+1])) for i in range(0, len(on), 2))))' \
    "$(cat "$work/m-$k-$on.groups")" "$(cat "$work/m-$k-$off.groups")"
done
read -r km kmn kmx <<<"$(stats "${kept[@]}")"
read -r cm cmn cmx <<<"$(stats "${cpu[@]}")"
awk -v m="$cm" -v lo="$cmn" -v hi="$cmx" -v what="$on_cmd" 'BEGIN {
  printf "\nCPU per request with %s: %+.1f %% (phases: %+.1f %% to %+.1f %%), goal ≤ 2 %%: %s\n",
    what, (m - 1) * 100, (lo - 1) * 100, (hi - 1) * 100, ((m - 1) <= 0.02 ? "met" : "MISSED") }'
awk -v m="$km" -v lo="$kmn" -v hi="$kmx" 'BEGIN {
  printf "throughput kept beside the none twin: %.3f× (%.3f to %.3f)\n", m, lo, hi }'
