package io.meshinjector.webhook.admission;

/**
 * A request the webhook cannot admit as sent: the body, the AdmissionReview or its pod. The message
 * is for the caller and names what is wrong; it never carries an exception's text.
 */
public final class BadRequest extends RuntimeException {
  public BadRequest(String message) {
    super(message, null, false, false);
  }
}
