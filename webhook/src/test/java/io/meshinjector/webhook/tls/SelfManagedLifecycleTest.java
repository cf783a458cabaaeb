package io.meshinjector.webhook.tls;

import static io.meshinjector.webhook.support.TlsFixtures.NAMESPACE;
import static io.meshinjector.webhook.support.TlsFixtures.webhookConfiguration;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.meshinjector.certs.CertificateIssuer;
import io.meshinjector.certs.rotation.RotationState;
import io.meshinjector.webhook.controllers.LeaderElection;
import io.meshinjector.webhook.support.TlsFixtures;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The mode switch and the leader-elected path, end to end against the mock API server. */
@EnableKubernetesMockClient(crud = true)
class SelfManagedLifecycleTest {
  static KubernetesClient client;
  static KubernetesMockServer server;

  private static final LeaderElection.Timing FAST =
      new LeaderElection.Timing(
          Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(200));

  @BeforeEach
  void cluster() throws InterruptedException {
    server.reset();
    client
        .admissionRegistration()
        .v1()
        .mutatingWebhookConfigurations()
        .resource(webhookConfiguration("mesh-injector", null, "pods.mesh-injector.io"))
        .create();
    while (server.takeRequest(10, TimeUnit.MILLISECONDS) != null) {
      // only what the lifecycle sends is of interest
    }
  }

  @Test
  @Timeout(30)
  void theLeaderCreatesTheSecretAndPatchesTheCaBundle() throws Exception {
    TlsSettings settings = TlsFixtures.settings("self-managed");
    var lifecycle =
        new TlsConfiguration.SelfManagedLifecycle(settings, server::createClient, true, FAST);
    lifecycle.start();
    try {
      Secret secret = awaitSecret(settings, Duration.ofSeconds(20));
      assertThat(secret).as("Secret written by the leader").isNotNull();
      Lease lease = client.leases().inNamespace(NAMESPACE).withName(settings.leaseName()).get();
      assertThat(lease.getSpec().getHolderIdentity()).isNotBlank();
      String bundle = secret.getData().get("ca.crt");
      // the Secret holds base64(PEM); the caBundle is base64(PEM) too
      awaitCaBundle(bundle, Duration.ofSeconds(10));
      assertThat(
              client
                  .admissionRegistration()
                  .v1()
                  .mutatingWebhookConfigurations()
                  .withName("mesh-injector")
                  .get()
                  .getWebhooks()
                  .get(0)
                  .getClientConfig()
                  .getCaBundle())
          .isEqualTo(bundle);
    } finally {
      lifecycle.stop();
    }
  }

  @Test
  @Timeout(30)
  void theLeaderIssuesWithTheConfiguredLifetimes() throws Exception {
    TlsSettings settings =
        TlsSettings.from(
            TlsFixtures.config(
                "webhook:\n  tls:\n    caValidity: 400d\n    servingValidity: 20d\n"),
            NAMESPACE);
    var lifecycle =
        new TlsConfiguration.SelfManagedLifecycle(settings, server::createClient, true, FAST);
    lifecycle.start();
    try {
      Secret secret = awaitSecret(settings, Duration.ofSeconds(20));
      assertThat(secret).as("Secret written by the leader").isNotNull();
      RotationState state = RotationState.fromData(CertificateReconciler.decode(secret));

      assertThat(lifetime(state.set().certificate()))
          .isEqualTo(Duration.ofDays(20).plus(CertificateIssuer.BACKDATE));
      assertThat(lifetime(state.signer().certificate()))
          .isEqualTo(Duration.ofDays(400).plus(CertificateIssuer.BACKDATE));
    } finally {
      lifecycle.stop();
    }
  }

  private static Duration lifetime(X509Certificate certificate) {
    return Duration.between(
        certificate.getNotBefore().toInstant(), certificate.getNotAfter().toInstant());
  }

  @ParameterizedTest
  @ValueSource(strings = {"cert-manager", "secret"})
  void otherModesNeverTalkToTheApiServer(String mode) throws Exception {
    AtomicInteger clientsMade = new AtomicInteger();
    var lifecycle =
        new TlsConfiguration.SelfManagedLifecycle(
            TlsFixtures.settings(mode),
            () -> {
              clientsMade.incrementAndGet();
              return server.createClient();
            },
            true,
            FAST);
    lifecycle.start();
    Thread.sleep(500);
    lifecycle.stop();

    assertThat(clientsMade).hasValue(0);
    assertThat(server.takeRequest(10, TimeUnit.MILLISECONDS)).isNull();
    assertThat(client.secrets().inNamespace(NAMESPACE).list().getItems()).isEmpty();
  }

  @Test
  void selfManagedOutsideAPodLeavesTheClusterAlone() throws Exception {
    AtomicInteger clientsMade = new AtomicInteger();
    var lifecycle =
        new TlsConfiguration.SelfManagedLifecycle(
            TlsFixtures.settings("self-managed"),
            () -> {
              clientsMade.incrementAndGet();
              return server.createClient();
            },
            false,
            FAST);
    lifecycle.start();
    lifecycle.stop();
    assertThat(clientsMade).hasValue(0);
    assertThat(server.takeRequest(10, TimeUnit.MILLISECONDS)).isNull();
  }

  private static Secret awaitSecret(TlsSettings settings, Duration limit)
      throws InterruptedException {
    long until = System.nanoTime() + limit.toNanos();
    while (System.nanoTime() < until) {
      Secret s = client.secrets().inNamespace(NAMESPACE).withName(settings.secretName()).get();
      if (s != null) {
        return s;
      }
      Thread.sleep(100);
    }
    return null;
  }

  private static void awaitCaBundle(String expected, Duration limit) throws InterruptedException {
    long until = System.nanoTime() + limit.toNanos();
    while (System.nanoTime() < until) {
      String actual =
          client
              .admissionRegistration()
              .v1()
              .mutatingWebhookConfigurations()
              .withName("mesh-injector")
              .get()
              .getWebhooks()
              .get(0)
              .getClientConfig()
              .getCaBundle();
      if (expected.equals(actual)) {
        return;
      }
      Thread.sleep(100);
    }
  }
}
