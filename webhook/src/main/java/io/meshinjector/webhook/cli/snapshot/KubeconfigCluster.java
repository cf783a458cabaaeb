package io.meshinjector.webhook.cli.snapshot;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.CapabilitiesConfig;
import io.meshinjector.engine.revisions.Revisions;
import io.meshinjector.webhook.client.ClusterClients;
import io.meshinjector.webhook.manifest.Manifests;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The live cluster that {@code inject} and {@code explain} read once when no {@code --cluster} file
 * is given: from {@code --kubeconfig}, else found as {@link ClusterDetection} finds one. Every
 * failure is one line naming the server, where its address came from, and what failed.
 */
public final class KubeconfigCluster implements AutoCloseable {
  /** A command line is waiting: fail within seconds, not after fabric8's ten retries. */
  private static final int REQUEST_TIMEOUT_MS = 30_000;

  private static final int RETRIES = 1;

  private final KubernetesClient client;
  private final String where;

  private KubeconfigCluster(KubernetesClient client, String source) {
    this.client = client;
    this.where = client.getMasterUrl() + " (from " + source + ")";
  }

  /**
   * @throws ClusterUnavailableException when there is no cluster to read, naming what was tried
   */
  public static KubeconfigCluster connect(
      Path kubeconfig, ClusterDetection.Environment environment) {
    Config config;
    String source;
    if (kubeconfig != null) {
      if (!Files.isRegularFile(kubeconfig)) {
        throw new ClusterUnavailableException(
            "--kubeconfig " + kubeconfig + ": no such file", null);
      }
      source = kubeconfig.toString();
      config = configure(() -> Config.fromKubeconfig(kubeconfig.toFile()), source);
    } else {
      Optional<String> found = ClusterDetection.found(environment);
      if (found.isEmpty()) {
        throw new ClusterUnavailableException(
            "no cluster to read: no --cluster file, no --kubeconfig, "
                + ClusterDetection.tried(environment)
                + "; give --cluster FILE or --kubeconfig FILE",
            null);
      }
      source = found.get();
      // fabric8 reads KUBECONFIG (with its list of files) and the service account as kubectl does
      config = configure(() -> Config.autoConfigure(null), source);
    }
    config.setRequestTimeout(REQUEST_TIMEOUT_MS);
    config.setRequestRetryBackoffLimit(RETRIES);
    return new KubeconfigCluster(ClusterClients.builder().withConfig(config).build(), source);
  }

  private interface ConfigReader {
    Config read();
  }

  private static Config configure(ConfigReader reader, String source) {
    try {
      return reader.read();
    } catch (KubernetesClientException | IllegalArgumentException e) {
      throw new ClusterUnavailableException(
          source + " cannot be used: " + e.getMessage().lines().findFirst().orElse(""), e);
    }
  }

  /** The client, for commands that read more than the view. */
  public KubernetesClient client() {
    return client;
  }

  /** The server and where its address came from, for messages. */
  public String where() {
    return where;
  }

  /** The view, read once; what the reader should know about it goes to {@code err}. */
  public InMemoryClusterView view(CapabilitiesConfig config, PrintWriter err) {
    ClusterSnapshot.Snapshot snapshot;
    try {
      snapshot = ClusterSnapshot.read(client, config);
    } catch (ClusterReadException e) {
      throw unreadable(e);
    }
    snapshot.notes().forEach(n -> err.println("warning: " + n));
    return snapshot.view();
  }

  /**
   * The cluster's revisions and tags; {@link Revisions#unknown()}, said to {@code err}, when they
   * cannot be read or no configuration carries them (releases from before revisions), so that every
   * name is this release's revision, as the webhook of such a release takes it.
   */
  public Revisions revisions(PrintWriter err) {
    InjectorConfigurations read;
    try {
      read = InjectorConfigurations.read(client);
    } catch (ClusterReadException e) {
      err.println(
          "warning: " + e.getMessage() + "; every pod is routed to this release's revision");
      return Revisions.unknown();
    }
    return read.all().isEmpty() ? Revisions.unknown() : read.revisions();
  }

  /**
   * @throws ClusterUnavailableException when the namespace does not exist
   */
  public List<JsonNode> workloads(String namespace) {
    try {
      if (client.namespaces().withName(namespace).get() == null) {
        throw new ClusterUnavailableException(
            "namespace " + namespace + " not found in the cluster at " + where, null);
      }
      return NamespaceWorkloads.list(client, namespace, Manifests.json());
    } catch (ClusterReadException e) {
      throw unreadable(e);
    } catch (KubernetesClientException e) {
      throw unreadable(
          new ClusterReadException(
              "reading namespace " + namespace + " failed: " + ClusterSnapshot.cause(e), e));
    }
  }

  private ClusterUnavailableException unreadable(ClusterReadException e) {
    return new ClusterUnavailableException(
        "cannot read the cluster at " + where + ": " + e.getMessage(), e);
  }

  @Override
  public void close() {
    client.close();
  }
}
