package io.meshinjector.webhook.support;

/**
 * The input limits the served test config sets, lower than the defaults so that a test can reach
 * them: the TLS server test serves with them, and the in-process admission cases answer under the
 * same ones.
 */
public final class ServedLimits {
  public static final int MAX_BODY = 256 * 1024;
  public static final int MAX_STRING = 64 * 1024;
  public static final int MAX_DEPTH = 40;

  /** The {@code --config} file's text. */
  public static final String CONFIG_YAML =
      "webhook:\n"
          + ("  maxRequestBytes: " + MAX_BODY + "\n")
          + ("  maxStringLength: " + MAX_STRING + "\n")
          + ("  maxNestingDepth: " + MAX_DEPTH + "\n");

  private ServedLimits() {}
}
