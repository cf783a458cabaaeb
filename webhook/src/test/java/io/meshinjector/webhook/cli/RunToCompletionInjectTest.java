package io.meshinjector.webhook.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.meshinjector.templates.WorkloadTemplates;
import io.meshinjector.webhook.manifest.Manifests;
import io.meshinjector.webhook.support.Cli;
import io.meshinjector.webhook.support.Reviews;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Job and a CronJob through {@code inject} and {@code explain}: the Job's pool mixes kubelets, so
 * it comes out constrained to the nodes that run native sidecars with the proxy as one; the
 * CronJob's pool has kubelet 1.27 only, so {@code policy.runToCompletion} decides, each value with
 * its message.
 */
class RunToCompletionInjectTest {
  static final String EXAMPLES = Reviews.example("cluster.yaml").toString();
  static final String BATCH = Reviews.testCluster("run-to-completion.yaml").toString();
  static final String NATIVE_LABEL = "capability.mesh-injector.io/native-sidecar";

  @TempDir Path tmp;

  static String jobs() throws Exception {
    return Path.of(RunToCompletionInjectTest.class.getResource("/manifests/jobs.yaml").toURI())
        .toString();
  }

  Cli.Run inject(String policy) throws Exception {
    List<String> args =
        new ArrayList<>(List.of("inject", "-f", jobs(), "--cluster", EXAMPLES, "--cluster", BATCH));
    if (policy != null) {
      Path config = tmp.resolve("config.yaml");
      Files.writeString(config, "policy: {runToCompletion: " + policy + "}\n");
      args.addAll(List.of("--config", config.toString()));
    }
    return Cli.run(args.toArray(String[]::new));
  }

  static JsonNode template(JsonNode doc) {
    List<WorkloadTemplates.PodTemplateRef> t = WorkloadTemplates.podTemplates(doc, "");
    assertThat(t).hasSize(1);
    return t.get(0).template();
  }

  static String decision(JsonNode doc) {
    return template(doc)
        .path("metadata")
        .path("annotations")
        .path("mesh-injector.io/decision")
        .asText(null);
  }

  static List<String> names(JsonNode containers) {
    List<String> names = new ArrayList<>();
    containers.forEach(c -> names.add(c.path("name").asText()));
    return names;
  }

  @Test
  void theJobOnMixedKubeletsIsConstrainedToNativeSidecarNodes() throws Exception {
    Cli.Run run = inject("inject");
    assertThat(run.code()).as(run.err()).isZero();
    JsonNode job = Manifests.parse(run.out(), "output").get(0);

    assertThat(decision(job)).isEqualTo("init/nft native-sidecar await constrained");
    JsonNode spec = template(job).path("spec");
    assertThat(names(spec.path("initContainers"))).containsExactly("linkerd-init", "linkerd-proxy");
    assertThat(spec.path("initContainers").get(1).path("restartPolicy").asText())
        .isEqualTo("Always");
    assertThat(names(spec.path("containers"))).containsExactly("migrate");
    JsonNode expr =
        spec.path("affinity")
            .path("nodeAffinity")
            .path("requiredDuringSchedulingIgnoredDuringExecution")
            .path("nodeSelectorTerms")
            .get(0)
            .path("matchExpressions");
    assertThat(expr).hasSize(1);
    assertThat(expr.get(0).path("key").asText()).isEqualTo(NATIVE_LABEL);
    assertThat(expr.get(0).path("operator").asText()).isEqualTo("In");
    assertThat(expr.get(0).path("values")).hasSize(1);
    assertThat(expr.get(0).path("values").get(0).asText()).isEqualTo("supported");
    assertThat(run.err())
        .contains("warning: batch/Job/mixed-kubelets: pod constrained to nodes that run native")
        .contains("batch-old");
  }

  @Test
  void theCronJobOnOldKubeletsIsRefusedByDefaultWithTheReasonAndTheFix() throws Exception {
    Cli.Run run = inject(null);

    assertThat(run.code()).isEqualTo(ExitCodes.REFUSED);
    assertThat(run.err())
        .contains("refused: shop/CronJob/old-kubelets")
        .contains("runs to completion (restartPolicy: OnFailure)")
        .contains("centos-1", "native-sidecar unsupported")
        .contains("Fix:", "kubelet is 1.29 or later", "policy.runToCompletion: inject");
    List<JsonNode> out = Manifests.parse(run.out(), "output");
    // the refused document is printed unchanged, the Job still injected
    assertThat(out.get(1)).isEqualTo(Manifests.read(Path.of(jobs())).get(1));
    assertThat(decision(out.get(0))).isEqualTo("init/nft native-sidecar await constrained");
  }

  @Test
  void skipAdmitsTheCronJobUninjectedWithAWarning() throws Exception {
    Cli.Run run = inject("skip");

    assertThat(run.code()).as(run.err()).isZero();
    assertThat(Manifests.parse(run.out(), "output").get(1))
        .isEqualTo(Manifests.read(Path.of(jobs())).get(1));
    assertThat(run.err())
        .contains("warning: shop/CronJob/old-kubelets:")
        .contains("admitted without injection (policy.runToCompletion: skip)");
  }

  @Test
  void injectGivesTheCronJobARegularProxyContainerWithAWarning() throws Exception {
    Cli.Run run = inject("inject");

    assertThat(run.code()).as(run.err()).isZero();
    JsonNode cron = Manifests.parse(run.out(), "output").get(1);
    assertThat(decision(cron)).isEqualTo("init/legacy container await");
    assertThat(names(template(cron).path("spec").path("containers")))
        .containsExactly("linkerd-proxy", "report");
    assertThat(run.err())
        .contains("warning: shop/CronJob/old-kubelets:")
        .contains("regular container (policy.runToCompletion: inject)")
        .contains("the pod completes only if the app stops the proxy");
  }

  @Test
  void explainNamesTheRuleThatApplied() throws Exception {
    Cli.Run run = Cli.run("explain", "-f", jobs(), "--cluster", EXAMPLES, "--cluster", BATCH, "-v");

    assertThat(run.code()).isEqualTo(ExitCodes.REFUSED);
    assertThat(run.out())
        .contains("completion: constrained: constrained to the nodes that run native sidecars")
        .contains("completion: refused: no native sidecar possible: refused")
        .contains("REFUSED run-to-completion")
        .contains("completion: restartPolicy Never: the pod runs to completion");
  }
}
