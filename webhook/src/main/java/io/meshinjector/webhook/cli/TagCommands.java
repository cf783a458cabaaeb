package io.meshinjector.webhook.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshinjector.webhook.cli.snapshot.ClusterReadException;
import io.meshinjector.webhook.cli.snapshot.KubeconfigCluster;
import io.meshinjector.webhook.cli.tag.TagRefused;
import java.io.PrintWriter;
import java.util.function.Function;
import picocli.CommandLine.Model.CommandSpec;

/**
 * What the {@code tag} commands share: one step against the cluster of the kubeconfig, its outcome
 * printed, a refusal answered with exit {@value ExitCodes#TAG_REFUSED} and a cluster that cannot be
 * read with exit {@value ExitCodes#INPUT}, each with one line saying why.
 */
final class TagCommands {
  private TagCommands() {}

  static <T> int run(
      CommandSpec spec,
      KubeconfigOptions kube,
      String command,
      Function<KubernetesClient, T> step,
      Function<T, String> describe) {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (KubeconfigCluster live = kube.connect()) {
      T done;
      try {
        done = step.apply(live.client());
      } catch (TagRefused e) {
        err.println(command + " refused: " + e.getMessage());
        err.flush();
        return ExitCodes.TAG_REFUSED;
      } catch (ClusterReadException e) {
        err.println("error: cannot read the cluster at " + live.where() + ": " + e.getMessage());
        err.flush();
        return ExitCodes.INPUT;
      }
      out.print(describe.apply(done));
      out.flush();
      return ExitCodes.OK;
    }
  }
}
