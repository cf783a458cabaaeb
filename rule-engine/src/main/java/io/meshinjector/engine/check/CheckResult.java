package io.meshinjector.engine.check;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One line of {@code mesh-injector check}: a check that passed, one that warns of what will break,
 * or one that failed because pod creation or injection is broken now. Only a failure makes the
 * command exit non-zero, so a warning must never hide something that breaks pods today.
 *
 * @param level how the line ended
 * @param group the heading the line is printed under, e.g. {@code nodes}
 * @param name what was checked, as a short phrase
 * @param detail what was found
 * @param hint how to fix it; empty for a pass, never empty for a warning or a failure
 */
public record CheckResult(Level level, String group, String name, String detail, String hint) {

  /** The three ends of a check, with their symbol and JSON word. */
  public enum Level {
    PASS("√", "pass"),
    /** Something that will break pods, or that {@code check} could not judge. */
    WARN("‼", "warn"),
    /** Pod creation or injection broken now: {@code check} exits non-zero. */
    FAIL("×", "fail");

    private final String symbol;
    private final String status;

    Level(String symbol, String status) {
      this.symbol = symbol;
      this.status = status;
    }
  }

  public CheckResult {
    Objects.requireNonNull(level, "level");
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(name, "name");
    detail = detail == null ? "" : detail;
    Objects.requireNonNull(hint, "hint");
    if (level == Level.PASS && !hint.isEmpty()) {
      throw new IllegalArgumentException("a pass has no hint: " + hint);
    }
  }

  public static CheckResult pass(String group, String name, String detail) {
    return new CheckResult(Level.PASS, group, name, detail, "");
  }

  public static CheckResult warn(String group, String name, String detail, String hint) {
    return new CheckResult(Level.WARN, group, name, detail, hint);
  }

  public static CheckResult fail(String group, String name, String detail, String hint) {
    return new CheckResult(Level.FAIL, group, name, detail, hint);
  }

  /** Whether this line makes {@code check} exit non-zero. */
  public boolean failed() {
    return level == Level.FAIL;
  }

  /** The symbol {@code linkerd check} users read: √, ‼ or ×. */
  public String symbol() {
    return level.symbol;
  }

  /** {@code pass}, {@code warn} or {@code fail}, for JSON output. */
  public String status() {
    return level.status;
  }

  /** The JSON object of {@code check -o json}. */
  public Map<String, Object> toJsonMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("group", group);
    m.put("check", name);
    m.put("status", status());
    m.put("detail", detail);
    m.put("hint", hint.isEmpty() ? null : hint);
    return m;
  }
}
