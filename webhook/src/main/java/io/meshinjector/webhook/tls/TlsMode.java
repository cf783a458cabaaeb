package io.meshinjector.webhook.tls;

import java.util.LinkedHashMap;
import java.util.Map;

/** Who issues and renews the serving certificate ({@code webhook.tls.mode}). */
public enum TlsMode {
  /** The elected leader keeps the Secret valid and patches the caBundle. */
  SELF_MANAGED("self-managed"),
  /** A cert-manager Certificate and its CA injector. */
  CERT_MANAGER("cert-manager"),
  /** An operator-provided Secret and caBundle. */
  SECRET("secret");

  private final String id;

  TlsMode(String id) {
    this.id = id;
  }

  /** The value as written in the config and as the metric's {@code mode} tag. */
  public String id() {
    return id;
  }

  static Map<String, TlsMode> byId() {
    Map<String, TlsMode> out = new LinkedHashMap<>();
    for (TlsMode mode : values()) {
      out.put(mode.id, mode);
    }
    return out;
  }
}
