package io.meshinjector.engine.capability;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.StringJoiner;

/** A node's effective verdict for every key, each with its source. */
public record NodeCapabilities(Map<CapabilityKey, SourcedVerdict> verdicts) {
  public NodeCapabilities {
    EnumMap<CapabilityKey, SourcedVerdict> copy = new EnumMap<>(CapabilityKey.class);
    copy.putAll(verdicts);
    for (CapabilityKey k : CapabilityKey.values()) {
      copy.putIfAbsent(k, SourcedVerdict.unknown("no source knows"));
    }
    verdicts = Collections.unmodifiableMap(copy);
  }

  public SourcedVerdict get(CapabilityKey key) {
    return verdicts.get(key);
  }

  public Verdict verdict(CapabilityKey key) {
    return verdicts.get(key).verdict();
  }

  /**
   * The verdicts and their sources without the free-text details: nodes with equal profiles are one
   * capability class.
   */
  public String profile() {
    StringJoiner j = new StringJoiner(", ");
    verdicts.forEach(
        (k, v) -> j.add(k.id() + "=" + v.verdict().id() + " (" + v.source().id() + ")"));
    return j.toString();
  }

  /** Every verdict with its source and details, as a decision's trace lists a class. */
  public String describe() {
    StringJoiner j = new StringJoiner("; ");
    verdicts.forEach((k, v) -> j.add(k.id() + " " + v));
    return j.toString();
  }

  /** The node labels the webhook publishes for these verdicts. */
  public Map<String, String> labels() {
    Map<String, String> out = new java.util.LinkedHashMap<>();
    verdicts.forEach((k, v) -> out.put(k.label(), v.verdict().id()));
    return out;
  }
}
