#!/usr/bin/env bash
# Where the suite's time goes, read from the last `./mvnw verify`, and whether it keeps to its
# budgets (docs/testing.md, "Budgets"):
#   - each module's wall time, from Maven's reactor summary in the build's log (--maven-log;
#     .ci/run keeps it in target/ci/verify.log), with its budget;
#   - the slowest unit-test classes (*/target/surefire-reports) and each module's unit-test count;
#   - every integration-test class (*/target/failsafe-reports), slowest first, with its budget. A
#     class's time there runs from its first callback to its last, its plane set-up and clean-up
#     included.
# The skipped column counts skipped tests; a class whose every test was skipped, or that was
# aborted in its set-up (no ../shared beside the clone, a missing package), reads "all".
# Exits 1, naming each, when a module or an IT class ran more than 50 % over its budget, or when an
# IT class has no budget; 2 when there is nothing to read.
#
# Usage: tests/times.sh [--maven-log FILE] [--budgets FILE] [--top N]
set -euo pipefail
cd "$(dirname "$0")/.."
log=""
budgets=docs/testing.md
top=12
while [ $# -gt 0 ]; do
  case "$1" in
    --maven-log) log=$2; shift 2 ;;
    --budgets) budgets=$2; shift 2 ;;
    --top) top=$2; shift 2 ;;
    *) echo "usage: tests/times.sh [--maven-log FILE] [--budgets FILE] [--top N]" >&2; exit 2 ;;
  esac
done
shopt -s nullglob
its=(*/target/failsafe-reports/TEST-*.xml)
units=(*/target/surefire-reports/TEST-*.xml)
if [ ${#its[@]} -eq 0 ] && [ ${#units[@]} -eq 0 ]; then
  echo "no surefire or failsafe reports under */target: run ./mvnw -B verify first" >&2
  exit 2
fi

# "name<TAB>seconds" for every row of the budget table: | `name` | seconds | ...
budget_rows() {
  [ -f "$budgets" ] || return 0
  sed -n '/<!-- budgets -->/,/<!-- \/budgets -->/p' "$budgets" \
    | sed -nE 's/^\| *`([^`]+)` *\| *([0-9]+) *\|.*/\1\t\2/p'
}

# one line per report: module, class, seconds, tests, skipped, failed
reports() {
  for report in "$@"; do
    suite=$(grep -m1 -o '<testsuite [^>]*>' "$report")
    attr() { sed -nE "s/.* $1=\"([^\"]*)\".*/\1/p" <<<"$suite"; }
    name=$(attr name)
    failed=$(( $(attr failures) + $(attr errors) ))
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "${report%%/*}" "${name##*.}" "$(attr time)" \
      "$(attr tests)" "$(attr skipped)" "$failed"
  done
}

status=0
over=()

if [ -n "$log" ] && [ -f "$log" ]; then
  # [INFO] mesh-injector :: webhook ....... SUCCESS [05:51 min]  (or [ 32.915 s], [01:02 h])
  modules=$(sed -nE 's/^\[INFO\] mesh-injector :: ([a-z-]+) \.+ ([A-Z]+) \[ *([0-9:.]+) (s|min|h)\]/\1\t\2\t\3\t\4/p' "$log" \
    | awk -F'\t' '{ n = split($3, p, ":"); s = 0;
        if ($4 == "s") s = $3; else if ($4 == "min") s = p[1] * 60 + p[2]; else s = p[1] * 3600 + p[2] * 60;
        printf "%s\t%s\t%.1f\n", $1, $2, s }')
  echo "module                        seconds   budget  result"
  while IFS=$'\t' read -r module result seconds; do
    [ -n "$module" ] || continue
    budget=$(budget_rows | awk -F'\t' -v k="$module" '$1 == k { print $2 }')
    mark=""
    if [ -n "$budget" ] && awk -v s="$seconds" -v b="$budget" 'BEGIN { exit !(s > 1.5 * b) }'; then
      mark="  OVER BUDGET"
      over+=("module $module took $seconds s, over 1.5 x its budget of $budget s")
    fi
    printf '%-28s %8s %8s  %s%s\n' "$module" "$seconds" "${budget:--}" "$result" "$mark"
  done <<<"$modules"
  echo
fi

if [ ${#units[@]} -gt 0 ]; then
  rows=$(reports "${units[@]}")
  echo "unit tests per module          classes    tests  skipped   failed  seconds (summed)"
  awk -F'\t' '{ c[$1]++; t[$1] += $4; k[$1] += $5; f[$1] += $6; s[$1] += $3 }
    END { for (m in c) printf "%-28s %9d %8d %8d %8d %8.1f\n", m, c[m], t[m], k[m], f[m], s[m] }' <<<"$rows" | sort
  echo
  echo "slowest unit-test classes     module              seconds  tests  skipped"
  sort -t$'\t' -k3,3 -g -r <<<"$rows" | head -n "$top" \
    | awk -F'\t' '{ printf "%-29s %-18s %8.1f %6d %8s\n", $2, $1, $3, $4, ($4 > 0 && $5 == $4) || $4 == 0 ? "all" : $5 }'
  echo
fi

if [ ${#its[@]} -gt 0 ]; then
  rows=$(reports "${its[@]}" | sort -t$'\t' -k3,3 -g -r)
  echo "IT class                     module      seconds  tests  skipped  failed   budget"
  total=0
  while IFS=$'\t' read -r module class seconds tests skipped failed; do
    budget=$(budget_rows | awk -F'\t' -v k="$class" '$1 == k { print $2 }')
    skip=$skipped
    if [ "$tests" = 0 ] || { [ "$tests" -gt 0 ] && [ "$skipped" = "$tests" ]; }; then
      skip=all
    fi
    mark=""
    if [ -z "$budget" ]; then
      mark="  NO BUDGET"
      over+=("IT class $class ($module) took $seconds s and has no budget in $budgets")
    elif awk -v s="$seconds" -v b="$budget" 'BEGIN { exit !(s > 1.5 * b) }'; then
      mark="  OVER BUDGET"
      over+=("IT class $class took $seconds s, over 1.5 x its budget of $budget s")
    fi
    printf '%-28s %-10s %8.1f %6d %8s %7d %8s%s\n' "$class" "$module" "$seconds" "$tests" "$skip" \
      "$failed" "${budget:--}" "$mark"
    total=$(awk -v a="$total" -v b="$seconds" 'BEGIN { printf "%.1f", a + b }')
  done <<<"$rows"
  printf '%-28s %-10s %8.1f\n' "total" "" "$total"
fi

if [ ${#over[@]} -gt 0 ]; then
  echo
  for o in "${over[@]}"; do echo "tests/times.sh: $o" >&2; done
  status=1
fi
exit "$status"
