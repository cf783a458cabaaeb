#!/usr/bin/env bash
# Start-up variants, in one command (about 10 minutes on a 2-core machine with 5 starts each):
#
#   tests/bench/startup.sh
#
# Times `serve` with the README's example cluster (examples/cluster.yaml) from process start to the
# first 200 on /readyz, and takes the RSS then, for each way of starting it:
#   none             the launcher, no archive of any kind, Spring AOT off (as for all but spring-aot*)
#   jdk-aot          the launcher with a JDK 25 AOT cache (-XX:AOTCache), trained by bin/train-aot-cache
#   cds25            the launcher with a dynamic AppCDS archive (-XX:SharedArchiveFile), written by
#                    the same training run with -XX:ArchiveClassesAtExit, on Java 25
#   cds17            the same on Java 17 (the launcher's java command with Java 17's binary and the
#                    Java 25-only flags dropped; the launcher itself is not in the timed window)
#   cds17-boot       as cds17, the archive written by Spring Boot's own training instead
#                    (-Dspring.context.exit=onRefresh: the context refreshes, then the JVM exits)
#   spring-aot       the launcher with -Dspring.aot.enabled=true (bean definitions generated at build
#                    time by spring-boot-maven-plugin's process-aot), no archive
#   spring-aot+jdk-aot  both, the cache trained with Spring AOT on
#   spring-aot+cds25    Spring AOT with a dynamic AppCDS archive trained with it on
# The starts go round-robin across the variants (start 1 of each, then start 2 of each, ...), so a
# change in the machine's load falls on every variant alike; the load average is printed with each
# round. The certificate is written before (not generated in the timed window). Besides the wall
# time, each start reports the CPU time (user + system) the JVM had used when /readyz first answered:
# on a loaded machine the wall time mostly says how long the JVM waited for a core, the CPU time
# what the start cost.
#
# Environment (all optional):
#   STARTUP_RUNS=5          starts per variant
#   STARTUP_VARIANTS="..."  which variants (default: all of the above)
#   BENCH_SKIP_BUILD=1      use the jar already built (webhook/target/app)
#   STARTUP_REUSE=1         keep the archives of an earlier run (same jar) instead of training anew
#   BENCH_OUT=DIR           where archives, logs and results go (default tests/bench/target/startup)
#   JAVA17_HOME=DIR         the Java 17 for cds17 (default /usr/lib/jvm/java-17-openjdk-amd64)
set -euo pipefail

bench=$(cd "$(dirname "$0")" && pwd -P)
root=$(cd "$bench/../.." && pwd -P)
out=${BENCH_OUT:-$bench/target/startup}
runs=${STARTUP_RUNS:-5}
variants=${STARTUP_VARIANTS:-none jdk-aot cds25 cds17 cds17-boot spring-aot spring-aot+jdk-aot spring-aot+cds25}
java17_home=${JAVA17_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
cluster=$root/examples/cluster.yaml
launcher=$root/bin/mesh-injector
mkdir -p "$out"
exec > >(tee "$out/run.log") 2>&1
say() { printf '\n== %s (%s, load average %s)\n' "$*" "$(date -u +%H:%M:%S)" "$(cut -d' ' -f1-3 /proc/loadavg)"; }

if [ "${BENCH_SKIP_BUILD:-}" != 1 ]; then
  say "building mesh-injector (with Spring AOT's generated classes; archives are trained below)"
  (cd "$root" && ./mvnw -B -q -DskipTests -Daot.skip=true package -pl webhook -am)
fi
jar=$root/webhook/target/app/mesh-injector.jar
[ -f "$jar" ] || { echo "no $jar: build first" >&2; exit 1; }
listing=$(unzip -Z1 "$jar")
grep -q 'WebhookApplication__ApplicationContextInitializer' <<< "$listing" ||
  echo "warning: $jar holds no Spring AOT classes: the spring-aot variants will fail"

rm -rf "$out/tls"
MESH_INJECTOR_JAVA_OPTS= "$launcher" certs --out "$out/tls" --dns localhost >/dev/null
none=$out/no-such-cache.aot
# bin/jvm.options turns Spring AOT on; the variants without it turn it off (the later flag wins)
spring_aot=-Dspring.aot.enabled=true
no_spring_aot=-Dspring.aot.enabled=false

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
now_ms() { date +%s%3N; }
rss_mib() { ps -o rss= -p "$1" 2>/dev/null | awk '{s+=$1} END {printf "%.0f", s/1024}'; }
cpu_s() { # user + system CPU seconds of a process so far (fields 14 and 15 of /proc/PID/stat)
  awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.1f", ($12 + $13) / hz }' "/proc/$1/stat" 2>/dev/null || echo -
}

# the java command the launcher would run, on Java 17: its binary, without the Java 25-only flags
java17_command() { # extra JVM flags...; then "--", serve's arguments
  local extra=() cmd
  while [ "$1" != -- ]; do extra+=("$1"); shift; done
  shift
  cmd=$(MESH_INJECTOR_DRY_RUN=1 MESH_INJECTOR_AOT_CACHE=$none MESH_INJECTOR_JAVA_OPTS= "$launcher" serve "$@")
  set -f
  local words=() w first=1
  for w in $cmd; do
    if [ $first = 1 ]; then words+=("$java17_home/bin/java"); first=0; continue; fi
    case $w in -XX:TrimNativeHeapInterval=*|--enable-native-access=*) continue ;; esac
    if [ "$w" = -jar ]; then words+=("$no_spring_aot" "${extra[@]}"); fi
    words+=("$w")
  done
  set +f
  printf '%s\n' "${words[@]}"
}

# -- training runs: serve posts the typical pod to itself (bin/train-aot-cache's workload) and exits
train_cds25() { # archive, extra JVM flags
  local work; work=$(mktemp -d)
  MESH_INJECTOR_AOT_CACHE=$none \
    MESH_INJECTOR_JAVA_OPTS="-XX:ArchiveClassesAtExit=$1 -Dmesh-injector.aot.train=true ${2:-}" \
    "$launcher" serve --cluster "$cluster" --tls-dir "$work/tls" --port 0 --metrics-port 0 \
    > "$out/train-$(basename "$1").log" 2>&1 || { tail -20 "$out/train-$(basename "$1").log"; exit 1; }
  rm -rf "$work"
}
trained() { [ "${STARTUP_REUSE:-}" = 1 ] && [ -s "$1" ] && echo "reusing $1"; }
for v in $variants; do
  case $v in
    none|spring-aot) continue ;;
  esac
  f=$out/$(case $v in jdk-aot) echo jdk.aot ;; spring-aot+jdk-aot) echo spring-jdk.aot ;;
    spring-aot+cds25) echo spring-cds25.jsa ;; *) echo "$v.jsa" ;; esac)
  trained "$f" && continue
  rm -f "$f"
  case $v in
    jdk-aot)
      say "training the JDK AOT cache"
      MESH_INJECTOR_AOT_CACHE=$out/jdk.aot MESH_INJECTOR_JAVA_OPTS=$no_spring_aot \
        "$root/bin/train-aot-cache" "$cluster" ;;
    spring-aot+jdk-aot)
      say "training the JDK AOT cache with Spring AOT on"
      MESH_INJECTOR_AOT_CACHE=$out/spring-jdk.aot MESH_INJECTOR_JAVA_OPTS=$spring_aot \
        "$root/bin/train-aot-cache" "$cluster" ;;
    cds25)
      say "writing the AppCDS archive on Java 25"
      train_cds25 "$out/cds25.jsa" "$no_spring_aot" ;;
    spring-aot+cds25)
      say "writing the AppCDS archive on Java 25 with Spring AOT on"
      train_cds25 "$out/spring-cds25.jsa" "$spring_aot" ;;
    cds17)
      say "writing the AppCDS archive on Java 17"
      work=$(mktemp -d)
      mapfile -t cmd < <(java17_command "-XX:ArchiveClassesAtExit=$out/cds17.jsa" \
        -Dmesh-injector.aot.train=true -- --cluster "$cluster" --tls-dir "$work/tls" --port 0 --metrics-port 0)
      "${cmd[@]}" > "$out/train-cds17.log" 2>&1 || { tail -20 "$out/train-cds17.log"; exit 1; }
      rm -rf "$work" ;;
    cds17-boot)
      say "writing the AppCDS archive on Java 17 with -Dspring.context.exit=onRefresh"
      work=$(mktemp -d)
      mapfile -t cmd < <(java17_command "-XX:ArchiveClassesAtExit=$out/cds17-boot.jsa" \
        -Dspring.context.exit=onRefresh -- --cluster "$cluster" --tls-dir "$work/tls" --port 0 --metrics-port 0)
      "${cmd[@]}" > "$out/train-cds17-boot.log" 2>&1 || true
      [ -s "$out/cds17-boot.jsa" ] || { tail -20 "$out/train-cds17-boot.log"; exit 1; }
      rm -rf "$work" ;;
  esac
done

# -- one timed start: sets $ready (ms or "fail") and $rss (MiB)
start_variant() { # variant
  local port port2 pid cache=$none opts=$no_spring_aot
  port=$(free_port); port2=$(free_port)
  local args=(--cluster "$cluster" --tls-dir "$out/tls" --port "$port" --metrics-port "$port2")
  case $1 in
    none) ;;
    jdk-aot) cache=$out/jdk.aot ;;
    cds25) opts="-XX:SharedArchiveFile=$out/cds25.jsa $no_spring_aot" ;;
    spring-aot) opts=$spring_aot ;;
    spring-aot+jdk-aot) cache=$out/spring-jdk.aot; opts=$spring_aot ;;
    spring-aot+cds25) opts="-XX:SharedArchiveFile=$out/spring-cds25.jsa $spring_aot" ;;
    cds17|cds17-boot) mapfile -t cmd < <(java17_command "-XX:SharedArchiveFile=$out/$1.jsa" -- "${args[@]}") ;;
    *) echo "unknown variant $1" >&2; exit 2 ;;
  esac
  local log=$out/start-$1.log
  started=$(now_ms)
  case $1 in
    cds17*) "${cmd[@]}" > "$log" 2>&1 & ;;
    *) MESH_INJECTOR_AOT_CACHE=$cache MESH_INJECTOR_JAVA_OPTS=$opts "$launcher" serve "${args[@]}" > "$log" 2>&1 & ;;
  esac
  pid=$!
  local deadline=$(( started + 120000 ))
  ready=fail
  until curl -sfk -o /dev/null "https://127.0.0.1:$port/readyz"; do
    if ! kill -0 "$pid" 2>/dev/null || [ "$(now_ms)" -gt $deadline ]; then break; fi
    sleep 0.02
  done
  curl -sfk -o /dev/null "https://127.0.0.1:$port/readyz" && ready=$(( $(now_ms) - started ))
  rss=$(rss_mib "$pid")
  cpu=$(cpu_s "$pid")
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  if [ "$ready" = fail ]; then echo "$1 did not become ready; its log:"; tail -20 "$log"; fi
}

declare -A times rsses cpus
for run in $(seq "$runs"); do
  say "round $run of $runs"
  for v in $variants; do
    start_variant "$v"
    times[$v]="${times[$v]:-} $ready"
    rsses[$v]="${rsses[$v]:-} $rss"
    cpus[$v]="${cpus[$v]:-} $cpu"
    printf '%-20s ready after %6s ms, CPU %5s s, RSS at ready %4s MiB\n' "$v" "$ready" "$cpu" "$rss"
  done
done

say "results: start to /readyz 200 with examples/cluster.yaml, $runs starts each, round-robin"
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR]=$1 } END { if (NR==0) print "-"; else print v[int((NR+1)/2)] }'; }
{
  printf '| variant | median ms | min–max ms | starts (ms) | CPU to ready, median s | RSS at ready, median MiB |\n'
  printf '|---|---|---|---|---|---|\n'
  for v in $variants; do
    t=${times[$v]}
    sorted=$(tr ' ' '\n' <<< "$t" | grep -v '^$' | sort -n)
    printf '| %s | %s | %s–%s | %s | %s | %s |\n' "$v" "$(median <<< "$t")" "$(head -1 <<< "$sorted")" \
      "$(tail -1 <<< "$sorted")" "$(echo $t)" "$(median <<< "${cpus[$v]}")" "$(median <<< "${rsses[$v]}")"
  done
  printf '\nJava: %s; %s\n' "$("$root/bin/mesh-injector" --version 2>/dev/null | head -1)" \
    "$(MESH_INJECTOR_DRY_RUN=1 "$launcher" | awk '{print $1}')"
  printf 'load average at the end: %s; %s cores\n' "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)"
} | tee "$out/results.md"
