#!/usr/bin/env bash
# Where the collectors' CPU goes, frame by frame (issues 4 and 7). Two twins each get RATE
# requests/s (open model, at once); the collectors run in A only (started a second time: see
# below). After SETTLE_S of that load, both are profiled for DURATION_S (async-profiler through
# culprit, cpu, 1 ms). Printed: the share of A's samples in culprit's own frames (the woven code's
# calls into the agent and the bridge), by the woven method they run under; JFR's own work in A
# (its threads, and the stack walks it makes on the application's threads); the JIT in both; both
# twins' samples per 1,000 requests; the leaf frames A spends more on. The twins' totals move by a
# few points between runs (they share two cores): COLLECTORS=none measures that floor. The own
# frames are the stable figures: they count the collectors' code directly, not their effect on
# the rest.
#
#   bench/agent-frames.sh [DURATION_S=30]     RATE=2000 SETTLE_S=150 CULPRIT_JAR=... (lib.sh)
#   TARGET=lab|bench     two healthy lab services (default), or two bench targets (Target.java)
#   COLLECTORS=probes|collect|record|record-nosamples|none   what A runs (lib.sh's pick_collectors; default probes).
#                        Not `both` or `diagnose`: they run async-profiler, which this bench needs.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dur="${1:-30}"; rate="${RATE:-2000}"; settle="${SETTLE_S:-150}"; conns=16; warm=0
. "$root/bench/overhead/lib.sh"
case "${COLLECTORS:=probes}" in
  none) on_cmd="jvm"; off_cmd() { echo "jvm"; } ;;  # attach and detach only: the twins' own difference
  both|diagnose|profiler) echo "COLLECTORS=$COLLECTORS runs async-profiler, which this bench needs for itself" >&2; exit 2 ;;
  *) pick_collectors ;;
esac
port="${BENCH_PORT:-18991}"
work="$(mktemp -d)"
pids=""
# KEEP=DIR keeps both profiles (prof-a.txt, prof-b.txt) there.
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; [ -n "${KEEP:-}" ] && mkdir -p "$KEEP" && cp "$work"/prof-*.txt "$work"/measured-*.json "$KEEP"/ 2>/dev/null; rm -rf "$work"' EXIT

echo "building culprit..." >&2
build_culprit
if [ "${TARGET:-lab}" = lab ]; then
  export SERVER_TOMCAT_THREADS_MAX="${LAB_THREADS:-8}"
  port="$port" start_lab healthy "$work/lab-a.log"; pa=$lab_pid; pids="$lab_cli $pa"
  port="$((port + 1))" start_lab healthy "$work/lab-b.log"; pb=$lab_pid; pids="$pids $lab_cli $pb"
  path=/api/orders/7
else
  compile_target
  pa=$(port="$port" start_target "$work/a.log"); pids="$pa"
  pb=$(port="$((port + 1))" start_target "$work/b.log"); pids="$pa $pb"
  path="/?id=42"
fi
url_a="http://127.0.0.1:$port$path"; url_b="http://127.0.0.1:$((port + 1))$path"

# both NAME SECONDS: both twins loaded at RATE at once; NAME-a.json / NAME-b.json
both() {
  culprit load "$url_a" --rate "${rate}/s" --connections "$conns" --duration "${2}s" --warmup 0s --out "$work/$1-a.json" >"$work/$1-a.txt" 2>&1 &
  local la=$!
  culprit load "$url_b" --rate "${rate}/s" --connections "$conns" --duration "${2}s" --warmup 0s --out "$work/$1-b.json" >"$work/$1-b.txt" 2>&1 &
  local lb=$!
  wait "$la" || { echo "load on A failed:" >&2; tail -3 "$work/$1-a.txt" >&2; exit 1; }
  wait "$lb" || { echo "load on B failed:" >&2; tail -3 "$work/$1-b.txt" >&2; exit 1; }
}

collectors_on() {
  culprit exec "$pa" "$on_cmd" >"$work/on.txt" 2>&1 \
    || { echo "collectors failed to start:" >&2; cat "$work/on.txt" >&2; exit 1; }
}
# The first weave (or JFR start) in a JVM deoptimizes all its compiled code; on 2 busy cores C2
# was still a third of A's samples 150 s later. So the collectors go on and off once, then the
# twins warm up again, and the measured start is the second, which deoptimizes only what inlined
# the woven methods.
echo "warming both twins, $COLLECTORS on and off once in A, warming again (${LAB_WARMUP_S:-60} s each)..." >&2
both warm "${LAB_WARMUP_S:-60}"
collectors_on
both prime "${LAB_WARMUP_S:-60}"
culprit exec "$pa" "$(off_cmd prime); stop" >/dev/null 2>&1
both rewarm "${LAB_WARMUP_S:-60}"
echo "$COLLECTORS in A ($on_cmd), ${settle} s of settling..." >&2
collectors_on
both settle "$settle"
# in_both NAME COMMAND: COMMAND in both twins, @T in it replaced by the twin's letter; output in NAME-a.txt / NAME-b.txt
in_both() {
  local t p
  for t in a b; do
    p=$pa; [ "$t" = b ] && p=$pb
    culprit exec "$p" "${2//@T/$t}" >"$work/$1-$t.txt" 2>&1 || { echo "$1 failed in $t:" >&2; cat "$work/$1-$t.txt" >&2; exit 1; }
  done
}
in_both prof-on "profiler start --event cpu --interval 1ms"
echo "profiling both for ${dur} s..." >&2
both measured "$dur"
in_both prof-off "profiler stop --format collapsed --file $work/prof-@T.txt"
engine="$(grep -ho 'engine [a-z-]*' "$work"/prof-on-a.txt | head -1 || true)"
culprit exec "$pa" "$(off_cmd measured); stop" >/dev/null 2>&1 || true

python3 - "$work" "$rate" "$dur" "$engine" "${TARGET:-lab}" "$COLLECTORS" <<'EOF'
import json, re, sys
work, rate, dur, engine, target, collectors = sys.argv[1:7]
# Lambda and generated classes carry an address that differs between the twins' JVMs.
ADDRESS = re.compile(r"(\$\$Lambda\$\d+|\$\d+)?[./]0x[0-9a-f]+|GeneratedMethodAccessor\d+")
def load(t):
    stacks = []
    for line in open(f"{work}/prof-{t}.txt"):
        s, _, n = line.rstrip("\n").rpartition(" ")
        if s: stacks.append(([ADDRESS.sub("#", f) for f in s.split(";")], int(n)))
    return stacks
def responses(t):
    return json.load(open(f"{work}/measured-{t}.json"))["summary"]["responses"]
OWN = re.compile(r"^io[/.]culprit[/.](agent|bootstrap)[/.]")  # not the lab's own io.culprit.lab
# The probes' linked call sites (invokedynamic) run through LambdaForms when not inlined whole.
SITE = re.compile(r"^java[/.]lang[/.]invoke[/.]LambdaForm\$")
a, b = load("a"), load("b")
total_a, total_b = sum(n for _, n in a), sum(n for _, n in b)
by_hook, own = {}, 0
for frames, n in a:
    i = next((k for k, f in enumerate(frames) if OWN.match(f)), None)
    if i is None and SITE.match(frames[-1]):
        i = len(frames) - 1
    if i is None: continue
    while i > 0 and SITE.match(frames[i - 1]): i -= 1
    own += n
    # The frame below the first of culprit's: the woven method (java.lang.Thread.run for the agent's own threads).
    hook = frames[i - 1] if i > 0 else "(root)"
    by_hook[hook] = by_hook.get(hook, 0) + n
ra, rb = responses("a"), responses("b")
twins = "two healthy labs" if target == "lab" else "two bench targets"
print(f"{twins} at {rate} req/s each, {dur} s profiled ({engine or 'engine not reported'}, 1 ms); {collectors} in A")
print(f"samples per 1,000 requests: A ({collectors}) {total_a * 1000 / max(1, ra):.1f}, B (none) {total_b * 1000 / max(1, rb):.1f}"
      f" ({ra} / {rb} requests)")
print(f"culprit's own frames in A: {own} of {total_a} samples = {100 * own / max(1, total_a):.2f} %")
for hook, n in sorted(by_hook.items(), key=lambda kv: -kv[1])[:12]:
    print(f"  {100 * n / max(1, total_a):5.2f} %  under {hook.replace('/', '.')}")
# JFR's own work: its threads (sampler, periodic tasks, the stream's parser, the recorder) and the
# stack walks and event writes it does on the application's threads.
JFR = re.compile(r"^(Jfr|jfr_|jdk[./]jfr[./])")
def share(stacks, reqs, pick):
    return sum(n for frames, n in stacks if pick(frames)) * 1000 / max(1, reqs)
jfr_a = share(a, ra, lambda fs: any(JFR.match(f) for f in fs))
jit = lambda fs: any(f.startswith("CompileBroker::") for f in fs)
print(f"JFR's own frames per 1,000 requests: A {jfr_a:.2f} ({100 * jfr_a * ra / 1000 / max(1, total_a):.2f} % of A)")
for name, pick in [("stack walks on the application's threads", lambda fs: fs[0] != "clone3" and any(f.startswith("JfrStackTrace") for f in fs)),
                   ("the sampler thread", lambda fs: any(f.startswith("JfrThreadSampler::") for f in fs)),
                   ("periodic events", lambda fs: any("PlatformRecorder.periodicTask" in f for f in fs)),
                   ("the stream's parser", lambda fs: any("AbstractEventStream" in f for f in fs))]:
    print(f"  {share(a, ra, pick):6.2f}  {name}")
print(f"the JIT per 1,000 requests: A {share(a, ra, jit):.2f}, B {share(b, rb, jit):.2f}")
def leaves(stacks, reqs):
    out = {}
    for frames, n in stacks: out[frames[-1]] = out.get(frames[-1], 0) + n * 1000 / max(1, reqs)
    return out
la, lb = leaves(a, ra), leaves(b, rb)
print("leaf frames with the most more samples per 1,000 requests in A than in B:")
for f in sorted(set(la) | set(lb), key=lambda f: -(la.get(f, 0) - lb.get(f, 0)))[:10]:
    print(f"  {la.get(f, 0) - lb.get(f, 0):+7.1f}  ({la.get(f, 0):.1f} / {lb.get(f, 0):.1f})  {f.replace('/', '.')}")
EOF
