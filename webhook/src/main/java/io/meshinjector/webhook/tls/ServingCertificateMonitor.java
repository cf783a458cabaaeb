package io.meshinjector.webhook.tls;

import io.meshinjector.certs.CertificateExpiry;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.Collections;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/**
 * Watches the certificate the server presents, taken from the SSL bundle itself so it follows every
 * reload: the gauge {@code mesh_injector_serving_cert_expiry_seconds} (its notAfter, epoch seconds)
 * and, when mesh-injector does not renew it, a warning from {@code expiryWarning} before expiry.
 * The warning is repeated every {@link #CHECK_EVERY_HOURS} hours, since time passes without any
 * file changing.
 */
public final class ServingCertificateMonitor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ServingCertificateMonitor.class);
  public static final String METRIC = "mesh_injector_serving_cert_expiry";
  static final long CHECK_EVERY_HOURS = 12;

  private final SslBundles bundles;
  private final String bundleName;
  private final TlsSettings settings;
  private final Clock clock;
  private ScheduledExecutorService checks;

  public ServingCertificateMonitor(
      SslBundles bundles, String bundleName, TlsSettings settings, Clock clock) {
    this.bundles = Objects.requireNonNull(bundles, "bundles");
    this.bundleName = Objects.requireNonNull(bundleName, "bundleName");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Registers the gauge, checks now, on every reload and periodically. */
  public ServingCertificateMonitor start(MeterRegistry registry) {
    Gauge.builder(METRIC, this, ServingCertificateMonitor::expiryEpochSeconds)
        .description("notAfter of the serving certificate currently presented, in epoch seconds")
        .baseUnit("seconds")
        .tag("mode", settings.mode().id())
        .register(registry);
    bundles.addBundleUpdateHandler(bundleName, bundle -> check());
    check();
    checks =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tls-expiry-check");
              t.setDaemon(true);
              return t;
            });
    checks.scheduleAtFixedRate(this::check, CHECK_EVERY_HOURS, CHECK_EVERY_HOURS, TimeUnit.HOURS);
    return this;
  }

  /** The served cert; empty when the bundle holds none (which the server would not start with). */
  public Optional<X509Certificate> served() {
    try {
      return servedBy(bundles.getBundle(bundleName));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  double expiryEpochSeconds() {
    return served()
        .map(c -> (double) c.getNotAfter().toInstant().getEpochSecond())
        .orElse(Double.NaN);
  }

  /** The expiry warning, logged when due; returned for tests. */
  Optional<String> check() {
    if (settings.mode() == TlsMode.SELF_MANAGED) {
      // the leader renews at 2/3 of the lifetime; an old cert here shows as the gauge
      return Optional.empty();
    }
    Optional<String> warning =
        served()
            .flatMap(c -> CertificateExpiry.warning(c, clock.instant(), settings.expiryWarning()))
            .map(w -> w + " (mode=" + settings.mode().id() + " " + settings.describe() + ")");
    warning.ifPresent(LOG::warn);
    return warning;
  }

  static Optional<X509Certificate> servedBy(SslBundle bundle) {
    KeyStore store = bundle.getStores().getKeyStore();
    if (store == null) {
      return Optional.empty();
    }
    try {
      for (String alias : Collections.list(store.aliases())) {
        if (store.isKeyEntry(alias)) {
          Certificate[] chain = store.getCertificateChain(alias);
          if (chain != null && chain.length > 0 && chain[0] instanceof X509Certificate leaf) {
            return Optional.of(leaf);
          }
        }
      }
    } catch (KeyStoreException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  @Override
  public void close() {
    if (checks != null) {
      checks.shutdownNow();
    }
  }
}
