package io.meshinjector.webhook.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Finds a cluster the usual way: in-cluster service account, then KUBECONFIG, ~/.kube/config. */
final class ClusterDetection {
  private ClusterDetection() {}

  static Optional<String> found() {
    if (System.getenv("KUBERNETES_SERVICE_HOST") != null
        && Files.exists(Path.of("/var/run/secrets/kubernetes.io/serviceaccount/token"))) {
      return Optional.of("in-cluster service account");
    }
    // fabric8 reads the kubeconfig system property before the environment variable
    String property = System.getProperty("kubeconfig");
    if (property != null && !property.isBlank()) {
      return Optional.of("kubeconfig=" + property);
    }
    String kubeconfig = System.getenv("KUBECONFIG");
    if (kubeconfig != null && !kubeconfig.isBlank()) {
      return Optional.of("KUBECONFIG=" + kubeconfig);
    }
    Path home = Path.of(System.getProperty("user.home"), ".kube", "config");
    return Files.exists(home) ? Optional.of(home.toString()) : Optional.empty();
  }
}
