package io.meshinjector.webhook.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.meshinjector.certs.CertificateAuthority;
import io.meshinjector.certs.CertificateIssuer;
import io.meshinjector.certs.KeyType;
import io.meshinjector.certs.KeyedCertificate;
import io.meshinjector.certs.Pem;
import io.meshinjector.certs.SubjectNames;
import io.meshinjector.webhook.support.MutableClock;
import io.meshinjector.webhook.support.TlsFixtures;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.ssl.DefaultSslBundleRegistry;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.pem.PemSslStoreBundle;
import org.springframework.boot.ssl.pem.PemSslStoreDetails;

class ServingCertificateMonitorTest {
  private final MutableClock clock = new MutableClock(Instant.parse("2026-11-22T10:00:00Z"));
  private final CertificateIssuer issuer = new CertificateIssuer(clock);
  private final CertificateAuthority ca =
      issuer.newAuthority(Duration.ofDays(365), KeyType.EC_P256);
  private ServingCertificateMonitor monitor;

  @AfterEach
  void close() {
    if (monitor != null) {
      monitor.close();
    }
  }

  private KeyedCertificate cert(Duration validity) {
    return issuer.issueServing(
        ca, SubjectNames.of(List.of("localhost")), validity, KeyType.EC_P256);
  }

  private static SslBundle bundle(KeyedCertificate cert) {
    return SslBundle.of(
        new PemSslStoreBundle(
            PemSslStoreDetails.forCertificate(Pem.certificate(cert.certificate()))
                .withPrivateKey(Pem.privateKey(cert.privateKey())),
            null));
  }

  @Test
  void gaugeFollowsTheServedCertAcrossAReload() {
    KeyedCertificate first = cert(Duration.ofDays(90));
    DefaultSslBundleRegistry bundles = new DefaultSslBundleRegistry("webhook", bundle(first));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    monitor =
        new ServingCertificateMonitor(bundles, "webhook", TlsFixtures.settings("secret"), clock)
            .start(registry);

    var gauge = registry.get(ServingCertificateMonitor.METRIC).tag("mode", "secret").gauge();
    assertThat((long) gauge.value())
        .isEqualTo(first.certificate().getNotAfter().toInstant().getEpochSecond());

    KeyedCertificate second = cert(Duration.ofDays(120));
    bundles.updateBundle("webhook", bundle(second));
    assertThat((long) gauge.value())
        .isEqualTo(second.certificate().getNotAfter().toInstant().getEpochSecond());
  }

  @Test
  void prometheusNameCarriesTheSecondsUnit() {
    var registry =
        new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(
            io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT);
    monitor =
        new ServingCertificateMonitor(
                new DefaultSslBundleRegistry("webhook", bundle(cert(Duration.ofDays(90)))),
                "webhook",
                TlsFixtures.settings("cert-manager"),
                clock)
            .start(registry);
    assertThat(registry.scrape())
        .contains("mesh_injector_serving_cert_expiry_seconds{mode=\"cert-manager\"}");
  }

  @Test
  void warnsFromThirtyDaysBeforeExpiryWhenNotSelfManaged() {
    KeyedCertificate served = cert(Duration.ofDays(90));
    DefaultSslBundleRegistry bundles = new DefaultSslBundleRegistry("webhook", bundle(served));
    monitor =
        new ServingCertificateMonitor(bundles, "webhook", TlsFixtures.settings("secret"), clock)
            .start(new SimpleMeterRegistry());

    clock.advance(Duration.ofDays(59));
    assertThat(monitor.check()).isEmpty();

    clock.advance(Duration.ofDays(1).plusMinutes(1));
    assertThat(monitor.check())
        .hasValueSatisfying(
            w ->
                assertThat(w)
                    .contains("not renewed by mesh-injector")
                    .contains("mode=secret")
                    .contains("secret=mesh-injector/mesh-injector-tls"));
  }

  @Test
  void selfManagedCertsAreNotWarnedAbout() {
    DefaultSslBundleRegistry bundles =
        new DefaultSslBundleRegistry("webhook", bundle(cert(Duration.ofDays(90))));
    monitor =
        new ServingCertificateMonitor(
                bundles, "webhook", TlsFixtures.settings("self-managed"), clock)
            .start(new SimpleMeterRegistry());
    clock.advance(Duration.ofDays(89));
    assertThat(monitor.check()).isEmpty();
  }
}
