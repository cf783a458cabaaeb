package io.meshinjector.plane;

/**
 * The soak profile ({@code ./mvnw -B verify -Psoak}): the scenarios the default suite runs once,
 * repeated at full count for confidence, with the same assertions (docs/testing.md).
 */
public final class Soak {
  private Soak() {}

  /** Whether this run is the soak profile's. */
  public static boolean enabled() {
    return Boolean.getBoolean("soak");
  }

  /** {@code once} in the default suite, {@code soak} under {@code -Psoak}. */
  public static int count(int once, int soak) {
    return enabled() ? soak : once;
  }
}
