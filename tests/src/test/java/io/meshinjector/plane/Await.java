package io.meshinjector.plane;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Polling with a deadline: what the plane's controllers do happens a moment later. */
public final class Await {
  private Await() {}

  public static void until(String what, Duration limit, BooleanSupplier condition) {
    until(what, limit, condition, () -> "");
  }

  /** Fails with {@code detail} (read at the deadline) when {@code condition} never held. */
  public static void until(
      String what, Duration limit, BooleanSupplier condition, Supplier<String> detail) {
    long deadline = System.nanoTime() + limit.toNanos();
    RuntimeException last = null;
    while (true) {
      try {
        if (condition.getAsBoolean()) {
          return;
        }
      } catch (RuntimeException e) {
        last = e;
      }
      if (System.nanoTime() > deadline) {
        AssertionError error =
            new AssertionError("not within " + limit + ": " + what + ". " + detail.get());
        if (last != null) {
          error.initCause(last);
        }
        throw error;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what);
      }
    }
  }
}
