package io.meshinjector.engine.check;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One line of {@code mesh-injector check}: a check that passed, one that warns of what will break,
 * or one that failed because pod creation or injection is broken now. Only a failure makes the
 * command exit non-zero, so a warning must never hide something that breaks pods today.
 */
public sealed interface CheckResult {
  /** The heading the line is printed under, e.g. {@code nodes}. */
  String group();

  /** What was checked, as a short phrase. */
  String name();

  /** What was found. */
  String detail();

  /** How the line ended: pass, warn or fail. */
  Level level();

  /** The symbol {@code linkerd check} users read: √, ‼ or ×. */
  default String symbol() {
    return level().symbol;
  }

  /** {@code pass}, {@code warn} or {@code fail}, for JSON output. */
  default String status() {
    return level().status;
  }

  /** How to fix it; empty for a pass. */
  default String hint() {
    return "";
  }

  /** The three ends of a check, with their symbol and JSON word. */
  enum Level {
    PASS("√", "pass"),
    WARN("‼", "warn"),
    FAIL("×", "fail");

    private final String symbol;
    private final String status;

    Level(String symbol, String status) {
      this.symbol = symbol;
      this.status = status;
    }
  }

  record Pass(String group, String name, String detail) implements CheckResult {
    public Pass {
      requireNamed(group, name);
      detail = detail == null ? "" : detail;
    }

    @Override
    public Level level() {
      return Level.PASS;
    }
  }

  /** Something that will break pods, or that {@code check} could not judge. */
  record Warn(String group, String name, String detail, String hint) implements CheckResult {
    public Warn {
      requireNamed(group, name);
      detail = detail == null ? "" : detail;
      Objects.requireNonNull(hint, "hint");
    }

    @Override
    public Level level() {
      return Level.WARN;
    }
  }

  /** Pod creation or injection broken now: {@code check} exits non-zero. */
  record Fail(String group, String name, String detail, String hint) implements CheckResult {
    public Fail {
      requireNamed(group, name);
      detail = detail == null ? "" : detail;
      Objects.requireNonNull(hint, "hint");
    }

    @Override
    public Level level() {
      return Level.FAIL;
    }
  }

  private static void requireNamed(String group, String name) {
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(name, "name");
  }

  /** The JSON object of {@code check -o json}. */
  default Map<String, Object> toJsonMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("group", group());
    m.put("check", name());
    m.put("status", status());
    m.put("detail", detail());
    m.put("hint", hint().isEmpty() ? null : hint());
    return m;
  }
}
