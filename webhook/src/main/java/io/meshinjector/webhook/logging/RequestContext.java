package io.meshinjector.webhook.logging;

import org.slf4j.MDC;

/**
 * Puts the admission request's UID, namespace and pod into the logging context, so every line
 * logged while handling it carries them (plain text and JSON formats alike); closing it removes
 * them, so a pooled thread does not carry them into the next request.
 */
public final class RequestContext implements AutoCloseable {
  public static final String UID = "uid";
  public static final String NAMESPACE = "namespace";
  public static final String POD = "pod";

  /** False when this joined a context opened further out, which is left for that one to close. */
  private final boolean owner;

  private RequestContext(boolean owner) {
    this.owner = owner;
  }

  /**
   * Opens a context with no request known yet: lines still carry the keys, empty. Inside an open
   * context, joins it instead, so that what the inner code learns (the UID, the pod) stays on the
   * outer code's lines until the outer one closes.
   */
  public static RequestContext open() {
    if (MDC.get(UID) != null) {
      return new RequestContext(false);
    }
    MDC.put(UID, "-");
    MDC.put(NAMESPACE, "-");
    MDC.put(POD, "-");
    return new RequestContext(true);
  }

  public RequestContext uid(String uid) {
    MDC.put(UID, blankToDash(uid));
    return this;
  }

  public RequestContext namespace(String namespace) {
    MDC.put(NAMESPACE, blankToDash(namespace));
    return this;
  }

  public RequestContext pod(String pod) {
    MDC.put(POD, blankToDash(pod));
    return this;
  }

  @Override
  public void close() {
    if (!owner) {
      return;
    }
    MDC.remove(UID);
    MDC.remove(NAMESPACE);
    MDC.remove(POD);
  }

  /** What the context holds now, to put back on a line logged later on another thread. */
  public Snapshot snapshot() {
    return new Snapshot(MDC.get(UID), MDC.get(NAMESPACE), MDC.get(POD));
  }

  /** A request's UID, namespace and pod, taken while its context was open. */
  public record Snapshot(String uid, String namespace, String pod) {
    /** Opens a context (or joins the open one) holding these values again. */
    public RequestContext reopen() {
      return open().uid(uid).namespace(namespace).pod(pod);
    }
  }

  private static String blankToDash(String s) {
    return s == null || s.isBlank() ? "-" : s;
  }
}
