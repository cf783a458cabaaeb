#!/usr/bin/env bash
# Large clusters on the real control plane: creates N realistic Nodes (tests/.../plane/RealisticNodes:
# EKS-shaped, 23 labels, 50 images each) and runs LargeClusterIT against them, which prints one line of
# figures per heap for serve (time to ready, peak heap after GC, RSS at ready and after a burst of
# 1,000 pods the API server admits through it), and one each for `explain -n` and `check` (which
# fails past CHECK_SECONDS, default 10). Needs ../shared/kube-api-test beside the clone. Run alone:
# no other build or benchmark on the machine, or the times mean nothing.
#
#   tests/bench/large-cluster.sh [NODES...]      default: 1000 5000
#   LARGE_HEAPS=limit=384Mi,96m tests/bench/large-cluster.sh 5000
#       serve once per heap: limit=Q for what the launcher derives from a container memory limit Q,
#       or max[/initial] as MESH_INJECTOR_MAX_HEAP/_MIN_HEAP, or empty for the launcher default
#       outside a container; default: limit=384Mi (the chart default) and the launcher default
#   BURST_VIA=direct   post the 1,000 admissions to serve itself instead of through the API server
#   ONLY=serve         only serve's run (not explain and check)
#   NODES may be a comma list, increasing (5000,10000): one plane, nodes added between serve runs
#   CHURN=14           node status writes per second while serve starts and admits (0: none)
#   BUILDS=before=JAR,after=JAR ROUNDS=3   builds to compare, interleaved on one plane (each jar with
#                      its AOT cache beside it): before, after, before, after, ...
set -euo pipefail
cd "$(dirname "$0")/../.."
nodes=${*:-1000 5000}
heaps=${LARGE_HEAPS:-limit=384Mi,}
for n in $nodes; do
  log=$(mktemp)
  echo "load before: $(uptime)"
  # the modules it needs built on the way (nothing is taken from ~/.m2's snapshots), the webhook
  # with its AOT cache, as the image runs: the cache is part of the process's memory
  ./mvnw -B -pl tests -am verify -Dit.test="LargeClusterIT${ONLY:+#${ONLY}*}" -Dtest=none -Dlarge.checkSeconds="${CHECK_SECONDS:-10}" \
    -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false \
    -Dspotless.check.skip=true -Dlarge.nodes="$n" -Dlarge.heaps="$heaps" -Dlarge.burst=1000 -Dlarge.burstVia="${BURST_VIA:-apiserver}" -Dlarge.churn="${CHURN:-14}" -Dplane.requestTimeoutSeconds=120 -Dlarge.builds="${BUILDS:-}" -Dlarge.rounds="${ROUNDS:-1}" \
    >"$log" 2>&1 || true
  echo "load after: $(uptime)"
  grep -E '^LargeClusterIT:|Tests run:.*LargeClusterIT|FAILURE!' "$log" || tail -30 "$log"
  rm -f "$log"
done
