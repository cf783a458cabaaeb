#!/usr/bin/env bash
# The webhook as the API server sees it, in one command: pod bursts through Deployments on the real
# control plane (etcd, kube-apiserver, scheduler and controller-manager v1.32 from
# ../shared/kube-api-test), with the chart's own webhook configuration pointed by URL at one
# `serve`, at three behind HAProxy, and at the one-label Java Operator SDK peer
# (tests/bench/josdk-peer), in one run. Reads the API server's
# apiserver_admission_webhook_admission_duration_seconds and apiserver_admission_webhook_request_total
# before and after each burst; prints per target the calls per pod, the mean and the p99 bucket of
# the cold burst (the first after the target started) and of the warm ones
# (tests/src/test/java/io/meshinjector/realplane/ApiServerBurstBench.java). Not part of `verify`.
#
#   tests/bench/apiserver-burst.sh [--sizes 200,1000] [--rounds 3] [--targets one,three,peer[,peer-inject]]
#                                  [--aot on|off] [--jfr] [--nodes 6] [--no-build]
#
#   --sizes    replicas per burst; every size starts each target afresh (its first burst is cold)
#   --rounds   bursts per size and target, the first cold (default 3: one cold, two warm)
#   --aot      on (default): serve with the JDK's AOT cache, trained by the build on a Java 25;
#              off: without it (and the build skips training it)
#   --jfr      record a JFR file (settings=profile) per serve process, in the output folder
#   --no-build use the jars already built
# Output: tests/target/burst/results.txt (BURST_OUT=DIR to change), and the JFR files there.
# Run it alone on the machine: the figures are the API server's waits, which anything else running
# on the same cores inflates.
set -euo pipefail

bench=$(cd "$(dirname "$0")" && pwd -P)
root=$(cd "$bench/../.." && pwd -P)
sizes=200,1000 rounds=3 targets=one,three,peer aot=on jfr=false nodes=6 build=yes
while [ $# -gt 0 ]; do
  case $1 in
    --sizes) sizes=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --targets) targets=$2; shift 2 ;;
    --aot) aot=$2; shift 2 ;;
    --jfr) jfr=true; shift ;;
    --nodes) nodes=$2; shift 2 ;;
    --no-build) build=no; shift ;;
    *) echo "apiserver-burst.sh: unknown option $1 (see the comment at the top)" >&2; exit 2 ;;
  esac
done
case $aot in on|off) ;; *) echo "apiserver-burst.sh: --aot on|off" >&2; exit 2 ;; esac
out=${BURST_OUT:-$root/tests/target/burst}

if [ "$build" = yes ] && [ ! -f "$bench/josdk-peer/target/josdk-peer.jar" ]; then
  (cd "$root" && ./mvnw -B -q -DskipTests -f tests/bench/josdk-peer/pom.xml package)
fi
skip_aot=()
[ "$aot" = off ] && skip_aot=(-Daot.skip=true)
# the webhook's jar (and, with --aot on and a Java 25, its AOT cache) built on the way; no unit
# tests, and only this one integration test
cd "$root"
exec ./mvnw -B -o -pl tests -am verify "${skip_aot[@]}" -Dspotless.check.skip=true \
  -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false \
  -Dit.test=ApiServerBurstBench -Dburst.run=true -Dburst.sizes="$sizes" -Dburst.rounds="$rounds" \
  -Dburst.targets="$targets" -Dburst.aot="$aot" -Dburst.jfr="$jfr" -Dburst.nodes="$nodes" \
  -Dburst.out="$out"
