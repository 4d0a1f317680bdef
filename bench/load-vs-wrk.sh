#!/usr/bin/env bash
# Requests per load-generator CPU-second: culprit load vs wrk, same target, same connections,
# same threads, same duration, closed model (wrk has no other). Goal: culprit >= 0.5x wrk.
#
#   bench/load-vs-wrk.sh [DURATION_S=30] [CONNECTIONS=50] [THREADS=2]
#
# CPU seconds are user+sys of each generator process (and its threads) from GNU time, so the
# JVM's start-up and JIT are charged to culprit, as a user would pay them.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
duration="${1:-30}"
connections="${2:-50}"
threads="${3:-2}"
port="${BENCH_PORT:-18777}"
work="$(mktemp -d)"
trap 'kill "$target_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
target_pid=""

if ! command -v wrk >/dev/null; then
  echo "installing wrk..." >&2
  apt-get update -qq >/dev/null && apt-get install -y -qq wrk >/dev/null
fi

echo "building the load module..." >&2
(cd "$root" && mvn -B -q -o -pl load -am install -DskipTests >"$work/build.log" 2>&1) \
  || { tail -20 "$work/build.log" >&2; exit 1; }
(cd "$root/load" && mvn -B -q -o dependency:build-classpath -Dmdep.outputFile="$work/cp" -Dmdep.includeScope=runtime >/dev/null 2>&1)
cp="$root/load/target/classes:$(cat "$work/cp")"

java -cp "$cp" "$here/load/Target.java" "$port" 1 >"$work/target.log" 2>&1 &
target_pid=$!
for _ in $(seq 100); do
  grep -q listening "$work/target.log" 2>/dev/null && break
  kill -0 "$target_pid" 2>/dev/null || { cat "$work/target.log" >&2; exit 1; }
  sleep 0.2
done
url="http://127.0.0.1:$port/"
# Warm the target's JIT so neither generator meets a cold server.
wrk -t1 -c4 -d3s "$url" >/dev/null

# measure NAME CMD...: runs CMD under GNU time, leaves its output in $work/NAME.out and its CPU seconds in $work/NAME.cpu
measure() {
  local name="$1"; shift
  /usr/bin/time -f '%U %S' -o "$work/$name.time" "$@" >"$work/$name.out" 2>"$work/$name.err" || true
  awk '{printf "%.2f", $1 + $2}' "$work/$name.time" >"$work/$name.cpu"
}

measure wrk wrk -t"$threads" -c"$connections" -d"${duration}s" "$url"
measure culprit java ${CULPRIT_JAVA_OPTS:-} -cp "$cp" io.culprit.load.cli.LoadMain "$url" \
  -c "$connections" --threads "$threads" -d "${duration}s" --window "${duration}s"

wrk_requests=$(awk '/requests in/ {print $1}' "$work/wrk.out")
culprit_requests=$(awk -F': ' '/requests \.+:/ {split($2, a, " "); print a[1]}' "$work/culprit.out")
[ -n "$wrk_requests" ] || { echo "wrk failed:" >&2; cat "$work/wrk.out" "$work/wrk.err" >&2; exit 1; }
[ -n "$culprit_requests" ] || { echo "culprit load failed:" >&2; cat "$work/culprit.out" "$work/culprit.err" >&2; exit 1; }

echo "target $url, closed model, $connections connections, $threads threads, ${duration}s each, $(nproc) cores"
echo "--- wrk";           grep -E "Latency|Req/Sec|requests in|Requests/sec" "$work/wrk.out"
echo "--- culprit load";  grep -E "requests \.|latency \.|errors \." "$work/culprit.out"
awk -v wr="$wrk_requests" -v wc="$(cat "$work/wrk.cpu")" -v cr="$culprit_requests" -v cc="$(cat "$work/culprit.cpu")" 'BEGIN {
  printf "\n%-14s %10s %10s %16s\n", "generator", "requests", "cpu_s", "req/cpu-second"
  printf "%-14s %10d %10.2f %16.0f\n", "wrk", wr, wc, wr / wc
  printf "%-14s %10d %10.2f %16.0f\n", "culprit load", cr, cc, cr / cc
  printf "ratio culprit/wrk: %.2fx (goal >= 0.5x)\n", (cr / cc) / (wr / wc)
}'
