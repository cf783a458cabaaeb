package io.meshinjector.webhook.tls;

import static io.meshinjector.webhook.support.TlsFixtures.NAMESPACE;
import static io.meshinjector.webhook.support.TlsFixtures.webhookConfiguration;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.meshinjector.certs.CaBundle;
import io.meshinjector.certs.CertificateSet;
import io.meshinjector.certs.CertificateValidator;
import io.meshinjector.certs.rotation.RotationPolicy;
import io.meshinjector.certs.rotation.RotationState;
import io.meshinjector.webhook.support.MutableClock;
import io.meshinjector.webhook.support.TlsFixtures;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Self-managed mode against the fabric8 mock API server in CRUD mode. */
@EnableKubernetesMockClient(crud = true)
class CertificateReconcilerTest {
  static KubernetesClient client;
  static KubernetesMockServer server;

  private static final String OWN = "mesh-injector";
  private static final String OTHER = "someone-elses-webhook";
  private static final String OTHER_BUNDLE = "b3RoZXIgY2EgYnVuZGxl";

  private final MutableClock clock = new MutableClock(Instant.parse("2026-11-22T10:00:00Z"));
  private final TlsSettings settings = TlsFixtures.settings("self-managed");
  private CertificateReconciler reconciler;

  @BeforeEach
  void cluster() throws Exception {
    server.reset();
    var mwcs = client.admissionRegistration().v1().mutatingWebhookConfigurations();
    mwcs.resource(webhookConfiguration(OWN, null, "pods.mesh-injector.io", "ns.mesh-injector.io"))
        .create();
    mwcs.resource(webhookConfiguration(OTHER, OTHER_BUNDLE, "pods.example.com")).create();
    reconciler = new CertificateReconciler(client, settings, clock, RotationPolicy.defaults());
    drainRequests();
  }

  @Test
  void createsTheSecretAndPatchesOnlyItsOwnWebhookConfiguration() throws Exception {
    String otherVersion = resourceVersion(OTHER);
    assertThat(secret()).as("no Secret yet").isNull();

    reconciler.reconcile();

    Secret secret = secret();
    assertThat(secret.getType()).isEqualTo("kubernetes.io/tls");
    assertThat(secret.getData()).containsOnlyKeys("ca.crt", "ca.key", "tls.crt", "tls.key");
    RotationState stored = RotationState.fromData(CertificateReconciler.decode(secret));
    assertThat(stored.signer()).as("ca.key is stored and fits ca.crt").isNotNull();
    CertificateSet set = stored.set();
    assertThat(new CertificateValidator(clock).validate(set, settings.servingNames()).summary())
        .isEqualTo("valid");
    assertThat(set.certificate().getSubjectAlternativeNames().toString())
        .contains("mesh-injector.mesh-injector.svc.cluster.local");

    // every webhook of its own configuration trusts the Secret's CA ...
    assertThat(mwc(OWN).getWebhooks())
        .extracting(MutatingWebhook::getName)
        .containsExactly("pods.mesh-injector.io", "ns.mesh-injector.io");
    for (MutatingWebhook webhook : mwc(OWN).getWebhooks()) {
      assertThat(webhook.getClientConfig().getCaBundle()).isEqualTo(set.caBundleBase64());
      assertThat(
              CertificateValidator.chainProblem(
                  set.certificate(),
                  CaBundle.fromBase64(webhook.getClientConfig().getCaBundle()),
                  clock.instant()))
          .isNull();
    }
    // ... and the unrelated one was not written at all
    assertThat(resourceVersion(OTHER)).isEqualTo(otherVersion);
    assertThat(mwc(OTHER).getWebhooks().get(0).getClientConfig().getCaBundle())
        .isEqualTo(OTHER_BUNDLE);
    assertThat(writes()).noneMatch(r -> r.getPath().contains(OTHER));
  }

  @Test
  void aSecondPassWhenAllIsValidWritesNothing() throws Exception {
    reconciler.reconcile();
    String secretVersion = secret().getMetadata().getResourceVersion();
    String ownVersion = resourceVersion(OWN);
    drainRequests();

    reconciler.reconcile();

    List<RecordedRequest> requests = drainRequests();
    assertThat(requests).isNotEmpty().allMatch(r -> r.getMethod().equals("GET"));
    assertThat(secret().getMetadata().getResourceVersion()).isEqualTo(secretVersion);
    assertThat(resourceVersion(OWN)).isEqualTo(ownVersion);
  }

  @Test
  void renewsTheServingCertPastTwoThirdsWithoutTouchingTheCaBundle() throws Exception {
    reconciler.reconcile();
    Secret before = secret();
    CertificateSet first = RotationState.fromData(CertificateReconciler.decode(before)).set();
    String ownVersion = resourceVersion(OWN);

    clock.advance(Duration.ofDays(59));
    drainRequests();
    reconciler.reconcile();
    assertThat(writes()).as("before 2/3 of 90 days nothing is written").isEmpty();

    clock.advance(Duration.ofDays(2));
    CertificateReconciler.Result result = reconciler.reconcile();

    CertificateSet renewed = RotationState.fromData(CertificateReconciler.decode(secret())).set();
    assertThat(renewed.certificate().getSerialNumber())
        .isNotEqualTo(first.certificate().getSerialNumber());
    assertThat(renewed.caCertificates()).isEqualTo(first.caCertificates());
    assertThat(new CertificateValidator(clock).validate(renewed, settings.servingNames()).isValid())
        .isTrue();
    // same CA: the API server's trust needs no change, so the configuration is not written
    assertThat(resourceVersion(OWN)).isEqualTo(ownVersion);
    assertThat(result.reviewAt()).isAfter(clock.instant());
  }

  @Test
  void repairsACaBundleSomeoneElseEmptiedWithoutRewritingTheSecret() throws Exception {
    reconciler.reconcile();
    String secretVersion = secret().getMetadata().getResourceVersion();
    // e.g. a Helm upgrade that renders the configuration with an empty caBundle
    client
        .admissionRegistration()
        .v1()
        .mutatingWebhookConfigurations()
        .withName(OWN)
        .edit(m -> webhookConfiguration(OWN, "", "pods.mesh-injector.io", "ns.mesh-injector.io"));

    reconciler.reconcile();

    String bundle =
        RotationState.fromData(CertificateReconciler.decode(secret())).set().caBundleBase64();
    assertThat(mwc(OWN).getWebhooks())
        .hasSize(2)
        .allSatisfy(w -> assertThat(w.getClientConfig().getCaBundle()).isEqualTo(bundle));
    assertThat(secret().getMetadata().getResourceVersion()).isEqualTo(secretVersion);
  }

  @Test
  void writesTheSecretEvenBeforeTheWebhookConfigurationExists() {
    client.admissionRegistration().v1().mutatingWebhookConfigurations().withName(OWN).delete();

    CertificateReconciler.Result result = reconciler.reconcile();

    assertThat(result.webhookConfigurationFound()).isFalse();
    assertThat(secret()).isNotNull();
  }

  @Test
  void keepsKeysOfTheSecretItDoesNotOwn() throws Exception {
    client
        .secrets()
        .inNamespace(NAMESPACE)
        .resource(
            new io.fabric8.kubernetes.api.model.SecretBuilder()
                .withNewMetadata()
                .withName(settings.secretName())
                .endMetadata()
                .withType("kubernetes.io/tls")
                .addToData("note", "a2VlcA==")
                .build())
        .create();

    reconciler.reconcile();

    assertThat(secret().getData())
        .containsEntry("note", "a2VlcA==")
        .containsKeys("ca.crt", "ca.key", "tls.crt", "tls.key");
  }

  @Test
  void aDamagedCaKeyIsReplacedByARolloverInsteadOfFailingEveryPass() throws Exception {
    reconciler.reconcile();
    RotationState healthy = RotationState.fromData(CertificateReconciler.decode(secret()));
    X509Certificate oldCa = healthy.signer().certificate();
    client
        .secrets()
        .inNamespace(NAMESPACE)
        .withName(settings.secretName())
        .edit(
            s -> {
              s.getData().put("ca.key", b64("-----BEGIN PRIVATE KEY-----\nAAEC\n"));
              return s;
            });

    reconciler.reconcile();

    // a CA rollover (the plan's reason is RotationPlannerTest's): a new signer beside the old CA
    RotationState stored = RotationState.fromData(CertificateReconciler.decode(secret()));
    assertThat(stored.signer()).as("a readable ca.key is stored again").isNotNull();
    assertThat(stored.signer().certificate()).isNotEqualTo(oldCa);
    // the serving cert replicas still present chains to the old CA, so it stays trusted
    assertThat(stored.caBundle()).containsExactly(oldCa, stored.signer().certificate());
    assertThat(stored.set().certificate()).isEqualTo(healthy.set().certificate());
    for (MutatingWebhook webhook : mwc(OWN).getWebhooks()) {
      assertThat(CaBundle.fromBase64(webhook.getClientConfig().getCaBundle()))
          .containsExactly(oldCa, stored.signer().certificate());
    }

    clock.advance(RotationPolicy.defaults().overlap());
    reconciler.reconcile();
    RotationState after = RotationState.fromData(CertificateReconciler.decode(secret()));
    X509Certificate renewed = after.set().certificate();
    assertThat(renewed).as("the serving cert is renewed").isNotEqualTo(healthy.set().certificate());
    assertThat(
            CertificateValidator.chainProblem(
                renewed, List.of(stored.signer().certificate()), clock.instant()))
        .as("from the new CA")
        .isNull();
    // replicas may serve the old cert for another overlap: its CA must not have left the bundle
    assertThat(after.caBundle()).containsExactly(oldCa, stored.signer().certificate());
  }

  private Secret secret() {
    return client.secrets().inNamespace(NAMESPACE).withName(settings.secretName()).get();
  }

  private MutatingWebhookConfiguration mwc(String name) {
    return client.admissionRegistration().v1().mutatingWebhookConfigurations().withName(name).get();
  }

  private String resourceVersion(String mwc) {
    return mwc(mwc).getMetadata().getResourceVersion();
  }

  private List<RecordedRequest> writes() throws InterruptedException {
    return drainRequests().stream().filter(r -> !r.getMethod().equals("GET")).toList();
  }

  private static String b64(String text) {
    return java.util.Base64.getEncoder()
        .encodeToString(text.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
  }

  private static List<RecordedRequest> drainRequests() throws InterruptedException {
    List<RecordedRequest> out = new ArrayList<>();
    RecordedRequest r;
    while ((r = server.takeRequest(10, TimeUnit.MILLISECONDS)) != null) {
      out.add(r);
    }
    return out;
  }
}
