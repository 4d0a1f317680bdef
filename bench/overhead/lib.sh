# Shared by the overhead benches (sourced, not run): build culprit once, compile the target,
# start/stop target JVMs, run one closed-model load phase and read its throughput, alternate
# none/on phases and report each `on` against its neighbours.
# Callers set: root (checkout), work (temp dir), port, conns, dur (s), warm (s); optionally
# cpu_pid (a target whose CPU time per request load_phase records).

# ./culprit builds itself when sources changed; others edit the checkout while a bench runs, so
# the bench copies the jar once and every phase uses that same build.
# CULPRIT_JAR=FILE uses that build instead (e.g. one made while the checkout does not compile).
build_culprit() {
  if [ -n "${CULPRIT_JAR:-}" ]; then
    cp "$CULPRIT_JAR" "$work/culprit.jar"
  else
    (cd "$root" && ./culprit --version >/dev/null) || { echo "culprit build failed" >&2; exit 1; }
    cp "$root/cli/target/culprit.jar" "$work/culprit.jar"
  fi
  # `culprit lab` runs $CULPRIT_HOME/lab/target/culprit-lab.jar: a copy, for the same reason (a
  # lab rebuilt under a running Spring Boot fat jar breaks its nested-jar class loading).
  if [ -f "$root/lab/target/culprit-lab.jar" ]; then
    mkdir -p "$work/home/lab/target"
    cp "$root/lab/target/culprit-lab.jar" "$work/home/lab/target/"
    export CULPRIT_HOME="$work/home"
  else
    export CULPRIT_HOME="$root"
  fi
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

# start_lab SCENARIO [LOG]: `culprit lab` in the background on $port; sets lab_cli (the CLI) and
# lab_pid (the service JVM it prints once the service answers). The caller's EXIT trap kills both.
start_lab() {
  local log="${2:-$work/lab-$1.log}"
  (exec java -jar "$work/culprit.jar" lab --scenario "$1" --port "$port") >"$log" 2>&1 &
  lab_cli=$!
  for _ in $(seq 1800); do
    lab_pid=$(sed -n 's/.*ready, pid \([0-9]*\).*/\1/p' "$log" | head -1)
    [ -n "$lab_pid" ] && return 0
    kill -0 "$lab_cli" 2>/dev/null || break
    sleep 0.1
  done
  echo "lab $1 did not start:" >&2; tail -20 "$log" >&2; exit 1
}
stop_lab() { # the service first (by its pid), then the CLI that waits for it
  kill "$lab_pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$lab_pid" 2>/dev/null || break; sleep 0.1; done
  kill "$lab_cli" 2>/dev/null || true; wait "$lab_cli" 2>/dev/null || true
  lab_pid=""; lab_cli=""
}

# lab_phase_none I: a `none` phase on the lab: a fresh healthy lab (callers set url), LAB_WARMUP_S
# (default 120) of unrecorded load for the JIT, then the measured load with no agent ever attached.
lab_phase_none() {
  start_lab healthy
  cpu_pid="$lab_pid"
  load_phase "warm-none-$1" "$url" "${LAB_WARMUP_S:-120}" >/dev/null
  load_phase "none-$1" "$url"
  stop_lab
}

# stop_pid PID: TERM, then wait until it is gone (it may not be our child, so `wait` cannot do it);
# the next target binds the same port.
stop_pid() {
  kill "$1" 2>/dev/null || return 0
  for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$1" 2>/dev/null || true
}

# load_phase NAME URL [DURATION_S] -> achieved requests/s of the measured part (closed model,
# fresh generator JVM, $warm s of unrecorded warm-up first). With cpu_pid set, also writes that
# process's CPU µs per request to $work/cpu-NAME (warm-up included in both, so warm=0 is cleaner):
# unlike throughput, it hardly moves when other processes take the shared cores.
load_phase() {
  local out="$work/load-$1.json" c0=0
  [ -n "${cpu_pid:-}" ] && c0=$(cpu_ticks "$cpu_pid")
  culprit load "$2" --connections "$conns" --duration "${3:-$dur}s" --warmup "${warm}s" --out "$out" \
    >"$work/load-$1.txt" 2>&1 || { echo "load failed in phase $1:" >&2; tail -5 "$work/load-$1.txt" >&2; exit 1; }
  if [ -n "${cpu_pid:-}" ]; then
    python3 -c 'import json,sys,os; s=json.load(open(sys.argv[1]))["summary"]
print("%.1f" % ((int(sys.argv[3]) - int(sys.argv[2])) * 1e6 / os.sysconf("SC_CLK_TCK") / max(1, s["responses"])))' \
      "$out" "$c0" "$(cpu_ticks "$cpu_pid")" >"$work/cpu-$1"
  fi
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; print("%.1f" % s["achieved_rps"])' "$out"
}

# cpu_ticks PID -> user+system clock ticks the process has used
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# routes_counted CASE_DIR -> the requests the request probe counted in that case file, "?" without one
routes_counted() {
  python3 -c 'import json,sys; print(sum(r["count"] for r in json.load(open(sys.argv[1]))["rows"]))' \
    "$1/tables/routes.json" 2>/dev/null || echo "?"
}

# thread_ticks PID -> one line "group ticks ..." of the CPU ticks its live threads have used, by
# what the thread is: jit (C1/C2 compiler threads), gc, vm (VM thread, periodic tasks), jfr,
# culprit (the agent's own threads, async-profiler's included), app (the rest). Two snapshots
# around a phase split its CPU time by group (threads that end in between drop out of both).
thread_ticks() {
  local t
  for t in /proc/"$1"/task/*; do
    printf '%s\t%s\n' "$(cat "$t/comm" 2>/dev/null)" "$(awk '{print $14 + $15}' "$t/stat" 2>/dev/null)"
  done | awk -F'\t' '$2 != "" {
    g = "app"
    if ($1 ~ /^C[12] Compiler/) g = "jit"
    else if ($1 ~ /^(GC Thread|G1 |VM Periodic|VM Thread|Service Thread|Sweeper)/) g = ($1 ~ /^(GC|G1)/ ? "gc" : "vm")
    else if ($1 ~ /^JFR /) g = "jfr"
    else if ($1 ~ /^(culprit|async-profiler|one\.profiler)/) g = "culprit"
    s[g] += $2
  } END { printf "jit %d gc %d vm %d jfr %d culprit %d app %d\n", s["jit"], s["gc"], s["vm"], s["jfr"], s["culprit"], s["app"] }'
}

# run_pairs PAIRS: phases none-0, on-1, none-1, on-2, …, none-PAIRS; the caller defines
# `phase_none I` and `phase_on I`, each printing the phase's requests/s (and may write
# $work/note-I, shown beside pair I). Sets the arrays nones and ons.
run_pairs() {
  nones=("$(phase_none 0)"); ons=()
  echo "none-0: ${nones[0]} req/s" >&2
  for i in $(seq "$1"); do
    echo "pair $i/$1..." >&2
    ons+=("$(phase_on "$i")")
    echo "on-$i: ${ons[$((i-1))]} req/s" >&2
    nones+=("$(phase_none "$i")")
    echo "none-$i: ${nones[$i]} req/s" >&2
  done
}

# pick_collectors: from $COLLECTORS (both|profiler|collect|record|record-nosamples|probes|diagnose, default both)
# sets on_cmd, the agent commands an `on` phase starts (profiler first, as diagnose does), and
# defines off_cmd PAIR, which stops them so the profile and the case file are really written.
# `collect` means the live JFR stream alone; `probes` the framework probes alone (weave, count);
# `diagnose` what `culprit diagnose` runs in the target: probes, the ctimer profiler and JFR
# recorded to disk without JFR's own CPU sampler (the CLI parses it afterwards, outside the target,
# and fills the CPU tables from the profiler's samples); `record-nosamples` that recording alone.
# PROFILER_EVENT picks the CPU sampler: ctimer (default, as diagnose runs it), cpu (perf events,
# else ctimer) or itimer. On this 2-core VM perf events cost the bench target 8.5 % CPU per request
# (a server that hands every request between threads) and ctimer nothing measurable (docs/BENCH.md).
pick_collectors() {
  collectors="${COLLECTORS:-both}"
  local ev="${PROFILER_EVENT:-ctimer}"
  case "$collectors" in
    both) on_cmd="profiler start --event $ev --interval 10ms; collect start --no-probes" ;;
    profiler) on_cmd="profiler start --event $ev --interval 10ms" ;;
    collect) on_cmd="collect start --no-probes" ;;
    record) on_cmd="jfr start" ;;  # JFR with culprit's settings recorded to disk, nothing parsed in the target
    record-nosamples) on_cmd="jfr start --no-samples" ;;
    probes) on_cmd="collect weave; collect start --no-jfr" ;;
    diagnose) on_cmd="collect weave; profiler start --event $ev --interval 10ms; jfr start --no-samples; collect start --no-jfr" ;;
    *) echo "COLLECTORS must be both, profiler, collect, record, record-nosamples, probes or diagnose, got '$collectors'" >&2; exit 2 ;;
  esac
}
off_cmd() {
  local p="profiler stop --format collapsed --file $work/profile-$1.txt" c="collect stop --case $work/case-$1"
  local j="jfr stop --file $work/rec-$1.jfr"
  case "$collectors" in
    both) echo "$p; $c" ;; profiler) echo "$p" ;; collect|probes) echo "$c" ;; record|record-nosamples) echo "$j" ;;
    diagnose) echo "$j; $c; $p" ;;
  esac
}

# exec_pair_on PID URL I ON_CMD: one `on` phase on a running target: attach and run ON_CMD, load,
# run "$(off_cmd I)" (the caller's function), note what was collected, detach. With settle=S (s),
# an unrecorded load of S seconds comes first and its throughput is noted as the transient.
exec_pair_on() {
  culprit exec "$1" "$4" >"$work/start-$3.txt" 2>&1 \
    || { echo "collectors failed to start:" >&2; cat "$work/start-$3.txt" >&2; exit 1; }
  local transient=""
  if [ "${settle:-0}" -gt 0 ]; then
    local keep_cpu="${cpu_pid:-}"; cpu_pid=""
    transient="first ${settle}s after start: $(load_phase "settle-$3" "$2" "$settle") req/s; "
    cpu_pid="$keep_cpu"
  fi
  load_phase "on-$3" "$2"
  culprit exec "$1" "$(off_cmd "$3")" >"$work/stop-$3.txt" 2>&1 \
    || { echo "collectors failed to stop:" >&2; cat "$work/stop-$3.txt" >&2; exit 1; }
  echo "$transient$(grep -o 'engine [a-z_]*, [0-9]* samples' "$work/stop-$3.txt" || true); $(grep -o "wrote [0-9]* events" "$work/stop-$3.txt" || true)" >"$work/note-$3"
  culprit exec "$1" stop >/dev/null
}

# report_pairs PAIRS WHAT: one row per pair (each `on` against the mean of the none phases either
# side, so slow drift on a shared machine cancels), CPU per request when measured, and the
# throughput lost with WHAT against the 2 % goal.
report_pairs() {
  local cpu_cols=""
  [ -f "$work/cpu-on-1" ] && cpu_cols=1
  printf '\n%-6s %12s %12s %12s %8s' pair "none before" "on" "none after" "kept"
  [ -n "$cpu_cols" ] && printf ' %22s' "CPU µs/req none → on"
  printf '  %s\n' collected
  local ratios=() cpu_ratios=() i b o a r
  for i in $(seq "$1"); do
    b=${nones[$((i-1))]}; o=${ons[$((i-1))]}; a=${nones[$i]}
    r=$(awk -v b="$b" -v o="$o" -v a="$a" 'BEGIN{printf "%.3f", o / ((a + b) / 2)}')
    ratios+=("$r")
    printf '%-6s %12.0f %12.0f %12.0f %7.3f×' "$i" "$b" "$o" "$a" "$r"
    if [ -n "$cpu_cols" ]; then
      local cb ca co; cb=$(cat "$work/cpu-none-$((i-1))"); ca=$(cat "$work/cpu-none-$i"); co=$(cat "$work/cpu-on-$i")
      cpu_ratios+=("$(awk -v b="$cb" -v a="$ca" -v o="$co" 'BEGIN{printf "%.3f", o / ((a + b) / 2)}')")
      printf ' %10.1f → %9.1f' "$(awk -v b="$cb" -v a="$ca" 'BEGIN{print (a + b) / 2}')" "$co"
    fi
    printf '  %s\n' "$(cat "$work/note-$i" 2>/dev/null || true)"
  done
  local mean mn mx
  read -r mean mn mx <<<"$(stats "${ratios[@]}")"
  awk -v m="$mean" -v lo="$mn" -v hi="$mx" -v what="$2" 'BEGIN {
    printf "\nthroughput lost with %s: %.1f %% (pairs: %.1f %% to %.1f %%), goal ≤ 2 %%: %s\n",
      what, (1 - m) * 100, (1 - hi) * 100, (1 - lo) * 100, ((1 - m) <= 0.02 ? "met" : "MISSED") }'
  if [ -n "$cpu_cols" ]; then
    read -r mean mn mx <<<"$(stats "${cpu_ratios[@]}")"
    awk -v m="$mean" -v lo="$mn" -v hi="$mx" 'BEGIN {
      printf "CPU per request: %+.1f %% (pairs: %+.1f %% to %+.1f %%)\n", (m - 1) * 100, (lo - 1) * 100, (hi - 1) * 100 }'
  fi
  noise_floor "$1"
}

# noise_floor PAIRS: how far the none phases alone move, each against the mean of its neighbours
# (the same comparison an `on` gets). A loss smaller than this spread is not resolved by this run.
noise_floor() {
  [ "$1" -ge 2 ] || return 0
  local r=() c=() i
  for i in $(seq 1 $(($1 - 1))); do
    r+=("$(awk -v b="${nones[$((i-1))]}" -v x="${nones[$i]}" -v a="${nones[$((i+1))]}" 'BEGIN{printf "%.3f", x / ((a + b) / 2)}')")
    [ -f "$work/cpu-none-$i" ] && c+=("$(awk -v b="$(cat "$work/cpu-none-$((i-1))")" -v x="$(cat "$work/cpu-none-$i")" -v a="$(cat "$work/cpu-none-$((i+1))")" 'BEGIN{printf "%.3f", x / ((a + b) / 2)}')")
  done
  local mn mx cmn cmx
  read -r _ mn mx <<<"$(stats "${r[@]}")"
  printf 'noise floor: none phases against their neighbours: throughput %+.1f %% to %+.1f %%' "$(awk -v v="$mn" 'BEGIN{print (v-1)*100}')" "$(awk -v v="$mx" 'BEGIN{print (v-1)*100}')"
  if [ "${#c[@]}" -gt 0 ]; then
    read -r _ cmn cmx <<<"$(stats "${c[@]}")"
    printf ', CPU per request %+.1f %% to %+.1f %%' "$(awk -v v="$cmn" 'BEGIN{print (v-1)*100}')" "$(awk -v v="$cmx" 'BEGIN{print (v-1)*100}')"
  fi
  printf '\n'
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
