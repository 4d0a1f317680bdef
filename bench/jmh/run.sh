#!/usr/bin/env bash
# The JMH benchmark of one instrumented call: installs the agent modules, builds this standalone
# project, runs it with the GC profiler (B/op). Extra arguments go to JMH, e.g. -p mode=monitor.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
(cd "$root" && mvn -B -q -pl agent-bootstrap,agent -am install -DskipTests)
(cd "$here" && mvn -B -q package)
java -jar "$here/target/benchmarks.jar" InstrumentedCallBenchmark -prof gc "$@"
