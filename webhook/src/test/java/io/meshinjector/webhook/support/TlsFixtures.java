package io.meshinjector.webhook.support;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.webhook.tls.TlsSettings;
import java.util.Arrays;

/** Objects and settings the tls tests share. */
public final class TlsFixtures {
  public static final String NAMESPACE = "mesh-injector";

  private TlsFixtures() {}

  public static MeshConfig config(String yaml) {
    return ConfigLoader.fromYaml(yaml);
  }

  public static TlsSettings settings(String mode) {
    return TlsSettings.from(config("webhook:\n  tls:\n    mode: " + mode + "\n"), NAMESPACE);
  }

  /** A webhook configuration whose webhooks call the mesh-injector Service. */
  public static MutatingWebhookConfiguration webhookConfiguration(
      String name, String caBundle, String... webhooks) {
    return new MutatingWebhookConfigurationBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withWebhooks(
            Arrays.stream(webhooks)
                .map(
                    w ->
                        new MutatingWebhookBuilder()
                            .withName(w)
                            .withAdmissionReviewVersions("v1")
                            .withSideEffects("None")
                            .withNewClientConfig()
                            .withCaBundle(caBundle)
                            .withNewService()
                            .withName("mesh-injector")
                            .withNamespace(NAMESPACE)
                            .withPath("/mutate")
                            .endService()
                            .endClientConfig()
                            .build())
                .toList())
        .build();
  }
}
