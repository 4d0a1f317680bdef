#!/usr/bin/env bash
# Attach bench: starts an idle target JVM, attaches culprit (and, with ARTHAS=1, Arthas 4.0.5 from
# Maven Central on a second target), and prints attach → first answer time and what the attach
# added to the target: heap and metaspace used after a full GC, loaded classes, threads, RSS.
# Goals (issue 2): ≤ 0.8 s, ≤ 5 MB heap, ≤ 9 MB metaspace. Usage: bench/attach.sh [JAVA_HOME]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
jh="${1:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
java="$jh/bin/java"; jcmd="$jh/bin/jcmd"
work="$(mktemp -d)"; trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

[ -f "$root/cli/target/culprit.jar" ] || (cd "$root" && ./culprit --version >/dev/null)

cat > "$work/Idle.java" <<'JAVA'
public class Idle {
    public static void main(String[] a) throws Exception {
        System.out.println("READY");
        Thread.currentThread().join();
    }
}
JAVA
"$jh/bin/javac" -d "$work" "$work/Idle.java"

start_target() {
  "$java" -Xms256m -Xmx256m -XX:+UseG1GC -cp "$work" Idle > "$work/target-$1.out" 2>&1 &
  local pid=$!
  for _ in $(seq 100); do grep -q READY "$work/target-$1.out" 2>/dev/null && break; sleep 0.1; done
  echo "$pid"
}

# heapKB metaspaceKB classes threads rssKB, after a full GC so only live data counts. jstat's
# columns are the same on JDK 11-25 (GC.heap_info and the perf counter names are not).
measure() {
  local pid=$1
  "$jcmd" "$pid" GC.run >/dev/null
  local gc cls threads rss
  gc=$("$jh/bin/jstat" -gc "$pid" | awk 'NR==1 {for(i=1;i<=NF;i++) c[$i]=i} NR==2 {printf "%d %d", $c["S0U"]+$c["S1U"]+$c["EU"]+$c["OU"], $c["MU"]}')
  cls=$("$jh/bin/jstat" -class "$pid" | awk 'NR==2 {print $1}')
  threads=$(awk '/^Threads:/ {print $2}' /proc/"$pid"/status)
  rss=$(awk '/^VmRSS:/ {print $2}' /proc/"$pid"/status)
  echo "$gc $cls $threads $rss"
}

report() { # name before after seconds
  awk -v n="$1" -v s="$4" -v b="$2" -v a="$3" 'BEGIN { split(b, x, " "); split(a, y, " ");
    printf "%-8s attach→answer %5.2f s | heap %+6.1f MB | metaspace %+5.1f MB | classes %+5d | threads %+3d | RSS %+6.1f MB\n",
      n, s, (y[1]-x[1])/1024, (y[2]-x[2])/1024, y[3]-x[3], y[4]-x[4], (y[5]-x[5])/1024 }'
}

echo "target JDK: $("$java" -version 2>&1 | head -1)"
pid=$(start_target culprit)
before=$(measure "$pid")
t0=$(date +%s.%N)
"$root/culprit" exec "$pid" jvm >/dev/null
t1=$(date +%s.%N)
after=$(measure "$pid")
report culprit "$before" "$after" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')"
"$root/culprit" exec "$pid" stop >/dev/null
kill "$pid"

if [ "${ARTHAS:-0}" = 1 ]; then
  mvn -q dependency:copy -Dartifact=com.taobao.arthas:arthas-packaging:4.0.5:zip:bin -DoutputDirectory="$work" >/dev/null
  (cd "$work" && unzip -q arthas-packaging-4.0.5-bin.zip -d arthas)
  pid=$(start_target arthas)
  before=$(measure "$pid")
  t0=$(date +%s.%N)
  "$java" -jar "$work/arthas/arthas-boot.jar" --arthas-home "$work/arthas" --repo-mirror center -c "jvm" "$pid" >/dev/null 2>&1
  t1=$(date +%s.%N)
  after=$(measure "$pid")
  report arthas "$before" "$after" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')"
  kill "$pid"
fi
