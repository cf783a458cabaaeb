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

  /**
   * Loads netty-tcnative (unpacked from the jar and linked: about a tenth of a second on a cold
   * JVM) on a daemon thread, while the main thread reads the configuration, the cluster view and
   * the certificates; Reactor Netty then finds it loaded when it builds the server's TLS context.
   */
  public static void loadInBackground() {
    Thread loader = new Thread(TlsProvider::boringSsl, "tls-preload");
    loader.setDaemon(true);
    loader.start();
  }

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
