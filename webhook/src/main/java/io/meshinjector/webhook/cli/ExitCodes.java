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

  /**
   * The command failed inside: out of memory, or a bug. Never {@link #REFUSED}, which a pipeline
   * reads as a decision (the JVM's own {@code ExitOnOutOfMemoryError} status is 3 too, which is why
   * the launcher turns that flag off for the commands that run once).
   */
  public static final int INTERNAL = 4;

  /** {@code check}: a check failed (warnings alone exit {@link #OK}). */
  public static final int CHECK_FAILED = 5;

  /**
   * {@code tag}: nothing was written, because a precondition failed (an unknown or unready
   * revision, a name taken, an API server without matchConditions) or the tag changed meanwhile.
   */
  public static final int TAG_REFUSED = 6;

  private ExitCodes() {}
}
