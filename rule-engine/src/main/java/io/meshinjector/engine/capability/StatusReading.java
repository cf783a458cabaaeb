package io.meshinjector.engine.capability;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A {@code NodeCapability}'s {@code status} as written by whoever could write it, read without
 * trusting it: what is usable is kept, what is not counts as {@code unknown}, and each problem is
 * named so the caller can warn about it. Reading never throws.
 *
 * @param status the usable part, or null when nothing is (no status, no usable {@code observedAt});
 *     a null status means the probe knows nothing about the node
 * @param problems one sentence per field that was missing or wrong, empty for a clean status
 */
public record StatusReading(NodeCapabilityStatus status, List<String> problems) {
  public StatusReading {
    problems = List.copyOf(problems);
  }

  /** Whether {@code problem} cost only a verdict's source label, never the verdict. */
  public static boolean labelOnly(String problem) {
    return problem.startsWith(SOURCES + ".") || problem.startsWith(SOURCES + " ");
  }

  private static final String SOURCES = "status.sources";

  /** Reads the value found under {@code status}, whatever its type. */
  public static StatusReading of(Object raw) {
    List<String> problems = new ArrayList<>();
    if (raw == null) {
      problems.add("no status: the probe has not reported");
      return new StatusReading(null, problems);
    }
    if (!(raw instanceof Map<?, ?> status)) {
      problems.add("status is " + typeOf(raw) + ", not a map");
      return new StatusReading(null, problems);
    }
    Instant observedAt = observedAt(status.get("observedAt"), problems);
    Map<CapabilityKey, Verdict> caps = capabilities(status.get("capabilities"), problems);
    Map<String, String> facts = facts(status.get("facts"), problems);
    Map<CapabilityKey, ProbeSource> sources = sources(status.get("sources"), problems);
    if (observedAt == null) {
      // without a time the verdicts cannot expire, so none of them can be used
      return new StatusReading(null, problems);
    }
    return new StatusReading(new NodeCapabilityStatus(observedAt, caps, facts, sources), problems);
  }

  private static Instant observedAt(Object observed, List<String> problems) {
    if (observed == null) {
      problems.add("status.observedAt is missing");
      return null;
    }
    if (!(observed instanceof String text)) {
      problems.add("status.observedAt is " + typeOf(observed) + ", not an RFC 3339 time");
      return null;
    }
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      problems.add("status.observedAt '" + abbreviate(text) + "' is not an RFC 3339 time");
      return null;
    }
  }

  private static Map<CapabilityKey, Verdict> capabilities(Object raw, List<String> problems) {
    Map<CapabilityKey, Verdict> caps = new EnumMap<>(CapabilityKey.class);
    if (raw == null) {
      return caps;
    }
    if (!(raw instanceof Map<?, ?> map)) {
      problems.add("status.capabilities is " + typeOf(raw) + ", not a map");
      return caps;
    }
    for (Map.Entry<?, ?> e : map.entrySet()) {
      // keys this version does not know are ignored, so a newer probe does not break an older
      // webhook; a known key with a bad verdict counts as unknown
      var key = CapabilityKey.fromId(String.valueOf(e.getKey()));
      if (key.isEmpty()) {
        continue;
      }
      Object value = e.getValue();
      var verdict = value instanceof String s ? Verdict.fromId(s).filter(key.get()::accepts) : null;
      if (verdict == null || verdict.isEmpty()) {
        problems.add(
            "status.capabilities."
                + key.get().id()
                + " is "
                + (value instanceof String s ? "'" + abbreviate(s) + "'" : typeOf(value))
                + ", not one of "
                + key.get().verdicts().stream().map(Verdict::id).toList());
        continue;
      }
      caps.put(key.get(), verdict.get());
    }
    return caps;
  }

  /** Sources only label verdicts for a reader: a bad one is dropped, never the verdict. */
  private static Map<CapabilityKey, ProbeSource> sources(Object raw, List<String> problems) {
    Map<CapabilityKey, ProbeSource> sources = new EnumMap<>(CapabilityKey.class);
    if (raw == null) {
      return sources;
    }
    if (!(raw instanceof Map<?, ?> map)) {
      problems.add(SOURCES + " is " + typeOf(raw) + ", not a map");
      return sources;
    }
    for (Map.Entry<?, ?> e : map.entrySet()) {
      var key = CapabilityKey.fromId(String.valueOf(e.getKey()));
      if (key.isEmpty()) {
        continue;
      }
      Object value = e.getValue();
      Optional<ProbeSource> source =
          value instanceof String s ? ProbeSource.fromId(s) : Optional.empty();
      if (source.isEmpty()) {
        problems.add(
            SOURCES
                + "."
                + key.get().id()
                + " is "
                + (value instanceof String s ? "'" + abbreviate(s) + "'" : typeOf(value))
                + ", not one of [active, files]");
        continue;
      }
      sources.put(key.get(), source.get());
    }
    return sources;
  }

  private static Map<String, String> facts(Object raw, List<String> problems) {
    Map<String, String> facts = new LinkedHashMap<>();
    if (raw == null) {
      return facts;
    }
    if (!(raw instanceof Map<?, ?> map)) {
      problems.add("status.facts is " + typeOf(raw) + ", not a map");
      return facts;
    }
    map.forEach((k, v) -> facts.put(String.valueOf(k), String.valueOf(v)));
    return facts;
  }

  private static String typeOf(Object value) {
    if (value == null) {
      return "null";
    }
    if (value instanceof Map<?, ?>) {
      return "a map";
    }
    if (value instanceof List<?>) {
      return "a list";
    }
    if (value instanceof String) {
      return "a string";
    }
    if (value instanceof Boolean) {
      return "a boolean";
    }
    if (value instanceof Number) {
      return "a number (" + value + ")";
    }
    return "a " + value.getClass().getSimpleName();
  }

  /** Quoted values come from the object's writer: keep warnings one short line. */
  private static String abbreviate(String s) {
    String one = s.replaceAll("\\p{Cntrl}", "?");
    return one.length() <= 64 ? one : one.substring(0, 61) + "...";
  }
}
