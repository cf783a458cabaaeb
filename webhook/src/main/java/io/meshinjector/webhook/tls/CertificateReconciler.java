package io.meshinjector.webhook.tls;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.meshinjector.certs.CertificateSet;
import io.meshinjector.certs.rotation.RotationPlanner;
import io.meshinjector.certs.rotation.RotationPolicy;
import io.meshinjector.certs.rotation.RotationState;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pass of self-managed mode: brings the TLS Secret to a valid set through the rotation plan and
 * the caBundle of this release's MutatingWebhookConfiguration, and only that one, in line with it.
 * When both already are, it reads and writes nothing else: no update, no patch.
 *
 * <p>The caBundle is patched before the Secret is written. A replica serves whatever the Secret
 * holds once the kubelet syncs it, so the API server must trust a new CA first; a Secret write that
 * then fails leaves an extra CA in the bundle, which the next pass removes.
 */
public final class CertificateReconciler {
  private static final Logger LOG = LoggerFactory.getLogger(CertificateReconciler.class);
  static final String MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
  static final String MANAGED_BY = "mesh-injector";

  private final KubernetesClient client;
  private final TlsSettings settings;
  private final RotationPlanner planner;

  public CertificateReconciler(
      KubernetesClient client, TlsSettings settings, Clock clock, RotationPolicy policy) {
    this.client = Objects.requireNonNull(client, "client");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.planner = new RotationPlanner(clock, policy, settings.servingNames());
  }

  /**
   * What a pass found that decides when the next one runs; what it wrote is in the log and on the
   * API server.
   *
   * @param webhookConfigurationFound false while the configuration does not exist (yet)
   * @param reviewAt when the plan must be looked at again at the latest
   */
  public record Result(boolean webhookConfigurationFound, Instant reviewAt) {}

  public Result reconcile() {
    Secret secret =
        client.secrets().inNamespace(settings.namespace()).withName(settings.secretName()).get();
    RotationState current =
        secret == null ? RotationState.empty() : RotationState.fromData(decode(secret));
    RotationPlanner.Reconciled outcome = planner.reconcile(current);
    CertificateSet target = outcome.state().set();

    MutatingWebhookConfiguration mwc =
        client
            .admissionRegistration()
            .v1()
            .mutatingWebhookConfigurations()
            .withName(settings.webhookConfigurationName())
            .get();
    List<String> patched = List.of();
    if (mwc == null) {
      LOG.warn(
          "tls: {} not found, caBundle not patched; retrying ({})",
          settings.webhookConfigurationName(),
          settings.describe());
    } else {
      patched = patchCaBundle(mwc, target.caBundleBase64());
    }

    if (outcome.changed()) {
      writeSecret(secret, outcome.state());
      LOG.info(
          "tls: {} the Secret: {}; serving cert valid until {} ({})",
          secret == null ? "created" : "updated",
          outcome.applied().stream()
              .map(a -> a.getClass().getSimpleName() + " (" + a.reason() + ")")
              .collect(Collectors.joining(", ")),
          target.notAfter(),
          settings.describe());
    }
    if (!patched.isEmpty()) {
      LOG.info(
          "tls: patched caBundle ({} CA(s)) of webhooks {} ({})",
          target.caCertificates().size(),
          patched,
          settings.describe());
    }
    return new Result(mwc != null, outcome.next().reviewAt());
  }

  /**
   * One JSON Patch for the webhooks whose caBundle differs; each replacement is guarded by a test
   * of the webhook's name at that index, so a concurrent edit that reorders the list fails the
   * patch instead of writing a bundle into someone else's webhook.
   */
  private List<String> patchCaBundle(MutatingWebhookConfiguration mwc, String caBundle) {
    List<Map<String, Object>> ops = new ArrayList<>();
    List<String> names = new ArrayList<>();
    List<MutatingWebhook> webhooks = mwc.getWebhooks() == null ? List.of() : mwc.getWebhooks();
    for (int i = 0; i < webhooks.size(); i++) {
      MutatingWebhook webhook = webhooks.get(i);
      String existing =
          webhook.getClientConfig() == null ? null : webhook.getClientConfig().getCaBundle();
      if (caBundle.equals(existing)) {
        continue;
      }
      ops.add(op("test", "/webhooks/" + i + "/name", webhook.getName()));
      if (webhook.getClientConfig() == null) {
        ops.add(op("add", "/webhooks/" + i + "/clientConfig", Map.of("caBundle", caBundle)));
      } else {
        ops.add(op("add", "/webhooks/" + i + "/clientConfig/caBundle", caBundle));
      }
      names.add(webhook.getName());
    }
    if (ops.isEmpty()) {
      return List.of();
    }
    client
        .admissionRegistration()
        .v1()
        .mutatingWebhookConfigurations()
        .withName(mwc.getMetadata().getName())
        .patch(PatchContext.of(PatchType.JSON), client.getKubernetesSerialization().asJson(ops));
    return names;
  }

  private static Map<String, Object> op(String op, String path, Object value) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("op", op);
    m.put("path", path);
    m.put("value", value);
    return m;
  }

  /**
   * Creates the Secret, or updates it at the resourceVersion it was read at: two replicas that both
   * believe they lead (briefly possible around a lease hand-over) cannot overwrite each other's CA.
   */
  private void writeSecret(Secret existing, RotationState state) {
    Map<String, String> data = new LinkedHashMap<>();
    if (existing != null && existing.getData() != null) {
      data.putAll(existing.getData());
    }
    state.toData().forEach((k, v) -> data.put(k, encode(v)));
    if (existing == null) {
      client
          .secrets()
          .inNamespace(settings.namespace())
          .resource(
              new SecretBuilder()
                  .withNewMetadata()
                  .withName(settings.secretName())
                  .withNamespace(settings.namespace())
                  .addToLabels(MANAGED_BY_LABEL, MANAGED_BY)
                  .endMetadata()
                  .withType("kubernetes.io/tls")
                  .withData(data)
                  .build())
          .create();
    } else {
      Secret updated = new SecretBuilder(existing).withData(data).withStringData(null).build();
      client.secrets().inNamespace(settings.namespace()).resource(updated).update();
    }
  }

  public static Map<String, String> decode(Secret secret) {
    Map<String, String> out = new LinkedHashMap<>();
    if (secret.getData() != null) {
      secret
          .getData()
          .forEach(
              (k, v) ->
                  out.put(
                      k,
                      v == null
                          ? null
                          : new String(
                              Base64.getMimeDecoder().decode(v), StandardCharsets.US_ASCII)));
    }
    return out;
  }

  private static String encode(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.US_ASCII));
  }
}
