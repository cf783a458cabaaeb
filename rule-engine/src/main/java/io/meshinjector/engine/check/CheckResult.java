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

  /** The symbol {@code linkerd check} users read: √, ‼ or ×. */
  String symbol();

  /** {@code pass}, {@code warn} or {@code fail}, for JSON output. */
  String status();

  /** How to fix it; empty for a pass. */
  default String hint() {
    return "";
  }

  record Pass(String group, String name, String detail) implements CheckResult {
    public Pass {
      Objects.requireNonNull(group, "group");
      Objects.requireNonNull(name, "name");
      detail = detail == null ? "" : detail;
    }

    @Override
    public String symbol() {
      return "√";
    }

    @Override
    public String status() {
      return "pass";
    }
  }

  record Warn(String group, String name, String detail, String hint) implements CheckResult {
    public Warn {
      Objects.requireNonNull(group, "group");
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(hint, "hint");
      detail = detail == null ? "" : detail;
    }

    @Override
    public String symbol() {
      return "‼";
    }

    @Override
    public String status() {
      return "warn";
    }
  }

  record Fail(String group, String name, String detail, String hint) implements CheckResult {
    public Fail {
      Objects.requireNonNull(group, "group");
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(hint, "hint");
      detail = detail == null ? "" : detail;
    }

    @Override
    public String symbol() {
      return "×";
    }

    @Override
    public String status() {
      return "fail";
    }
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
