package io.meshinjector.engine.probe;

import java.util.Locale;

/**
 * The node's SELinux mode, from {@code /sys/fs/selinux/enforce} when selinuxfs is mounted into the
 * probe, else from {@code /etc/selinux/config}, which says what the node boots with.
 */
public final class Selinux {
  public static final String ENFORCE = "/sys/fs/selinux/enforce";
  public static final String CONFIG = "/etc/selinux/config";
  public static final String NOT_PRESENT =
      "not present (no /sys/fs/selinux/enforce, no /etc/selinux/config)";

  private Selinux() {}

  /** The fact from the text of {@code /sys/fs/selinux/enforce}. */
  public static String fromEnforce(String text) {
    String enforce = text.strip();
    return switch (enforce) {
      case "1" -> "enforcing";
      case "0" -> "permissive";
      default -> ProbeFacts.unknown(ENFORCE + " holds '" + enforce + "'");
    };
  }

  /** The fact from the text of {@code /etc/selinux/config}. */
  public static String fromConfig(String text) {
    for (String line : text.split("\n")) {
      String t = line.strip();
      if (t.startsWith("SELINUX=")) {
        return t.substring("SELINUX=".length()).strip().toLowerCase(Locale.ROOT)
            + " (configured in "
            + CONFIG
            + ")";
      }
    }
    return ProbeFacts.unknown(CONFIG + " has no SELINUX= line");
  }

  public static boolean isEnforcing(String fact) {
    return fact.startsWith("enforcing");
  }
}
