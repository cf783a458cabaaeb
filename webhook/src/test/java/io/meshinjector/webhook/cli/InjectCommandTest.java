package io.meshinjector.webhook.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.meshinjector.templates.WorkloadTemplates;
import io.meshinjector.webhook.manifest.Manifests;
import io.meshinjector.webhook.support.Cli;
import io.meshinjector.webhook.support.Reviews;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class InjectCommandTest {
  static final String CLUSTER = Reviews.example("cluster.yaml").toString();
  static final String DECISION = "mesh-injector.io/decision";

  static Path manifest(String name) throws URISyntaxException {
    return Path.of(InjectCommandTest.class.getResource("/manifests/" + name).toURI());
  }

  static JsonNode decisionOf(JsonNode doc) {
    List<WorkloadTemplates.PodTemplateRef> templates = WorkloadTemplates.podTemplates(doc, "");
    assertThat(templates).hasSize(1);
    return templates.get(0).template().path("metadata").path("annotations").path(DECISION);
  }

  @Test
  void injectsTheTemplateOfEveryWorkloadKindAndLeavesOtherDocumentsAsTheyWere() throws Exception {
    Path file = manifest("every-kind.yaml");
    Cli.Run run = Cli.run("inject", "-f", file.toString(), "--cluster", CLUSTER);

    assertThat(run.code()).as(run.err()).isZero();
    List<JsonNode> in = Manifests.read(file);
    List<JsonNode> out = Manifests.parse(run.out(), "output");
    assertThat(out.stream().map(d -> d.path("kind").asText()))
        .containsExactly(
            "Service",
            "Pod",
            "Deployment",
            "StatefulSet",
            "DaemonSet",
            "ReplicaSet",
            "ReplicationController",
            "Job",
            "CronJob",
            "ConfigMap");
    assertThat(out.get(0)).isEqualTo(in.get(0));
    assertThat(out.get(9)).isEqualTo(in.get(9));
    // numbers and booleans written as strings stay strings
    assertThat(out.get(9).path("data").path("port").isTextual()).isTrue();
    assertThat(out.get(9).path("data").path("debug").isTextual()).isTrue();
    for (int i = 1; i <= 8; i++) {
      String kind = out.get(i).path("kind").asText();
      String expected =
          kind.equals("DaemonSet")
              ? "cni native-sidecar await constrained"
              : "init/nft native-sidecar await";
      assertThat(decisionOf(out.get(i)).asText()).as(kind).isEqualTo(expected);
      assertThat(CorpusTest.withoutTemplates(out.get(i)))
          .as(kind)
          .isEqualTo(CorpusTest.withoutTemplates(in.get(i)));
    }
  }

  @Test
  void aListInJsonComesBackAsAListWithItsItemsInjected() throws Exception {
    Cli.Run run = Cli.run("inject", "-f", manifest("list.json").toString(), "--cluster", CLUSTER);

    assertThat(run.code()).as(run.err()).isZero();
    List<JsonNode> out = Manifests.parse(run.out(), "output");
    assertThat(out).hasSize(1);
    JsonNode list = out.get(0);
    assertThat(list.path("kind").asText()).isEqualTo("List");
    assertThat(list.path("items")).hasSize(2);
    assertThat(decisionOf(list.path("items").get(0)).asText())
        .isEqualTo("cni native-sidecar await constrained");
    assertThat(list.path("items").get(1))
        .isEqualTo(Manifests.read(manifest("list.json")).get(0).path("items").get(1));
  }

  @Test
  void readsStandardInputAndInjectingTwiceChangesNothing() throws Exception {
    String yaml = Files.readString(manifest("every-kind.yaml"));
    Cli.Run first = Cli.runWithStdin(yaml, "inject", "-f", "-", "--cluster", CLUSTER);
    assertThat(first.code()).as(first.err()).isZero();
    assertThat(Manifests.parse(first.out(), "output")).hasSize(10);

    Cli.Run second = Cli.runWithStdin(first.out(), "inject", "-f", "-", "--cluster", CLUSTER);
    assertThat(second.code()).isZero();
    assertThat(second.out()).isEqualTo(first.out());
  }

  @Test
  void aRefusedPodGivesTheReasonOnStderrAndExitStatus3() throws Exception {
    Path file = manifest("refused.yaml");
    Cli.Run run = Cli.run("inject", "-f", file.toString(), "--cluster", CLUSTER);

    assertThat(run.code()).isEqualTo(ExitCodes.REFUSED);
    assertThat(run.err())
        .contains("refused: shop/Pod/bad")
        .contains("mesh-injector.io/redirect")
        .contains("teleport");
    List<JsonNode> out = Manifests.parse(run.out(), "output");
    // every document is still printed: the refused one unchanged, the other injected
    assertThat(out.get(0)).isEqualTo(Manifests.read(file).get(0));
    assertThat(decisionOf(out.get(1)).asText()).isEqualTo("init/nft native-sidecar await");
  }

  @Test
  void aliasesAndMergeKeysAreExpandedBeforeInjecting() throws Exception {
    Path file = manifest("anchors.yaml");
    Cli.Run run = Cli.run("inject", "-f", file.toString(), "--cluster", CLUSTER);

    assertThat(run.code()).as(run.err()).isZero();
    JsonNode out = Manifests.parse(run.out(), "output").get(0);
    assertThat(decisionOf(out).asText()).isEqualTo("init/nft native-sidecar await");
    JsonNode template = out.path("spec").path("template");
    assertThat(template.path("metadata").path("labels").path("app").asText()).isEqualTo("web");
    assertThat(template.path("metadata").path("annotations").path("app").asText()).isEqualTo("web");
    JsonNode worker = template.path("spec").path("containers").get(1);
    assertThat(worker.path("name").asText()).isEqualTo("worker");
    assertThat(worker.path("image").asText()).isEqualTo("nginx:1.27");
    assertThat(worker.path("env").get(0).path("value").asText()).isEqualTo("on");
    // kubectl reads an unquoted on as true, which an env value must not be
    assertThat(run.out()).doesNotContain("value: on\n").contains("value: \"on\"\n");
  }

  @Test
  void aYamlFileInFlowStyleIsInjected() {
    Cli.Run run =
        Cli.runWithStdin(
            "{apiVersion: v1, kind: Pod, metadata: {name: solo, namespace: shop},"
                + " spec: {nodeSelector: {pool: rhel}, containers: [{name: app, image: busybox}]}}",
            "inject",
            "-f",
            "-",
            "--cluster",
            CLUSTER);

    assertThat(run.code()).as(run.err()).isZero();
    assertThat(decisionOf(Manifests.parse(run.out(), "output").get(0)).asText())
        .isEqualTo("init/nft native-sidecar await");
  }

  @Test
  void aNamespaceTheClusterFilesDoNotKnowCountsAsEnabledButThePodsOwnOptOutWins() throws Exception {
    Path file = manifest("unknown-namespace.yaml");
    Cli.Run run =
        Cli.run("inject", "-f", file.toString(), "--cluster", CLUSTER, "-n", "legacy-apps");

    assertThat(run.code()).as(run.err()).isZero();
    List<JsonNode> in = Manifests.read(file);
    List<JsonNode> out = Manifests.parse(run.out(), "output");
    assertThat(decisionOf(out.get(0)).asText()).isEqualTo("init/nft native-sidecar await");
    assertThat(out.get(1)).isEqualTo(in.get(1));
    // legacy-apps is in the cluster files without the annotation: not enabled
    assertThat(out.get(2)).isEqualTo(in.get(2));
  }

  @Test
  void readsBothSpellingsOfTheInjectAnnotationAndDisabledWinsAConflict() throws Exception {
    Path file = manifest("inject-spellings.yaml");
    Cli.Run run =
        Cli.run(
            "inject",
            "-f",
            file.toString(),
            "--cluster",
            CLUSTER,
            "--cluster",
            Reviews.testCluster("inject-spellings.yaml").toString());

    assertThat(run.code()).as(run.err()).isZero();
    List<JsonNode> in = Manifests.read(file);
    List<JsonNode> out = Manifests.parse(run.out(), "output");
    // shop: inject: enabled; alias: mesh-injector.io/inject: enabled
    assertThat(decisionOf(out.get(0)).asText()).isEqualTo("init/nft native-sidecar await");
    assertThat(decisionOf(out.get(1)).asText()).isEqualTo("init/nft native-sidecar await");
    // mixed: both, disagreeing: left as it was, and the warning names both keys
    assertThat(out.get(2)).isEqualTo(in.get(2));
    assertThat(run.err())
        .contains(
            "warning: mixed/Deployment/web: namespace mixed carries both inject: enabled and"
                + " mesh-injector.io/inject: disabled; they disagree, so disabled wins");
  }

  @Test
  void exitStatusesForUnusableInput() throws Exception {
    Cli.Run missing = Cli.run("inject", "-f", "/no/such/file.yaml");
    assertThat(missing.code()).isEqualTo(ExitCodes.INPUT);
    assertThat(missing.err()).contains("/no/such/file.yaml").contains("no such file");

    Cli.Run garbage = Cli.runWithStdin("kind: [unclosed", "inject", "-f", "-");
    assertThat(garbage.code()).isEqualTo(ExitCodes.INPUT);
    assertThat(garbage.err())
        .contains("standard input: not valid YAML at line 1, column 16: ")
        .contains("flow sequence that starts at line 1, column 7");

    Path badConfig = Files.createTempFile("config", ".yaml");
    Files.writeString(badConfig, "policy:\n  mixedNodes: sometimes\n");
    Cli.Run config =
        Cli.run("inject", "-f", manifest("list.json").toString(), "--config", badConfig.toString());
    assertThat(config.code()).isEqualTo(ExitCodes.INPUT);
    assertThat(config.err()).contains("policy.mixedNodes").contains("sometimes");
    Files.delete(badConfig);

    // what the webhook answers with a 400 gives the same words here, not a NullPointerException
    for (String command : new String[] {"inject", "explain"}) {
      Cli.Run unnamed =
          Cli.runWithStdin(
              "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\n"
                  + "spec:\n  containers:\n  - image: app:1\n",
              command,
              "-f",
              "-",
              "--cluster",
              CLUSTER);
      assertThat(unnamed.code()).as(command).isEqualTo(ExitCodes.INPUT);
      assertThat(unnamed.err())
          .as(command)
          .contains("shop/Pod/p: the pod template is not valid: spec.containers[0].name is missing")
          .doesNotContain("NullPointerException");
    }

    Cli.Run usage = Cli.run("inject");
    assertThat(usage.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(usage.err()).contains("--filename");
  }

  @Test
  void everyCommandHasHelp() {
    for (String command :
        new String[] {
          "serve",
          "inject",
          "explain",
          "check",
          "tag",
          "tag set",
          "tag list",
          "tag remove",
          "probe",
          "certs"
        }) {
      List<String> args = new ArrayList<>(List.of(command.split(" ")));
      args.add("--help");
      Cli.Run run = Cli.run(args.toArray(String[]::new));
      assertThat(run.code()).as(command).isZero();
      assertThat(run.out()).as(command).startsWith("Usage: mesh-injector " + command);
    }
    Cli.Run top = Cli.run("--help");
    assertThat(top.code()).isZero();
    assertThat(top.out())
        .contains("serve", "inject", "explain", "check", "tag", "probe", "certs")
        .contains("5   check: a check failed")
        .contains("6   tag: refused or raced, nothing written");
    Cli.Run tagAlone = Cli.run("tag");
    assertThat(tagAlone.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(tagAlone.err()).contains("name a subcommand: set, list or remove");
  }
}
