package io.meshinjector.webhook.server;

import java.util.Objects;

/** What became of an admission request's body once the server read it, before it is decoded. */
public sealed interface RequestBody {
  RequestBody TOO_LARGE = new TooLarge();
  RequestBody EMPTY = new Read(new byte[0]);

  static RequestBody of(byte[] bytes) {
    return new Read(bytes);
  }

  static RequestBody unreadable(Throwable cause) {
    return new Unreadable(cause.toString());
  }

  /** The whole body, within the size limit. */
  record Read(byte[] bytes) implements RequestBody {
    public Read {
      Objects.requireNonNull(bytes, "bytes");
    }
  }

  /** Over the size limit, by its declared length or by what arrived. */
  record TooLarge() implements RequestBody {}

  /**
   * The read failed (the connection broke, the body ended early).
   *
   * @param reason the server's wording, for the log only
   */
  record Unreadable(String reason) implements RequestBody {}
}
