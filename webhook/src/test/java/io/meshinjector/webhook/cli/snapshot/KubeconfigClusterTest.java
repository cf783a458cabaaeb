package io.meshinjector.webhook.cli.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.meshinjector.webhook.cli.ExitCodes;
import io.meshinjector.webhook.support.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where inject and explain look for a cluster when no --cluster file is given. */
class LiveClusterTest {
  @TempDir Path home;

  @Test
  void withNoClusterAnywhereTheMessageNamesEverythingTried() {
    var env =
        new ClusterDetection.Environment(Map.of(), home, home.resolve("serviceaccount/token"));

    assertThatThrownBy(() -> KubeconfigCluster.connect(null, env))
        .isInstanceOf(ClusterUnavailableException.class)
        .hasMessage(
            "no cluster to read: no --cluster file, no --kubeconfig, no in-cluster service account"
                + " (KUBERNETES_SERVICE_HOST unset), KUBECONFIG unset, no "
                + home.resolve(".kube/config")
                + "; give --cluster FILE or --kubeconfig FILE");
  }

  @Test
  void findsTheServiceAccountThenKubeconfigThenTheHomeFile() throws Exception {
    Path token = home.resolve("token");
    Files.writeString(token, "t");
    Files.createDirectories(home.resolve(".kube"));
    Files.writeString(home.resolve(".kube/config"), "apiVersion: v1\nkind: Config\n");

    assertThat(
            ClusterDetection.found(
                new ClusterDetection.Environment(
                    Map.of("KUBERNETES_SERVICE_HOST", "10.0.0.1", "KUBECONFIG", "/k"),
                    home,
                    token)))
        .contains("in-cluster service account");
    assertThat(
            ClusterDetection.found(
                new ClusterDetection.Environment(Map.of("KUBECONFIG", "/k"), home, token)))
        .contains("KUBECONFIG=/k");
    assertThat(ClusterDetection.found(new ClusterDetection.Environment(Map.of(), home, token)))
        .contains(home.resolve(".kube/config").toString());
  }

  /** The same, through the command line, where this machine has no cluster configured. */
  @Test
  void theCommandsSaySoInOneLineAndExitOne() {
    Assumptions.assumeTrue(
        ClusterDetection.found().isEmpty(),
        "this machine has a cluster configured (" + ClusterDetection.found().orElse("") + ")");
    for (String command : new String[] {"inject", "explain"}) {
      Cli.Run run = Cli.run(command, "-f", Path.of("..", "examples", "deployment.yaml").toString());

      assertThat(run.code()).as(command).isEqualTo(ExitCodes.INPUT);
      assertThat(run.err().strip().lines()).as(command).hasSize(1);
      assertThat(run.err())
          .as(command)
          .startsWith("error: no cluster to read: no --cluster file, no --kubeconfig,")
          .contains("KUBECONFIG unset");
      assertThat(run.out()).as(command).isEmpty();
    }
  }
}
