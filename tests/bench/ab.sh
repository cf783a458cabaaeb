#!/usr/bin/env bash
# A/B runs of `serve` under HTTP/2 load, for comparing JVM flags or builds back to back: one line
# per run with throughput, young collections and CPU per admission at 16 connections, latency at
# 2 connections, time to ready, the peak heap after a collection, RSS (now and peak) and the full
# collections of the run. Runs on request only, never in verify.
#
#   tests/bench/ab.sh LABEL [JVM flags...]
#
# Needs h2load (Debian: nghttp2-client) and the inputs of tests/bench/run.sh in BENCH_OUT (run it
# once). Environment: MESH_INJECTOR_JAR / MESH_INJECTOR_AOT_CACHE (another build's jar and cache),
# SERVE_ARGS (e.g. "--config FILE"), BENCH_OUT, AB_WARMUP (seconds, default 20: the JIT is still
# compiling then; 50 measures the settled server). Writes BENCH_OUT/ab-LABEL.{log,gc,h2log}.
# Bounded: the warm-up, 15 s at 16 connections, 10 s at 2 connections; the server is stopped.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${BENCH_OUT:-$here/target}
label=${1:?usage: ab.sh LABEL [JVM flags...]}
shift
for f in review.json cluster-5000.yaml tls/tls.crt; do
  [ -e "$out/$f" ] || { echo "ab.sh: $out/$f is missing: run tests/bench/run.sh once" >&2; exit 1; }
done
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port)
gc=$out/ab-$label.gc
rm -f "$gc" "$out/ab-$label.h2log"
MESH_INJECTOR_JAVA_OPTS="$* -Xlog:gc:file=$gc" "$root/bin/mesh-injector" serve \
  --cluster "$out/cluster-5000.yaml" --tls-dir "$out/tls" --port "$port" \
  --metrics-port "$(free_port)" ${SERVE_ARGS:-} > "$out/ab-$label.log" 2>&1 &
pid=$!
started=$(date +%s%N)
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 600); do
  curl -sfk -o /dev/null "https://127.0.0.1:$port/readyz" && break
  kill -0 $pid 2>/dev/null || { echo "ab.sh: serve exited, see $out/ab-$label.log" >&2; exit 1; }
  sleep 0.1
done
ready=$(( ($(date +%s%N) - started) / 1000000 ))
# bounded as in run.sh: h2load 1.52 can run on past -D when a client connects after the others stopped
load() { timeout "$(( $3 + 60 ))" h2load -c "$1" -t "$2" -m 1 -D "$3" -d "$out/review.json" \
  -H 'content-type: application/json' "${@:4}" "https://127.0.0.1:$port/mutate"; }
load 16 2 "${AB_WARMUP:-20}" > /dev/null
g0=$(grep -c Pause "$gc" || true)
c0=$(awk '{print $14 + $15}' /proc/$pid/stat)
r16=$(load 16 2 15 | awk '/^finished in/ {print $4}')
g1=$(grep -c Pause "$gc" || true)
c1=$(awk '{print $14 + $15}' /proc/$pid/stat)
tick=$(getconf CLK_TCK)
cpu=$(awk -v a="$c0" -v b="$c1" -v r="$r16" -v t="$tick" 'BEGIN {printf "%.3f", (b - a) * 1000 / t / (r * 15)}')
r2=$(load 2 1 10 --log-file="$out/ab-$label.h2log" | awk '/^finished in/ {print $4}')
lat=$(sort -n -k3 "$out/ab-$label.h2log" | awk '{d[NR] = $3}
  END {printf "p50 %.2f p99 %.2f ms", d[int(NR * 0.5) + 1] / 1000, d[int(NR * 0.99) + 1] / 1000}')
rss=$(ps -o rss= -p $pid | awk '{printf "%.0f", $1 / 1024}')
hwm=$(awk '/^VmHWM/ {printf "%.0f", $2 / 1024}' /proc/$pid/status)
# the heap each collection left, in MiB ("30M->12M(80M)": 12); the peak of those
heap=$(grep -o '[0-9]*M->[0-9]*M' "$gc" | sed 's/.*->//; s/M//' | sort -n | tail -1)
full=$(grep -c 'Pause Full' "$gc" || true)
echo "$label: 16c $r16 req/s ($((g1 - g0)) young collections, $cpu ms CPU/admission)," \
  "2c $r2 req/s $lat, ready $ready ms, peak heap after GC ${heap:-?} MiB, RSS $rss MiB (peak $hwm)," \
  "full collections $full, load $(cut -d' ' -f1 /proc/loadavg)"
# the next run must not share the cores with this server's drain period
kill $pid
wait $pid 2>/dev/null || true
