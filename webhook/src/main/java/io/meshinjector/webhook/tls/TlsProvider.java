package io.meshinjector.webhook.tls;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;

/**
 * Which TLS implementation the HTTPS port runs on. Reactor Netty takes BoringSSL (from
 * netty-tcnative) when its native library loads, and falls back to the JDK's JSSE silently when it
 * does not (another CPU, no writable temp directory to unpack it into); the start-up line says
 * which, and why.
 */
public final class TlsProvider {
  private TlsProvider() {}

  /** True when the HTTPS port negotiates with BoringSSL, ALPN included. */
  public static boolean boringSsl() {
    return OpenSsl.isAvailable() && SslProvider.isAlpnSupported(SslProvider.OPENSSL);
  }

  public static String describe() {
    if (boringSsl()) {
      return OpenSsl.versionString() + " (netty-tcnative)";
    }
    Throwable cause = OpenSsl.unavailabilityCause();
    return "the JDK's JSSE (netty-tcnative is not usable: "
        + (cause == null ? "no ALPN support" : cause.toString())
        + ")";
  }
}
