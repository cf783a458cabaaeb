package io.meshinjector.webhook.cli;

/** The CLI's exit statuses. */
public final class ExitCodes {
  public static final int OK = 0;

  /** An input, config or cluster file cannot be used. */
  public static final int INPUT = 1;

  /** picocli's own status for an invalid command line. */
  public static final int USAGE = 2;

  /** A pod would be refused. */
  public static final int REFUSED = 3;

  private ExitCodes() {}
}
