package io.meshinjector.engine.check;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Every check's result, in the order they ran, grouped for printing. */
public record CheckReport(List<CheckResult> results) {
  public CheckReport {
    results = List.copyOf(results);
  }

  public boolean failed() {
    return results.stream().anyMatch(CheckResult::failed);
  }

  public long count(CheckResult.Level level) {
    return results.stream().filter(r -> r.level() == level).count();
  }

  /**
   * As {@code linkerd check} prints it: a heading per group with a rule under it, one line per
   * check, the hint indented under a warning or failure, and a status line at the end.
   */
  public String text() {
    Map<String, List<CheckResult>> groups = new LinkedHashMap<>();
    for (CheckResult r : results) {
      groups.computeIfAbsent(r.group(), g -> new ArrayList<>()).add(r);
    }
    StringBuilder s = new StringBuilder();
    groups.forEach(
        (group, rs) -> {
          s.append(group).append('\n').append("-".repeat(group.length())).append('\n');
          for (CheckResult r : rs) {
            s.append(r.symbol()).append(' ').append(r.name());
            if (!r.detail().isEmpty()) {
              s.append(": ").append(r.detail());
            }
            s.append('\n');
            if (!r.hint().isEmpty()) {
              s.append("    see: ").append(r.hint()).append('\n');
            }
          }
          s.append('\n');
        });
    long fails = count(CheckResult.Level.FAIL);
    long warns = count(CheckResult.Level.WARN);
    s.append("Status check results are ")
        .append(fails > 0 ? "×" : "√")
        .append(" (")
        .append(results.size() - fails - warns)
        .append(" passed, ")
        .append(warns)
        .append(" warnings, ")
        .append(fails)
        .append(" failed)\n");
    return s.toString();
  }

  /** The JSON document of {@code check -o json}. */
  public Map<String, Object> toJsonMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("success", !failed());
    m.put("checks", results.stream().map(CheckResult::toJsonMap).toList());
    return m;
  }
}
