# Shared by the overhead benches (sourced, not run): build culprit once, compile the target,
# start/stop target JVMs, run one closed-model load phase and read its throughput.
# Callers set: root (checkout), work (temp dir), port, conns, dur (s), warm (s).

# ./culprit builds itself when sources changed; others edit the checkout while a bench runs, so
# the bench copies the jar once and every phase uses that same build.
build_culprit() {
  (cd "$root" && ./culprit --version >/dev/null) || { echo "culprit build failed" >&2; exit 1; }
  cp "$root/cli/target/culprit.jar" "$work/culprit.jar"
  export CULPRIT_HOME="$root"   # lab jar location for `culprit lab`/`diagnose`
}
culprit() { java -jar "$work/culprit.jar" "$@"; }

compile_target() {
  mkdir -p "$work/cls"
  javac -d "$work/cls" "$root/bench/overhead/Target.java"
}

# start_target LOG -> prints the pid once the target answers
start_target() {
  java -Xms512m -Xmx512m -XX:+UseG1GC -cp "$work/cls" Target "$port" 4 >"$1" 2>&1 &
  local pid=$!
  for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$port/?id=1" >/dev/null 2>&1 && { echo "$pid"; return; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "target did not start:" >&2; cat "$1" >&2; exit 1
}

# stop_pid PID: TERM, then wait until it is gone (it may not be our child, so `wait` cannot do it);
# the next target binds the same port.
stop_pid() {
  kill "$1" 2>/dev/null || return 0
  for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$1" 2>/dev/null || true
}

# load_phase NAME URL [DURATION_S] -> achieved requests/s of the measured part (closed model,
# fresh generator JVM, $warm s of unrecorded warm-up first)
load_phase() {
  local out="$work/load-$1.json"
  culprit load "$2" --connections "$conns" --duration "${3:-$dur}s" --warmup "${warm}s" --out "$out" \
    >"$work/load-$1.txt" 2>&1 || { echo "load failed in phase $1:" >&2; tail -5 "$work/load-$1.txt" >&2; exit 1; }
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; print("%.1f" % s["achieved_rps"])' "$out"
}

# wait_for FILE PATTERN PID: until PATTERN appears in FILE (the tool has woven the method); fails
# if the process PID exits first or after 90 s.
wait_for() {
  for _ in $(seq 900); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    kill -0 "$3" 2>/dev/null || { echo "command exited before it was active:" >&2; tail -5 "$1" >&2; return 1; }
    sleep 0.1
  done
  echo "timed out waiting for '$2' in $1" >&2; return 1
}

# stats RATIO... -> "mean min max" of the arguments
stats() { printf '%s\n' "$@" | awk '{s+=$1; if(NR==1||$1<mn)mn=$1; if(NR==1||$1>mx)mx=$1} END {printf "%.3f %.3f %.3f", s/NR, mn, mx}'; }
