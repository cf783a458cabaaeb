package io.meshinjector.webhook.cli.snapshot;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/** Finds a cluster the usual way: in-cluster service account, then KUBECONFIG, ~/.kube/config. */
public final class ClusterDetection {
  public static final Path SERVICE_ACCOUNT_TOKEN =
      Path.of("/var/run/secrets/kubernetes.io/serviceaccount/token");

  /** What the process sees of its surroundings; tests pass their own. */
  public record Environment(Map<String, String> env, Path home, Path serviceAccountToken) {
    public static Environment system() {
      return new Environment(
          System.getenv(), Path.of(System.getProperty("user.home")), SERVICE_ACCOUNT_TOKEN);
    }

    Path homeKubeconfig() {
      return home.resolve(".kube").resolve("config");
    }
  }

  private ClusterDetection() {}

  public static Optional<String> found() {
    return found(Environment.system());
  }

  /** Where a cluster was found, in words ({@code KUBECONFIG=...}), or empty when nowhere. */
  public static Optional<String> found(Environment e) {
    if (e.env().get("KUBERNETES_SERVICE_HOST") != null && Files.exists(e.serviceAccountToken())) {
      return Optional.of("in-cluster service account");
    }
    // fabric8 reads the kubeconfig system property before the environment variable
    String property = System.getProperty("kubeconfig");
    if (property != null && !property.isBlank()) {
      return Optional.of("kubeconfig=" + property);
    }
    String kubeconfig = e.env().get("KUBECONFIG");
    if (kubeconfig != null && !kubeconfig.isBlank()) {
      return Optional.of("KUBECONFIG=" + kubeconfig);
    }
    Path home = e.homeKubeconfig();
    return Files.exists(home) ? Optional.of(home.toString()) : Optional.empty();
  }

  /** What {@link #found} looked at and did not find, for the one-line message that says so. */
  public static String tried(Environment e) {
    return "no in-cluster service account ("
        + (e.env().get("KUBERNETES_SERVICE_HOST") == null
            ? "KUBERNETES_SERVICE_HOST unset"
            : e.serviceAccountToken() + " missing")
        + "), KUBECONFIG unset, no "
        + e.homeKubeconfig();
  }
}
