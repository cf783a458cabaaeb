package io.meshinjector.webhook.revisions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A tag's webhook configuration, built from the revision it points at. */
class TagWebhooksTest {
  static final String CA_STABLE = pem("STABLE");
  static final String CA_CANARY = pem("CANARY");

  static String pem(String body) {
    return "-----BEGIN CERTIFICATE-----\n" + body + "\n-----END CERTIFICATE-----\n";
  }

  static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.US_ASCII));
  }

  static MutatingWebhookConfiguration revision(String name, String url, String ca) {
    return new MutatingWebhookConfigurationBuilder()
        .withNewMetadata()
        .withName(name + "-mesh-injector")
        .withUid("uid-" + name)
        .withLabels(Map.of("mesh-injector.io/revision", name))
        .withAnnotations(Map.of(TagWebhooks.FAILURE_POLICY, "Fail"))
        .endMetadata()
        .addNewWebhook()
        .withName(RouteEntries.CATCH_ALL)
        .withFailurePolicy("Ignore")
        .withNewClientConfig()
        .withUrl(url + "/mutate/unrouted")
        .withCaBundle(b64(ca))
        .endClientConfig()
        .withNewNamespaceSelector()
        .addNewMatchExpression()
        .withKey("mesh-injector.io/injection")
        .withOperator("NotIn")
        .withValues("enabled", name)
        .endMatchExpression()
        .addNewMatchExpression()
        .withKey("kubernetes.io/metadata.name")
        .withOperator("NotIn")
        .withValues("mi-" + name)
        .endMatchExpression()
        .endNamespaceSelector()
        .addNewMatchCondition()
        .withName("injection-incomplete")
        .withExpression("true")
        .endMatchCondition()
        .endWebhook()
        .build();
  }

  @Test
  void aTagRoutesItsNamespacesToTheRevisionFailingClosedAndOwnedByIt() {
    MutatingWebhookConfiguration tag =
        TagWebhooks.pointing(
            "default", revision("stable", "https://10.0.0.1:8443", CA_STABLE), null);
    assertThat(tag.getMetadata().getName()).isEqualTo("mesh-injector-tag-default");
    assertThat(tag.getMetadata().getLabels())
        .containsEntry("mesh-injector.io/tag", "default")
        .containsEntry("mesh-injector.io/revision", "stable");
    assertThat(tag.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getUid()).isEqualTo("uid-stable"));
    List<MutatingWebhook> w = tag.getWebhooks();
    assertThat(w)
        .extracting(MutatingWebhook::getName)
        .containsExactly(RouteEntries.ROUTED, RouteEntries.POD_REV, RouteEntries.OTHER_REV);
    assertThat(w)
        .extracting(MutatingWebhook::getFailurePolicy)
        .containsExactly("Fail", "Fail", "Ignore");
    assertThat(w)
        .extracting(e -> e.getClientConfig().getUrl())
        .containsExactly(
            "https://10.0.0.1:8443/mutate",
            "https://10.0.0.1:8443/mutate",
            "https://10.0.0.1:8443/mutate/unrouted");
    // the default tag's label value is the one the label always had
    assertThat(w.get(0).getNamespaceSelector().getMatchExpressions().get(0).getValues())
        .containsExactly("enabled");
    // the exclusions are kept, the catch-all's own routing expression is not
    assertThat(w.get(0).getNamespaceSelector().getMatchExpressions())
        .extracting(r -> r.getKey())
        .containsExactly("mesh-injector.io/injection", "kubernetes.io/metadata.name");
    assertThat(w.get(0).getMatchConditions())
        .extracting(c -> c.getName())
        .containsExactly("rev-is-this", "injection-incomplete");
  }

  @Test
  void movingATagKeepsTheOldBundleBesideTheNewOnceAndChangesTheOwner() {
    MutatingWebhookConfiguration before =
        TagWebhooks.pointing("prod", revision("stable", "https://a:1", CA_STABLE), null);
    before.getMetadata().setResourceVersion("42");
    MutatingWebhookConfiguration moved =
        TagWebhooks.pointing("prod", revision("canary", "https://b:2", CA_CANARY), before);
    assertThat(moved.getMetadata().getResourceVersion()).isEqualTo("42");
    assertThat(moved.getMetadata().getLabels())
        .containsEntry("mesh-injector.io/revision", "canary");
    assertThat(moved.getMetadata().getOwnerReferences().get(0).getUid()).isEqualTo("uid-canary");
    String bundle =
        new String(
            Base64.getDecoder().decode(moved.getWebhooks().get(0).getClientConfig().getCaBundle()),
            StandardCharsets.US_ASCII);
    assertThat(bundle).startsWith(CA_CANARY.trim()).contains("STABLE");
    assertThat(moved.getWebhooks().get(0).getClientConfig().getUrl())
        .isEqualTo("https://b:2/mutate");
  }

  @Test
  void aNameThatIsNoTagOrAConfigurationThatIsNoRevisionIsRefused() {
    MutatingWebhookConfiguration stable = revision("stable", "https://a:1", CA_STABLE);
    assertThatThrownBy(() -> TagWebhooks.pointing("Prod", stable, null))
        .hasMessageContaining("'Prod' is not a revision or tag name");
    assertThatThrownBy(() -> TagWebhooks.pointing("enabled", stable, null))
        .hasMessageContaining("reserved");
    MutatingWebhookConfiguration unlabelled =
        new MutatingWebhookConfigurationBuilder(stable)
            .editMetadata()
            .withLabels(Map.of())
            .endMetadata()
            .build();
    assertThatThrownBy(() -> TagWebhooks.pointing("prod", unlabelled, null))
        .hasMessageContaining("is not a revision's webhook configuration");
  }
}
