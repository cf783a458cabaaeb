#!/usr/bin/env bash
# The wall time of each integration-test class of the last `./mvnw verify`, slowest first, and
# their total, read from the failsafe reports (*/target/failsafe-reports/TEST-*.xml): a class's
# time there runs from its first callback to its last, its plane set-up and clean-up included.
# .ci/run prints it at the end of every run; docs/testing.md says what is expected where.
set -euo pipefail
cd "$(dirname "$0")/.."
shopt -s nullglob
reports=(*/target/failsafe-reports/TEST-*.xml)
if [ ${#reports[@]} -eq 0 ]; then
  echo "no failsafe reports under */target/failsafe-reports: run ./mvnw -B verify first" >&2
  exit 1
fi
attr() { sed -nE "s/.* $1=\"([^\"]*)\".*/\1/p" <<<"$2"; }
{
  for report in "${reports[@]}"; do
    suite=$(grep -m1 -o '<testsuite [^>]*>' "$report")
    name=$(attr name "$suite")
    time=$(attr time "$suite")
    tests=$(attr tests "$suite")
    skipped=$(attr skipped "$suite")
    failed=$(( $(attr failures "$suite") + $(attr errors "$suite") ))
    printf '%s\t%s\t%s\t%s\t%s\n' "${time:-0}" "${name##*.}" "$tests" "$skipped" "$failed"
  done
} | sort -t$'\t' -k1,1 -g -r | awk -F'\t' '
  BEGIN { printf "%-28s %9s %6s %8s %7s\n", "IT class", "seconds", "tests", "skipped", "failed" }
  { printf "%-28s %9.1f %6d %8d %7d\n", $2, $1, $3, $4, $5; total += $1 }
  END { printf "%-28s %9.1f\n", "total", total }'
