#!/usr/bin/env bash
# Collectors' cost measured on twins (issue 4): two identical targets (bench/overhead/Target.java)
# run side by side and are loaded in the same seconds by two closed-model generators; one twin has
# the collectors on, the other none, then they swap roles. Whatever else the machine does (other
# processes, steal, the other twin) hits both twins at once, so the ratio of their CPU time per
# request isolates the collectors' cost; phases taken one after another moved by up to ±10 %
# between two none phases on this 2-core VM (see profiler-overhead.sh's noise floor).
#
#   bench/twin-overhead.sh [ROUNDS=3] [DURATION_S=15] [CONNECTIONS=4 per twin]
#   COLLECTORS=both|profiler|collect   (default both: profiler cpu 10 ms + live JFR stream)
#   SETTLE_S=30   load after the collectors start, not measured (the first JFR start in a JVM
#                 makes HotSpot recompile everything: profiler-overhead.sh explains)
#
# Round r: A on / B none, then A none / B on. First, one none/none measurement shows how far apart
# the twins are with no agent at all (the floor this method resolves). Reported: CPU per request
# on ÷ none (the collectors' own threads included: JFR, the stream, the profiler) and throughput
# on ÷ none. The twins share the cores, so a cost shows in CPU per request fully and in throughput
# only in part (the scheduler shares CPU time among all runnable threads, the agent's included).
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
compile_target
pa=$(port="$port" start_target "$work/a.log"); pids="$pa"
pb=$(port="$((port + 1))" start_target "$work/b.log"); pids="$pa $pb"
url_a="http://127.0.0.1:$port/?id=42"; url_b="http://127.0.0.1:$((port + 1))/?id=42"

# twin_phase NAME SECONDS: both twins loaded at once; writes NAME-a / NAME-b: "rps cpu_us_per_req"
twin_phase() {
  local ca cb
  ca=$(cpu_ticks "$pa"); cb=$(cpu_ticks "$pb")
  culprit load "$url_a" --connections "$conns" --duration "${2}s" --warmup 0s --out "$work/$1-a.json" >"$work/$1-a.txt" 2>&1 &
  local la=$!
  culprit load "$url_b" --connections "$conns" --duration "${2}s" --warmup 0s --out "$work/$1-b.json" >"$work/$1-b.txt" 2>&1 &
  local lb=$!
  wait "$la" || { echo "load on A failed in $1:" >&2; tail -3 "$work/$1-a.txt" >&2; exit 1; }
  wait "$lb" || { echo "load on B failed in $1:" >&2; tail -3 "$work/$1-b.txt" >&2; exit 1; }
  local side
  for side in a b; do
    local c0 pid; [ "$side" = a ] && { c0=$ca; pid=$pa; } || { c0=$cb; pid=$pb; }
    python3 -c 'import json,sys,os; s=json.load(open(sys.argv[1]))["summary"]
print("%.1f %.2f" % (s["achieved_rps"], (int(sys.argv[3]) - int(sys.argv[2])) * 1e6 / os.sysconf("SC_CLK_TCK") / max(1, s["responses"])))' \
      "$work/$1-$side.json" "$c0" "$(cpu_ticks "$pid")" >"$work/$1-$side"
  done
}

twin_phase warm 20
twin_phase floor "$dur"
rows=()
for r in $(seq "$rounds"); do
  for on in a b; do
    pid=$pa; [ "$on" = b ] && pid=$pb
    echo "round $r/$rounds: collectors on $on..." >&2
    culprit exec "$pid" "$on_cmd" >"$work/start-$r$on.txt" 2>&1 || { echo "collectors failed to start:" >&2; cat "$work/start-$r$on.txt" >&2; exit 1; }
    twin_phase "settle-$r$on" "$settle"
    twin_phase "m-$r$on" "$dur"
    culprit exec "$pid" "$(off_cmd "$r$on")" >"$work/stop-$r$on.txt" 2>&1 || { echo "collectors failed to stop:" >&2; cat "$work/stop-$r$on.txt" >&2; exit 1; }
    culprit exec "$pid" stop >/dev/null
    rows+=("$r$on")
  done
done

echo "twins: two targets (JDK HttpServer, 4 threads each), loaded at once by two closed-model generators of $conns connections,"
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
  printf '%-8s %-4s %12.0f %12.0f %8.3f× %10.2f / %9.2f %8.3f×  %s\n' "m-$k" "$on" "$on_rps" "$off_rps" "${kept[-1]}" "$on_cpu" "$off_cpu" "${cpu[-1]}" "$note"
done
read -r km kmn kmx <<<"$(stats "${kept[@]}")"
read -r cm cmn cmx <<<"$(stats "${cpu[@]}")"
awk -v m="$cm" -v lo="$cmn" -v hi="$cmx" -v what="$on_cmd" 'BEGIN {
  printf "\nCPU per request with %s: %+.1f %% (phases: %+.1f %% to %+.1f %%), goal ≤ 2 %%: %s\n",
    what, (m - 1) * 100, (lo - 1) * 100, (hi - 1) * 100, ((m - 1) <= 0.02 ? "met" : "MISSED") }'
awk -v m="$km" -v lo="$kmn" -v hi="$kmx" 'BEGIN {
  printf "throughput kept beside the none twin: %.3f× (%.3f to %.3f)\n", m, lo, hi }'
