#!/usr/bin/env bash
# Large clusters on the real control plane: creates N realistic Nodes (tests/.../plane/RealisticNodes:
# EKS-shaped, 23 labels, 50 images each) and runs LargeClusterIT against them, which prints one line of
# figures for serve (time to ready, peak heap after GC, RSS at ready and after 1,000 admissions) and
# one each for `explain -n` and `check` (which fails past CHECK_SECONDS, default 10). Needs
# ../shared/kube-api-test beside the clone. Run alone: no other build or benchmark on the machine, or
# the times mean nothing.
#
#   tests/bench/large-cluster.sh [NODES...]      default: 1000 5000
#   LARGE_HEAP=307m tests/bench/large-cluster.sh 5000    the heap the chart's 512 Mi limit gives
set -euo pipefail
cd "$(dirname "$0")/../.."
nodes=${*:-1000 5000}
./mvnw -B -q -DskipTests -Daot.skip=true package >/dev/null
for n in $nodes; do
  log=$(mktemp)
  ./mvnw -B -o -pl tests verify -Dit.test=LargeClusterIT -Dtest=none -Dlarge.checkSeconds="${CHECK_SECONDS:-10}" \
    -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false \
    -Dspotless.check.skip=true -Dlarge.nodes="$n" -Dlarge.heap="${LARGE_HEAP:-}" -Dlarge.burst=1000 >"$log" 2>&1 || true
  grep -E '^LargeClusterIT:|Tests run:.*LargeClusterIT|FAILURE!' "$log" || tail -30 "$log"
  rm -f "$log"
done
