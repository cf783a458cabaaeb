package io.meshinjector.webhook.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.templates.WorkloadTemplates.PodTemplateRef;
import io.meshinjector.webhook.admission.InjectionPipeline;
import io.meshinjector.webhook.manifest.Manifests;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code inject}: the manifests with every pod template injected, as the webhook would. */
@Command(
    name = "inject",
    mixinStandardHelpOptions = true,
    description = {
      "Injects every pod template of Pods, Deployments, StatefulSets, DaemonSets, ReplicaSets,"
          + " ReplicationControllers, Jobs, CronJobs and Lists, and prints every document as YAML"
          + " in input order (others unchanged).",
      "The cluster view is the --cluster files; without them, the live cluster (--kubeconfig,"
          + " else in-cluster, KUBECONFIG, ~/.kube/config), read once.",
      "A namespace the cluster view does not describe counts as enabled; a pod's own"
          + " inject: disabled (or mesh-injector.io/inject: disabled) still wins.",
      "A refused pod is printed unchanged, with the reason on stderr, and the exit status is 3."
    })
public final class InjectCommand implements Callable<Integer> {
  @Mixin ManifestOptions manifests;

  @Mixin SourceOptions sources;

  @Mixin KubeconfigOptions kube;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    if (!manifests.hasFile()) {
      throw new ParameterException(
          spec.commandLine(), "Missing required option: '--filename=FILE'");
    }
    MeshConfig config = sources.meshConfig();
    // the input's own errors come first, before any cluster is asked
    List<JsonNode> docs = manifests.documents();
    PrintWriter err = spec.commandLine().getErr();
    TemplateInjector injector =
        new TemplateInjector(
            config, kube.view(sources, config, err), manifests.namespace(), Clock.systemUTC());
    boolean refused = false;
    for (JsonNode doc : docs) {
      for (PodTemplateRef t : injector.templates(doc)) {
        InjectionPipeline.Result result = injector.decide(t);
        result
            .decision()
            .warnings()
            .forEach(w -> err.println("warning: " + result.decision().workload() + ": " + w));
        if (result.decision().rejected()) {
          refused = true;
          err.println("refused: " + TemplateInjector.describe(result.decision()));
        } else {
          t.apply(result.patch());
        }
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    out.print(Manifests.toYaml(docs));
    out.flush();
    err.flush();
    return refused ? ExitCodes.REFUSED : ExitCodes.OK;
  }
}
