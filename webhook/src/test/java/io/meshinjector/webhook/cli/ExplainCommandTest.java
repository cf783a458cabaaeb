package io.meshinjector.webhook.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.meshinjector.webhook.manifest.Manifests;
import io.meshinjector.webhook.support.Cli;
import io.meshinjector.webhook.support.Reviews;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExplainCommandTest {
  static final String CLUSTER = Reviews.example("cluster.yaml").toString();
  static final String DEPLOYMENTS = Reviews.example("deployment.yaml").toString();

  @Test
  void jsonHasTheArchitecturesFieldsOneObjectPerTemplateInInputOrder() throws Exception {
    Cli.Run run = Cli.run("explain", "-f", DEPLOYMENTS, "--cluster", CLUSTER, "-o", "json");

    assertThat(run.code()).as(run.err()).isZero();
    JsonNode array = Manifests.json().readTree(run.out());
    assertThat(array.isArray()).isTrue();
    assertThat(array).hasSize(3);
    for (JsonNode o : array) {
      List<String> fields = new ArrayList<>();
      o.fieldNames().forEachRemaining(fields::add);
      assertThat(fields)
          .containsExactly(
              "workload",
              "inject",
              "rejected",
              "reason",
              "redirect",
              "iptablesMode",
              "proxy",
              "proxyAwait",
              "ipv6",
              "candidateNodes",
              "candidateCount",
              "nodeConstraint",
              "warnings",
              "trace",
              // added with revisions: the revision that would inject it, and through which tag
              "revision",
              // added with Linkerd's annotations: each that applies, and from where; the last
              "overrides");
    }
    JsonNode web = array.get(0);
    JsonNode checkout = array.get(1);
    JsonNode payments = array.get(2);
    assertThat(web.path("workload").asText()).isEqualTo("shop/Deployment/web");
    assertThat(web.path("candidateCount").asInt()).isEqualTo(5);
    assertThat(web.path("nodeConstraint").path("matchExpressions").get(0).path("key").asText())
        .isEqualTo("capability.mesh-injector.io/iptables-nft");
    assertThat(web.path("warnings")).isNotEmpty();

    assertThat(checkout.path("workload").asText()).isEqualTo("shop/Deployment/checkout");
    assertThat(checkout.path("inject").asBoolean()).isTrue();
    assertThat(checkout.path("rejected").asBoolean()).isFalse();
    assertThat(checkout.path("reason").isNull()).isTrue();
    assertThat(checkout.path("redirect").asText()).isEqualTo("init");
    assertThat(checkout.path("iptablesMode").asText()).isEqualTo("nft");
    assertThat(checkout.path("proxy").asText()).isEqualTo("native-sidecar");
    assertThat(checkout.path("proxyAwait").asBoolean()).isTrue();
    assertThat(checkout.path("candidateNodes").toString()).isEqualTo("[\"rhel-1\",\"rhel-2\"]");
    assertThat(checkout.path("nodeConstraint").isNull()).isTrue();
    assertThat(checkout.path("trace")).isNotEmpty();

    assertThat(payments.path("redirect").asText()).isEqualTo("cni");
    assertThat(payments.path("iptablesMode").isNull()).isTrue();
    assertThat(payments.path("nodeConstraint").toString())
        .isEqualTo(
            "{\"matchExpressions\":[{\"key\":\"capability.mesh-injector.io/cni\","
                + "\"operator\":\"In\",\"values\":[\"ready\"]}]}");
  }

  @Test
  void withClusterFilesTheRouteIsThisReleasesRevisionForTheRevisionsWereNotRead() throws Exception {
    Cli.Run json = Cli.run("explain", "-f", DEPLOYMENTS, "--cluster", CLUSTER, "-o", "json");

    assertThat(json.code()).as(json.err()).isZero();
    JsonNode route = Manifests.json().readTree(json.out()).get(1).path("revision");
    assertThat(route.toString())
        .isEqualTo(
            "{\"asked\":\"default\",\"from\":\"no mesh-injector.io/rev: the default tag\","
                + "\"revision\":\"default\",\"tag\":null,\"release\":null}");

    Cli.Run text = Cli.run("explain", "-f", DEPLOYMENTS, "--cluster", CLUSTER);
    assertThat(text.out())
        .contains(
            "  revision:   this release's revision default (the cluster's revisions were not"
                + " read)\n");
  }

  @Test
  void textIsATableAndVerboseAddsTheTrace() {
    Cli.Run run = Cli.run("explain", "-f", DEPLOYMENTS, "--cluster", CLUSTER);

    assertThat(run.code()).as(run.err()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(0))
        .startsWith("WORKLOAD")
        .contains("PATH", "MODE", "PROXY", "AWAIT", "CLASSES", "CONSTRAINT");
    assertThat(lines.get(2))
        .matches("shop/Deployment/checkout +inject +init +nft +native-sidecar +yes +2 +1 +-");
    assertThat(run.out()).contains("node classes:").doesNotContain("trace:");

    Cli.Run verbose = Cli.run("explain", "-f", DEPLOYMENTS, "--cluster", CLUSTER, "-v");
    assertThat(verbose.out()).contains("trace:").contains("choice: init/nft works on every");
  }

  @Test
  void aRefusedPodIsExitStatus3WithTheReasonOnStderrAsWell() throws Exception {
    String refused = InjectCommandTest.manifest("refused.yaml").toString();
    Cli.Run run = Cli.run("explain", "-f", refused, "--cluster", CLUSTER, "-o", "json");

    assertThat(run.code()).isEqualTo(ExitCodes.REFUSED);
    assertThat(run.err().lines())
        .containsExactly(
            "refused: shop/Pod/bad: annotation mesh-injector.io/redirect has invalid value"
                + " 'teleport': allowed values are auto, init, cni");
    JsonNode bad = Manifests.json().readTree(run.out()).get(0);
    assertThat(bad.path("rejected").asBoolean()).isTrue();
    assertThat(bad.path("inject").asBoolean()).isFalse();
    assertThat(bad.path("reason").asText()).contains("mesh-injector.io/redirect");
    assertThat(bad.path("redirect").isNull()).isTrue();
    assertThat(bad.path("proxy").isNull()).isTrue();

    Cli.Run text = Cli.run("explain", "-f", refused, "--cluster", CLUSTER);
    assertThat(text.code()).isEqualTo(ExitCodes.REFUSED);
    assertThat(text.err()).isEqualTo(run.err());
  }

  @Test
  void readsBothSpellingsOfTheInjectAnnotationAndWarnsOfAConflict() throws Exception {
    String file =
        Path.of(ExplainCommandTest.class.getResource("/manifests/inject-spellings.yaml").toURI())
            .toString();
    String spellings = Reviews.testCluster("inject-spellings.yaml").toString();
    Cli.Run run =
        Cli.run("explain", "-f", file, "--cluster", CLUSTER, "--cluster", spellings, "-o", "json");

    assertThat(run.code()).as(run.err()).isZero();
    JsonNode array = Manifests.json().readTree(run.out());
    assertThat(array).hasSize(3);
    assertThat(array.get(0).path("workload").asText()).isEqualTo("shop/Deployment/web");
    assertThat(array.get(0).path("inject").asBoolean()).isTrue();
    assertThat(array.get(0).path("trace").toString())
        .contains("injection enabled by the namespace shop (inject: enabled)");
    assertThat(array.get(1).path("workload").asText()).isEqualTo("alias/Deployment/web");
    assertThat(array.get(1).path("inject").asBoolean()).isTrue();
    assertThat(array.get(1).path("trace").toString())
        .contains("injection enabled by the namespace alias (mesh-injector.io/inject: enabled)");
    JsonNode mixed = array.get(2);
    assertThat(mixed.path("inject").asBoolean()).isFalse();
    assertThat(mixed.path("rejected").asBoolean()).isFalse();
    assertThat(mixed.path("reason").asText())
        .isEqualTo("injection disabled by the namespace mixed");
    assertThat(mixed.path("warnings")).hasSize(1);
    assertThat(mixed.path("warnings").get(0).asText())
        .contains("inject: enabled", "mesh-injector.io/inject: disabled", "disabled wins");

    Cli.Run text = Cli.run("explain", "-f", file, "--cluster", CLUSTER, "--cluster", spellings);
    assertThat(text.code()).as(text.err()).isZero();
    assertThat(text.out())
        .contains("mixed/Deployment/web  skip injection-disabled")
        .contains("namespace mixed carries both inject: enabled and mesh-injector.io/inject");
  }

  @Test
  void showsTheActiveChecksVerdictAndItsSource() throws Exception {
    String pod =
        Path.of(ExplainCommandTest.class.getResource("/manifests/active-check.yaml").toURI())
            .toString();
    String cluster = Reviews.testCluster("active-check.yaml").toString();

    Cli.Run run = Cli.run("explain", "-f", pod, "--cluster", cluster);

    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out())
        .contains(
            "iptables-legacy unavailable (probe: observed 2099-01-01T00:00:00Z, active check,"
                + " iptables-legacy -t nat -N MESH_INJECTOR_PROBE failed: iptables v1.8.9"
                + " (legacy): can't initialize iptables table `nat': Table does not exist (do you"
                + " need to insmod?))")
        .contains(
            "iptables-nft available (probe: observed 2099-01-01T00:00:00Z, active check,"
                + " iptables-nft created a nat chain with a REDIRECT rule in a new network"
                + " namespace and read it back (iptables-nft-save v1.8.9 (nf_tables)))")
        .contains("cni absent (probe: observed 2099-01-01T00:00:00Z, from the node's files,");
  }
}
