package io.meshinjector.webhook.cli;

import static io.meshinjector.webhook.support.RevisionFixtures.namespace;
import static io.meshinjector.webhook.support.RevisionFixtures.serve;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.meshinjector.engine.revisions.RevisionNames;
import io.meshinjector.webhook.manifest.Manifests;
import io.meshinjector.webhook.support.Cli;
import io.meshinjector.webhook.support.ClusterFixtures;
import io.meshinjector.webhook.support.RevisionFixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code explain}'s route on a live cluster with revisions and tags (fabric8's CRUD mock server):
 * the pod's own {@code mesh-injector.io/rev} wins over its namespace's, which wins over the default
 * tag, and a name no release serves is said to be unknown.
 */
@EnableKubernetesMockClient(crud = true)
class ExplainRouteTest {
  KubernetesClient client;

  @TempDir Path tmp;
  String kubeconfig;
  String pods;

  static String pod(String ns, String name, String rev) {
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: "
        + name
        + ", namespace: "
        + ns
        + (rev == null ? "" : ", annotations: {mesh-injector.io/rev: " + rev + "}")
        + "}\nspec: {containers: [{name: app, image: app:1}]}\n";
  }

  @BeforeEach
  void cluster() throws Exception {
    kubeconfig = RevisionFixtures.kubeconfig(tmp, client).toString();
    client.resource(ClusterFixtures.node("rhel-1", ClusterFixtures.RHEL, "v1.31.4")).create();
    MutatingWebhookConfiguration one = serve(client, "1-1", "AAAA", 1);
    MutatingWebhookConfiguration two = serve(client, "1-2", "BBBB", 1);
    RevisionFixtures.tag(client, RevisionNames.DEFAULT, one);
    RevisionFixtures.tag(client, "prod", two);
    namespace(client, "shop", Map.of("inject", "enabled", RevisionNames.REV, "prod"), "prod");
    namespace(client, "web", Map.of("inject", "enabled"), RevisionNames.DEFAULT_ROUTE);
    Path file = tmp.resolve("pods.yaml");
    Files.writeString(
        file,
        String.join(
            "---\n",
            pod("shop", "follows-namespace", null),
            pod("shop", "names-revision", "1-1"),
            pod("web", "follows-default", null),
            pod("web", "typo", "1-3")));
    pods = file.toString();
  }

  @Test
  void jsonNamesTheRevisionTheTagAndTheReleaseOrWhyTheNameIsUnknown() throws Exception {
    Cli.Run run = Cli.run("explain", "-f", pods, "--kubeconfig", kubeconfig, "-o", "json");

    JsonNode d = Manifests.json().readTree(run.out());
    assertThat(d).hasSize(4);
    assertThat(d.get(0).path("revision").toString())
        .isEqualTo(
            "{\"asked\":\"prod\",\"from\":\"namespace shop's mesh-injector.io/rev\","
                + "\"revision\":\"1-2\",\"tag\":\"prod\","
                + "\"release\":{\"namespace\":\"mesh-1-2\",\"name\":\"mi-1-2\"}}");
    assertThat(d.get(1).path("revision").path("revision").asText()).isEqualTo("1-1");
    assertThat(d.get(1).path("revision").path("tag").isNull()).isTrue();
    assertThat(d.get(1).path("revision").path("from").asText())
        .isEqualTo("the pod's mesh-injector.io/rev");
    assertThat(d.get(2).path("revision").path("tag").asText()).isEqualTo("default");
    assertThat(d.get(2).path("revision").path("revision").asText()).isEqualTo("1-1");
    assertThat(d.get(3).path("revision").toString())
        .isEqualTo(
            "{\"asked\":\"1-3\",\"from\":\"the pod's mesh-injector.io/rev\",\"unknown\":\"the"
                + " pod's mesh-injector.io/rev names revision 1-3, which no release serves"
                + " (served: 1-1, 1-2; tags: default, prod)\"}");
    // the contract: overrides stays the last field, revision comes just before it
    List<String> fields = new ArrayList<>();
    d.get(0).fieldNames().forEachRemaining(fields::add);
    assertThat(fields.subList(fields.size() - 2, fields.size()))
        .containsExactly("revision", "overrides");
  }

  @Test
  void textSaysTheRevisionThroughWhichTagFromWhereAndItsRelease() {
    Cli.Run run = Cli.run("explain", "-f", pods, "--kubeconfig", kubeconfig);

    assertThat(run.out())
        .contains(
            "shop/Pod/follows-namespace\n"
                + "  revision:   1-2 via tag prod (from namespace shop's mesh-injector.io/rev),"
                + " release mesh-1-2/mi-1-2\n")
        .contains(
            "  revision:   1-1 (from the pod's mesh-injector.io/rev), release mesh-1-1/mi-1-1\n")
        .contains(
            "  revision:   1-1 via tag default (from no mesh-injector.io/rev: the default tag),"
                + " release mesh-1-1/mi-1-1\n")
        .contains(
            "  revision:   the pod's mesh-injector.io/rev names revision 1-3, which no release"
                + " serves");
  }
}
