#!/usr/bin/env bash
# Where the probes' CPU goes, hook by hook (issue 7). Two healthy lab services each get RATE
# requests/s (open model, at once); the probes run in A only (woven a second time: see below).
# After SETTLE_S of that load, both
# are profiled for DURATION_S (async-profiler through culprit, cpu, 1 ms). Printed: the share of
# A's samples in culprit's own frames (the woven code's calls into the agent and the bridge), by
# the woven method they run under, and both twins' samples per 1,000 requests. The twins'
# totals move by a few points between runs (they share two cores); the agent's own share is the
# stable figure: it counts the probes' code directly, not their effect on the rest.
#
#   bench/agent-frames.sh [DURATION_S=30]     RATE=2000 SETTLE_S=150 CULPRIT_JAR=... (lib.sh)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dur="${1:-30}"; rate="${RATE:-2000}"; settle="${SETTLE_S:-150}"; conns=16; warm=0
port="${BENCH_PORT:-18991}"
work="$(mktemp -d)"
pids=""
# KEEP=DIR keeps both profiles (prof-a.txt, prof-b.txt) there.
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; [ -n "${KEEP:-}" ] && mkdir -p "$KEEP" && cp "$work"/prof-*.txt "$work"/measured-*.json "$KEEP"/ 2>/dev/null; rm -rf "$work"' EXIT
. "$root/bench/overhead/lib.sh"

echo "building culprit..." >&2
build_culprit
export SERVER_TOMCAT_THREADS_MAX="${LAB_THREADS:-8}"
port="$port" start_lab healthy "$work/lab-a.log"; pa=$lab_pid; pids="$lab_cli $pa"
port="$((port + 1))" start_lab healthy "$work/lab-b.log"; pb=$lab_pid; pids="$pids $lab_cli $pb"
url_a="http://127.0.0.1:$port/api/orders/7"; url_b="http://127.0.0.1:$((port + 1))/api/orders/7"

# both NAME SECONDS: both twins loaded at RATE at once; NAME-a.json / NAME-b.json
both() {
  culprit load "$url_a" --rate "${rate}/s" --connections "$conns" --duration "${2}s" --warmup 0s --out "$work/$1-a.json" >"$work/$1-a.txt" 2>&1 &
  local la=$!
  culprit load "$url_b" --rate "${rate}/s" --connections "$conns" --duration "${2}s" --warmup 0s --out "$work/$1-b.json" >"$work/$1-b.txt" 2>&1 &
  local lb=$!
  wait "$la" || { echo "load on A failed:" >&2; tail -3 "$work/$1-a.txt" >&2; exit 1; }
  wait "$lb" || { echo "load on B failed:" >&2; tail -3 "$work/$1-b.txt" >&2; exit 1; }
}

probes_on() {
  culprit exec "$pa" "collect weave; collect start --no-jfr" >"$work/on.txt" 2>&1 \
    || { echo "probes failed to start:" >&2; cat "$work/on.txt" >&2; exit 1; }
}
# The first weave in a JVM deoptimizes all its compiled code; on 2 busy cores C2 was still a third
# of A's samples 150 s later. So the probes go on and off once, then the twins warm up again, and
# the measured weave is the second, which deoptimizes only what inlined the woven methods.
echo "warming both twins, the probes on and off once in A, warming again (${LAB_WARMUP_S:-60} s each)..." >&2
both warm "${LAB_WARMUP_S:-60}"
probes_on
both prime "${LAB_WARMUP_S:-60}"
culprit exec "$pa" "collect stop --case $work/prime; stop" >/dev/null 2>&1
both rewarm "${LAB_WARMUP_S:-60}"
echo "the probes in A, ${settle} s of settling..." >&2
probes_on
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
culprit exec "$pa" "collect stop --case $work/case; stop" >/dev/null 2>&1 || true

python3 - "$work" "$rate" "$dur" "$engine" <<'EOF'
import json, re, sys
work, rate, dur, engine = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
def load(t):
    stacks = []
    for line in open(f"{work}/prof-{t}.txt"):
        s, _, n = line.rstrip("\n").rpartition(" ")
        if s: stacks.append((s.split(";"), int(n)))
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
print(f"two healthy labs at {rate} req/s each, {dur} s profiled ({engine or 'engine not reported'}, 1 ms); probes in A")
print(f"samples per 1,000 requests: A (probes) {total_a * 1000 / max(1, ra):.1f}, B (none) {total_b * 1000 / max(1, rb):.1f}"
      f" ({ra} / {rb} requests)")
print(f"culprit's own frames in A: {own} of {total_a} samples = {100 * own / max(1, total_a):.2f} %")
for hook, n in sorted(by_hook.items(), key=lambda kv: -kv[1])[:12]:
    print(f"  {100 * n / max(1, total_a):5.2f} %  under {hook.replace('/', '.')}")
def leaves(stacks, reqs):
    out = {}
    for frames, n in stacks: out[frames[-1]] = out.get(frames[-1], 0) + n * 1000 / max(1, reqs)
    return out
la, lb = leaves(a, ra), leaves(b, rb)
print("leaf frames with the most more samples per 1,000 requests in A than in B:")
for f in sorted(set(la) | set(lb), key=lambda f: -(la.get(f, 0) - lb.get(f, 0)))[:10]:
    print(f"  {la.get(f, 0) - lb.get(f, 0):+7.1f}  ({la.get(f, 0):.1f} / {lb.get(f, 0):.1f})  {f.replace('/', '.')}")
EOF
