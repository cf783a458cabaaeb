package io.meshinjector.engine.config;

import java.util.Locale;

/**
 * What to do with a pod that runs to completion ({@code restartPolicy} {@code Never} or {@code
 * OnFailure}) when none of the nodes it may run on runs native sidecars: its proxy could then only
 * be a regular container, which keeps running after the app exits, so the pod never completes.
 * {@code docs/how-it-decides.md} (section 6) says why {@link #REJECT} is the default.
 */
public enum RunToCompletion {
  /** Refuse the pod, naming the nodes, what they lack and the fix. */
  REJECT,
  /** Admit the pod without injection and warn. */
  SKIP,
  /**
   * Inject with the proxy as a regular container and warn: for apps that stop the proxy themselves
   * when they are done.
   */
  INJECT;

  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }
}
