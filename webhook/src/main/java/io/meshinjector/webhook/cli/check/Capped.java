package io.meshinjector.webhook.cli.check;

import java.util.List;

/** A list in a message, cut after a few items: a cluster may have thousands. */
public final class Capped {
  /** How many items a line of {@code check} or {@code tag} names before it counts the rest. */
  public static final int ITEMS = 10;

  private Capped() {}

  /** {@code a, b, c and 7 more}; {@code none} for an empty list. */
  public static String join(List<String> items) {
    return join(items, ITEMS);
  }

  public static String join(List<String> items, int max) {
    if (items.isEmpty()) {
      return "none";
    }
    if (items.size() <= max) {
      return String.join(", ", items);
    }
    return String.join(", ", items.subList(0, max)) + " and " + (items.size() - max) + " more";
  }
}
