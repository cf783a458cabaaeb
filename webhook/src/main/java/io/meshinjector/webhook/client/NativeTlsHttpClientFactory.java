package io.meshinjector.webhook.client;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.internal.SSLUtils;
import io.fabric8.kubernetes.client.vertx.VertxHttpClientFactory;
import io.meshinjector.webhook.tls.TlsProvider;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.vertx.core.net.SSLEngineOptions;
import io.vertx.core.spi.tls.SslContextFactory;
import io.vertx.ext.web.client.WebClientOptions;
import java.util.Arrays;
import java.util.Optional;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * fabric8's Vert.x client on netty-tcnative's BoringSSL, which the HTTPS port already uses, with
 * the same key and trust managers fabric8 builds from the kubeconfig; on the JDK's TLS where the
 * native library does not load, as fabric8 does by itself.
 *
 * <p>Why: decrypting a list of 5,000 Nodes (112 MB) in the JDK's AES-GCM was most of {@code explain
 * -n}'s CPU. The CLI runs with C1 only, and C1 has no intrinsics for AES or GHASH, so the JDK
 * decrypts in plain Java; BoringSSL uses the CPU's AES instructions either way.
 *
 * <p>One factory per client: it keeps the managers of the Config its client is built from.
 */
final class NativeTlsHttpClientFactory extends VertxHttpClientFactory {
  private volatile SslContextFactory nativeTls;

  @Override
  public HttpClient.Builder newBuilder(Config config) {
    nativeTls = TlsProvider.boringSsl() ? contextFactory(config) : null;
    return super.newBuilder(config);
  }

  @Override
  protected void additionalConfig(WebClientOptions options) {
    SslContextFactory tls = nativeTls;
    if (tls != null) {
      options.setSslEngineOptions(new Engine(tls));
    }
  }

  private static SslContextFactory contextFactory(Config config) {
    TrustManager[] trust;
    KeyManager[] keys;
    try {
      trust = SSLUtils.trustManagers(config);
      keys = SSLUtils.keyManagers(config);
    } catch (Exception e) {
      // the same failure fabric8 reports when it builds its own context, with its message
      throw new KubernetesClientException("the kubeconfig's TLS material: " + e.getMessage(), e);
    }
    Optional<X509TrustManager> x509 =
        trust == null
            ? Optional.empty()
            : Arrays.stream(trust)
                .filter(X509TrustManager.class::isInstance)
                .map(X509TrustManager.class::cast)
                .findFirst();
    KeyManager key = keys == null || keys.length == 0 ? null : keys[0];
    return () -> {
      SslContextBuilder builder = SslContextBuilder.forClient().sslProvider(SslProvider.OPENSSL);
      x509.ifPresent(builder::trustManager);
      if (key != null) {
        builder.keyManager(key);
      }
      return builder.build();
    };
  }

  /** Vert.x's engine option that hands out the context above. */
  private static final class Engine extends SSLEngineOptions {
    private final SslContextFactory factory;

    Engine(SslContextFactory factory) {
      this.factory = factory;
    }

    @Override
    public SSLEngineOptions copy() {
      return new Engine(factory);
    }

    @Override
    public SslContextFactory sslContextFactory() {
      return factory;
    }
  }
}
