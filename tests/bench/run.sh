#!/usr/bin/env bash
# The load benchmark, in one command (about 6 minutes on a 2-core machine):
#
#   tests/bench/run.sh
#
# Three servers over the same TLS certificate on loopback, one after another, each posted the same
# typical Deployment pod's AdmissionReview (tests/bench/generate.py, about 3.6 KB) with a 5,000-node
# cluster view:
#   nginx       a canned answer of the same size as mesh-injector's (the machine's no-work ceiling)
#   josdk-peer  a minimal mutating webhook (one label) on the Java Operator SDK's admission framework
#               under Spring Boot (tests/bench/josdk-peer, a Maven project of its own)
#   mesh-injector  `serve` through bin/mesh-injector, the launcher the image and the README use
# and, only when named in BENCH_SERVERS, mesh-injector's admission code straight on Reactor Netty,
# without Spring (tests/bench/netty-peer, on the launcher's JVM and flags):
#   netty-boringssl  Reactor Netty with BoringSSL (netty-tcnative-boringssl-static)
#   netty-jdk        Reactor Netty with the JDK's TLS (JSSE)
#   netty-canned     Reactor Netty with BoringSSL answering nginx's canned response, no admission
#                    code at all: the ceiling of this JVM and server stack on this machine
# For each: start-to-ready, throughput at 16 connections and p50/p99 at 2 connections over HTTP/1.1
# (wrk) and HTTP/2 (h2load), non-2xx answers, and RSS after the load.
#
# Environment (all optional):
#   BENCH_DURATION=15         seconds of each measured run (warm-up: BENCH_WARMUP=10)
#   BENCH_SERVERS="nginx josdk-peer mesh-injector"   which servers, in this order (also:
#                             netty-boringssl, netty-jdk, netty-canned)
#   BENCH_SKIP_BUILD=1        use the jars already built
#   BENCH_JAVA_OPTS=...       extra JVM flags for mesh-injector (e.g. to compare TLS stacks)
#   BENCH_NMT=1               with BENCH_JAVA_OPTS=-XX:NativeMemoryTracking=summary: writes nmt.txt
#   BENCH_OUT=DIR             where inputs, logs and results go (default tests/bench/target)
#   BENCH_STARTS=3            cold starts of mesh-injector with the README's example cluster, timed
#                             with the AOT cache (when trained) and without; 0 skips them
set -euo pipefail

bench=$(cd "$(dirname "$0")" && pwd -P)
root=$(cd "$bench/../.." && pwd -P)
out=${BENCH_OUT:-$bench/target}
duration=${BENCH_DURATION:-15}
warmup=${BENCH_WARMUP:-10}
servers=${BENCH_SERVERS:-nginx josdk-peer mesh-injector}
mkdir -p "$out"
exec > >(tee "$out/run.log") 2>&1

say() { printf '\n== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }

# -- tools: wrk, h2load and nginx from Debian's packages, installed only when absent
need=()
command -v wrk >/dev/null || need+=(wrk)
command -v h2load >/dev/null || need+=(nghttp2-client)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v python3 >/dev/null || need+=(python3)
command -v curl >/dev/null || need+=(curl)
if [ ${#need[@]} -gt 0 ]; then
  say "installing ${need[*]}"
  sudo=; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${need[@]}"
fi
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

# -- builds: the webhook (with the AOT cache when a Java 25 is there) and the peer
if [ "${BENCH_SKIP_BUILD:-}" != 1 ]; then
  say "building mesh-injector, the JOSDK peer and the Netty peer"
  (cd "$root" && ./mvnw -B -q -DskipTests package -pl webhook -am)
  (cd "$root" && ./mvnw -B -q -DskipTests -f tests/bench/josdk-peer/pom.xml package)
  # after the webhook: it compiles against webhook/target/app/mesh-injector.jar
  (cd "$root" && ./mvnw -B -q -DskipTests -f tests/bench/netty-peer/pom.xml package)
fi
if [ ! -f "$root/webhook/target/app/mesh-injector.aot" ] && [ "${BENCH_NO_AOT:-}" != 1 ]; then
  "$root/bin/train-aot-cache" || echo "no AOT cache: the start-up figure is without one"
fi

# -- inputs: the review, the cluster view, one certificate for all three servers
python3 "$bench/generate.py" "$out" 5000
body=$out/review.json
cluster=$out/cluster-5000.yaml
rm -rf "$out/tls"
MESH_INJECTOR_JAVA_OPTS= "$root/bin/mesh-injector" certs --out "$out/tls" --dns localhost >/dev/null
cat > "$out/post.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = assert(io.open(os.getenv("BENCH_BODY"), "rb"))
wrk.body = f:read("*a")
f:close()
LUA
export BENCH_BODY=$body

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
now_ms() { date +%s%3N; }
rss_mib() { # the sum over a process and its children (nginx's workers), in MiB
  local pids
  pids=$( (echo "$1"; pgrep -P "$1" 2>/dev/null || true) | paste -sd, -)
  { ps -o rss= -p "$pids" 2>/dev/null || true; } | awk '{s+=$1} END {printf "%.0f", s/1024}'
}
wait_ready() { # pid port: milliseconds from $started until GET /readyz answers 200
  local deadline=$(( $(now_ms) + 120000 ))
  until curl -sfk -o /dev/null "https://127.0.0.1:$2/readyz"; do
    if ! kill -0 "$1" 2>/dev/null || [ "$(now_ms)" -gt $deadline ]; then echo fail; return; fi
    sleep 0.02
  done
  echo $(( $(now_ms) - started ))
}

# wrk: "rps p50 p99 non2xx errors"
wrk_run() { # port connections seconds
  local f=$out/wrk-$1-$2.txt
  wrk -t "$(( $2 < 2 ? 1 : 2 ))" -c "$2" -d "${3}s" --timeout 5s --latency -s "$out/post.lua" \
    "https://127.0.0.1:$1/mutate" > "$f" 2>&1 || true
  awk '
    function ms(v) { if (v ~ /us$/) return v/1000; if (v ~ /ms$/) return v+0; if (v ~ /s$/) return v*1000; return v }
    /Requests\/sec/ { rps=$2 }
    /^ +50%/ { p50=ms($2) } /^ +99%/ { p99=ms($2) }
    /Non-2xx/ { bad=$NF }
    /Socket errors/ { err=$0; gsub(/.*connect /,"",err); gsub(/,/,"",err) }
    END { printf "%.0f %.2f %.2f %d %s\n", rps, p50, p99, bad, (err==""?"0":"\"" err "\"") }' "$f"
}
# h2load over HTTP/2 (ALPN h2): "rps p50 p99 non2xx"
h2_run() { # port connections seconds
  local f=$out/h2load-$1-$2.txt log=$out/h2load-$1-$2.log
  rm -f "$log"
  # bounded: h2load 1.52 can run on past -D when a client connects after the others stopped
  # (seen with slow TLS handshakes on a cold JVM)
  timeout "$(( $3 + 60 ))" h2load -c "$2" -t "$(( $2 < 2 ? 1 : 2 ))" -m 1 -D "$3" -d "$body" \
    -H 'content-type: application/json' --log-file="$log" "https://127.0.0.1:$1/mutate" > "$f" 2>&1 || true
  local rps non2xx
  rps=$(awk '/^finished in/ { gsub(/,/,""); print $4 }' "$f")
  non2xx=$(awk '/^status codes:/ { gsub(/,/,""); print $5+$7+$9 }' "$f")
  sort -n -k3 "$log" 2>/dev/null | awk -v rps="${rps:-0}" -v bad="${non2xx:-0}" \
    '{ d[NR]=$3 } END { if (NR==0) { print rps, "-", "-", bad; exit }
       printf "%.0f %.2f %.2f %d\n", rps, d[int(NR*0.5)+1]/1000, d[int(NR*0.99)+1]/1000, bad }'
}

start_server() { # name port -> sets $pid; $started is the time the process was started
  local name=$1 port=$2
  # the second port before the clock starts: a Python process is not part of the start-up
  local port2; port2=$(free_port)
  started=$(now_ms)
  case $name in
    nginx)
      mkdir -p "$out/nginx"
      # a canned file: `return 200 '...'` cannot hold 11 KB, and static files refuse a POST (405),
      # which error_page turns into a GET of the file, answered 200
      cp "$out/answer.json" "$out/nginx/answer.json"
      cat > "$out/nginx/nginx.conf" <<NGINX
worker_processes auto;
daemon off;
pid $out/nginx/nginx.pid;
error_log $out/nginx/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $out/nginx/body;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$port ssl http2;
    ssl_certificate $out/tls/tls.crt;
    ssl_certificate_key $out/tls/tls.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    client_body_buffer_size 64k;
    location = /readyz { default_type text/plain; return 200 "ok\n"; }
    location = /mutate { error_page 405 =200 /answer.json; return 405; }
    location = /answer.json { internal; root $out/nginx; default_type application/json; }
  }
}
NGINX
      "$nginx_bin" -p "$out/nginx" -c "$out/nginx/nginx.conf" > "$out/nginx.log" 2>&1 &
      pid=$! ;;
    josdk-peer)
      # on the same JVM as mesh-injector, with its defaults, as its users would start it
      java=$(MESH_INJECTOR_DRY_RUN=1 "$root/bin/mesh-injector" | awk '{print $1}')
      "$java" -jar "$bench/josdk-peer/target/josdk-peer.jar" --server.port="$port" \
        --server.http2.enabled=true --server.ssl.certificate="file:$out/tls/tls.crt" \
        --server.ssl.certificate-private-key="file:$out/tls/tls.key" \
        --management.server.port="$port2" --spring.main.banner-mode=off \
        > "$out/josdk-peer.log" 2>&1 &
      pid=$! ;;
    mesh-injector)
      MESH_INJECTOR_JAVA_OPTS="${BENCH_JAVA_OPTS:-}" "$root/bin/mesh-injector" serve --cluster "$cluster" \
        --tls-dir "$out/tls" --port "$port" --metrics-port "$port2" > "$out/mesh-injector.log" 2>&1 &
      pid=$! ;;
    netty-boringssl|netty-jdk|netty-canned)
      # the launcher's java and flags (heap, GC, native areas), without its -jar and AOT cache
      local flags=() word ssl=openssl canned=()
      [ "$name" = netty-jdk ] && ssl=jdk
      [ "$name" = netty-canned ] && canned=(--canned="$out/answer.json")
      for word in $(MESH_INJECTOR_DRY_RUN=1 MESH_INJECTOR_JAVA_OPTS="${BENCH_JAVA_OPTS:-}" \
                    "$root/bin/mesh-injector"); do
        case $word in
          -jar) break ;;
          -XX:AOTCache=*|-Xlog:aot*) ;;
          *) flags+=("$word") ;;
        esac
      done
      local cp=$bench/netty-peer/target/netty-peer.jar:$bench/netty-peer/target/lib/*
      cp=$cp:$root/webhook/target/app/mesh-injector.jar
      "${flags[@]}" -cp "$cp" bench.netty.NettyPeer --port="$port" --tls-crt="$out/tls/tls.crt" \
        --tls-key="$out/tls/tls.key" --cluster="$cluster" --ssl="$ssl" "${canned[@]}" > "$out/$name.log" 2>&1 &
      pid=$! ;;
  esac
}

results=()
# nginx (and netty-canned) answer what mesh-injector answers: take that answer first, on a short-lived server
if [[ " $servers " == *" nginx "* || " $servers " == *" netty-canned "* ]]; then
  say "taking mesh-injector's answer for the canned responses"
  port=$(free_port); start_server mesh-injector "$port"
  ready=$(wait_ready "$pid" "$port")
  curl -sk -H 'Content-Type: application/json' --data-binary @"$body" \
    "https://127.0.0.1:$port/mutate" > "$out/answer.json"
  kill "$pid"; wait "$pid" 2>/dev/null || true
  echo "answer: $(wc -c < "$out/answer.json") bytes (a cold start took ${ready} ms)"
fi

for name in $servers; do
  say "$name"
  port=$(free_port)
  start_server "$name" "$port"
  ready=$(wait_ready "$pid" "$port")
  if [ "$ready" = fail ]; then
    echo "$name did not become ready; its log:"; tail -20 "$out/$name.log"
    kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
    results+=("$name ready=fail"); continue
  fi
  echo "ready after $ready ms; warming up for ${warmup}s"
  wrk_run "$port" 16 "$warmup" > /dev/null
  h2_run "$port" 16 "$(( warmup / 2 + 1 ))" > /dev/null
  read -r h1_rps _ _ h1_bad h1_err <<< "$(wrk_run "$port" 16 "$duration")"
  echo "HTTP/1.1 16 connections: $h1_rps req/s, non-2xx $h1_bad, socket errors $h1_err"
  read -r _ h1_p50 h1_p99 h1_bad2 _ <<< "$(wrk_run "$port" 2 "$duration")"
  echo "HTTP/1.1 2 connections: p50 $h1_p50 ms, p99 $h1_p99 ms, non-2xx $h1_bad2"
  read -r h2_rps _ _ h2_bad <<< "$(h2_run "$port" 16 "$duration")"
  echo "HTTP/2 16 connections: $h2_rps req/s, non-2xx $h2_bad"
  read -r _ h2_p50 h2_p99 h2_bad2 <<< "$(h2_run "$port" 2 "$duration")"
  echo "HTTP/2 2 connections: p50 $h2_p50 ms, p99 $h2_p99 ms, non-2xx $h2_bad2"
  rss=$(rss_mib "$pid")
  if [ "$name" = mesh-injector ] && [ -n "${BENCH_NMT:-}" ]; then
    # with BENCH_JAVA_OPTS=-XX:NativeMemoryTracking=summary: where the RSS goes
    "$(dirname "$(MESH_INJECTOR_DRY_RUN=1 "$root/bin/mesh-injector" | awk '{print $1}')")/jcmd" "$pid" \
      VM.native_memory summary > "$out/nmt.txt" 2>&1 || true
  fi
  echo "RSS after load: $rss MiB"
  kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
  results+=("$(printf '%-15s %6s %8s %7s %7s %8s %7s %7s %7s %6s' "$name" "$ready" "$h1_rps" "$h1_p50" "$h1_p99" \
    "$h2_rps" "$h2_p50" "$h2_p99" "$rss" "$(( h1_bad + h1_bad2 + h2_bad + h2_bad2 ))")")
done

say "results ($(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), ${duration}s per run)"
printf '%-15s %6s %8s %7s %7s %8s %7s %7s %7s %6s\n' "server" "ready" "h1 rps" "h1 p50" "h1 p99" \
  "h2 rps" "h2 p50" "h2 p99" "RSS" "non2xx"
printf '%-15s %6s %8s %7s %7s %8s %7s %7s %7s %6s\n' "" "ms" "16 conn" "2c ms" "2c ms" "16 conn" \
  "2c ms" "2c ms" "MiB" ""
printf '%s\n' "${results[@]}" | tee "$out/results.txt"

# -- start-up with the README's example cluster: cold starts through the launcher, to /readyz 200
starts=${BENCH_STARTS:-3}
if [ "$starts" -gt 0 ] && [[ " $servers " == *" mesh-injector "* ]]; then
  aot_file=$root/webhook/target/app/mesh-injector.aot
  variants="no-aot"; [ -f "$aot_file" ] && variants="aot no-aot"
  startup_lines=()
  for variant in $variants; do
    times=()
    for _ in $(seq "$starts"); do
      port=$(free_port)
      port2=$(free_port)
      started=$(now_ms)
      cache=$aot_file; [ "$variant" = no-aot ] && cache=$out/no-such.aot
      MESH_INJECTOR_AOT_CACHE=$cache MESH_INJECTOR_JAVA_OPTS="${BENCH_JAVA_OPTS:-}" \
        "$root/bin/mesh-injector" serve --cluster "$root/examples/cluster.yaml" \
        --tls-dir "$out/tls" --port "$port" --metrics-port "$port2" > "$out/startup.log" 2>&1 &
      pid=$!
      ready=$(wait_ready "$pid" "$port")
      rss=$(rss_mib "$pid")
      kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
      times+=("$ready")
      echo "start-up ($variant, example cluster): ready after $ready ms, RSS at ready $rss MiB"
    done
    median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR]=$1 } END { print v[int((NR+1)/2)] }')
    startup_lines+=("$(printf 'start-up, example cluster, %-6s: median %s ms of %s (%s)' "$variant" \
      "$median" "$starts" "${times[*]}")")
  done
  printf '%s\n' "${startup_lines[@]}" | tee -a "$out/results.txt"
fi
