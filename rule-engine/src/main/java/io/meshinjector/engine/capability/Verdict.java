package io.meshinjector.engine.capability;

import java.util.Arrays;
import java.util.Optional;

/** What a node can do for one {@link CapabilityKey}; each key accepts three of these. */
public enum Verdict {
  AVAILABLE("available"),
  UNAVAILABLE("unavailable"),
  READY("ready"),
  ABSENT("absent"),
  SUPPORTED("supported"),
  UNSUPPORTED("unsupported"),
  PRESENT("present"),
  LINUX("linux"),
  WINDOWS("windows"),
  UNKNOWN("unknown");

  private final String id;

  Verdict(String id) {
    this.id = id;
  }

  public String id() {
    return id;
  }

  public static Optional<Verdict> fromId(String id) {
    if (id == null) {
      return Optional.empty();
    }
    String wanted = id.trim();
    return Arrays.stream(values()).filter(v -> v.id.equals(wanted)).findFirst();
  }

  @Override
  public String toString() {
    return id;
  }
}
