package io.meshinjector.webhook.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.meshinjector.engine.check.CheckReport;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.webhook.cli.check.ClusterChecks;
import io.meshinjector.webhook.cli.snapshot.KubeconfigCluster;
import io.meshinjector.webhook.manifest.Manifests;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code check}: is the cluster ready for the mesh (--pre), and is the injector healthy. */
@Command(
    name = "check",
    mixinStandardHelpOptions = true,
    description = {
      "Checks the cluster the kubeconfig names, reading it only (one list per kind of object),"
          + " except for a server-side dry-run pod in an opted-in namespace and"
          + " SubjectAccessReviews.",
      "With --pre, before installing: the API server's version, whether you may create what the"
          + " chart installs, the nodes by OS image and kubelet, the mesh CNI, and the Pod Security"
          + " of the namespaces that would be enabled.",
      "Without it, after installing: the CRD, the webhook configuration and its caBundle, the"
          + " serving certificate, the replicas, a dry run through the webhook, what the"
          + " webhook's ServiceAccount may not read (NodeCapabilities, the mesh CNI's pods),"
          + " probe coverage, nodes where no redirect path works, running pods at risk, and"
          + " workloads whose running pods have another proxy version or config than the"
          + " release gives now; and the revisions: what each opted-in namespace's new pods get,"
          + " names no release serves, running pods without a proxy, and workloads to restart"
          + " onto their revision.",
      "With --retire REV, only whether revision REV may be retired.",
      "One line per check: √ passed, ‼ warning (something will break), × failed (pod creation or"
          + " injection is broken now), with a hint. The exit status is 5 when a check failed;"
          + " warnings alone exit 0. docs/operations.md explains each check."
    })
public final class CheckCommand implements Callable<Integer> {
  enum Format {
    text,
    json
  }

  @Option(names = "--pre", description = "Check a cluster before installing.")
  boolean pre;

  @Option(
      names = {"-n", "--namespace"},
      defaultValue = "mesh-injector",
      paramLabel = "NS",
      description =
          "The release's namespace (where --pre asks whether you may create its objects).",
      showDefaultValue = Visibility.ALWAYS)
  String namespace;

  @Option(
      names = "--retire",
      paramLabel = "REV",
      description =
          "Answer only whether revision REV may be retired (its release uninstalled): yes when no"
              + " namespace routes to it, no pod template names it or a tag pointing at it, no tag"
              + " points at it and no running pod carries it; else a failure naming each reason.")
  String retire;

  @Option(
      names = {"-o", "--output"},
      defaultValue = "text",
      paramLabel = "FORMAT",
      description = "text (grouped lines) or json. Default: ${DEFAULT-VALUE}.")
  Format output;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description =
          "Configuration YAML to judge the nodes by. Default: the release's ConfigMap after"
              + " install, the embedded defaults with --pre.")
  Path config;

  @Mixin KubeconfigOptions kube;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws JsonProcessingException {
    if (pre && retire != null) {
      throw new ParameterException(
          spec.commandLine(), "--retire asks of an installed cluster: drop --pre");
    }
    SourceOptions sources = new SourceOptions();
    sources.config = config;
    Optional<MeshConfig> given =
        config == null ? Optional.empty() : Optional.of(sources.meshConfig());
    CheckReport report;
    try (KubeconfigCluster live = kube.connect()) {
      PrintWriter err = spec.commandLine().getErr();
      err.println(
          (pre
                  ? "pre-install check of "
                  : retire != null
                      ? "may revision " + retire + " be retired? check of "
                      : "check of ")
              + live.where());
      err.flush();
      ClusterChecks checks = new ClusterChecks(live.client(), namespace, Clock.systemUTC());
      report =
          new CheckReport(
              pre
                  ? checks.pre(given.orElseGet(sources::meshConfig))
                  : retire != null ? checks.retire(retire, given) : checks.installed(given));
    }
    PrintWriter out = spec.commandLine().getOut();
    if (output == Format.json) {
      out.println(
          Manifests.json()
              .copy()
              .enable(SerializationFeature.INDENT_OUTPUT)
              .writeValueAsString(report.toJsonMap()));
    } else {
      out.print(report.text());
    }
    out.flush();
    return report.failed() ? ExitCodes.CHECK_FAILED : ExitCodes.OK;
  }
}
