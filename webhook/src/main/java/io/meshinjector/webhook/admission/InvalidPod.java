package io.meshinjector.webhook.admission;

import java.util.Objects;

/**
 * A pod the engine cannot take. The server and the CLI name the pod differently (the request's
 * object, a manifest's pod template), so the message is made by whoever catches it, from {@link
 * Problems}.
 *
 * @see Problems#invalidObject(InvalidPod)
 * @see Problems#invalidTemplate(String, InvalidPod)
 */
public final class InvalidPod extends RuntimeException {
  /** What kind of problem; each caller words them in its own terms. */
  public enum Kind {
    /** Not a shape the model, the engine or the templates can take. */
    NOT_A_POD,
    /** Within the Pod type, but past one of {@code webhook.podLimits}. */
    OVER_A_LIMIT
  }

  private final Kind kind;
  private final String detail;

  InvalidPod(Kind kind, String detail) {
    super(kind + ": " + detail, null, false, false);
    this.kind = Objects.requireNonNull(kind, "kind");
    this.detail = Objects.requireNonNull(detail, "detail");
  }

  public Kind kind() {
    return kind;
  }

  /** Where in the pod and what is wrong there, e.g. {@code spec.containers[0].name is missing}. */
  public String detail() {
    return detail;
  }
}
