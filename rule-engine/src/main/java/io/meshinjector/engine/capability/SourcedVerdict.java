package io.meshinjector.engine.capability;

import java.util.Objects;

/**
 * A verdict with its provenance, so {@code explain} can say why a node counts as it does.
 *
 * @param detail a short human reason, e.g. "osImage 'Red Hat Enterprise Linux 8.10 (Ootpa)'"
 */
public record SourcedVerdict(Verdict verdict, Source source, String detail) {
  public SourcedVerdict {
    Objects.requireNonNull(verdict, "verdict");
    Objects.requireNonNull(source, "source");
    detail = detail == null ? "" : detail;
  }

  public static SourcedVerdict unknown(String why) {
    return new SourcedVerdict(Verdict.UNKNOWN, Source.NONE, why);
  }

  @Override
  public String toString() {
    return verdict.id() + " (" + source.id() + (detail.isEmpty() ? "" : ": " + detail) + ")";
  }
}
