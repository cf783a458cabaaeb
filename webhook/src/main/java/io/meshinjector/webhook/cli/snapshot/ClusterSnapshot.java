package io.meshinjector.webhook.cli.snapshot;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.meshinjector.engine.capability.NodeCapabilityStatus;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.CapabilitiesConfig;
import io.meshinjector.engine.config.CniDaemonSet;
import io.meshinjector.webhook.cluster.CniPodReadiness;
import io.meshinjector.webhook.cluster.NodeCapabilityResource;
import io.meshinjector.webhook.lists.StreamedList;
import io.meshinjector.webhook.lists.Trimmed;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The cluster view read once from a live cluster, for {@code inject} and {@code explain}: Nodes,
 * Namespaces, NodeCapabilities and the mesh CNI DaemonSet's pods, one list each. {@code serve}
 * keeps its view current with informers instead; a command that runs once needs one reading.
 */
public final class ClusterSnapshot {
  static final ResourceDefinitionContext NODE_CAPABILITIES = NodeCapabilityResource.CONTEXT;

  /**
   * The view, and what the reader should know about it.
   *
   * @param notes one line each: a missing NodeCapability CRD, a NodeCapability left out because its
   *     status is malformed
   */
  public record Snapshot(InMemoryClusterView view, List<String> notes) {
    public Snapshot {
      notes = List.copyOf(notes);
    }
  }

  /** The note when the NodeCapability CRD is not installed, which before an install is expected. */
  public static final String CRD_MISSING =
      "the NodeCapability CRD ("
          + NodeCapabilityStatus.PLURAL
          + "."
          + NodeCapabilityStatus.GROUP
          + ") is not installed: no probe verdicts, only inference from the Nodes";

  private ClusterSnapshot() {}

  /**
   * Reads the view through {@code client}.
   *
   * @throws ClusterReadException when a list fails, naming it and the cause; a missing
   *     NodeCapability CRD is not a failure (no probe has reported, so there are no verdicts)
   */
  public static Snapshot read(KubernetesClient client, CapabilitiesConfig config) {
    return read(client, config, ns -> {});
  }

  /**
   * As {@link #read(KubernetesClient, CapabilitiesConfig)}, also handing each Namespace, trimmed,
   * to {@code namespaces}: {@code check} reads their Pod Security labels from the same list.
   */
  public static Snapshot read(
      KubernetesClient client, CapabilitiesConfig config, Consumer<Namespace> namespaces) {
    List<String> notes = new ArrayList<>();
    InMemoryClusterView view = new InMemoryClusterView(config, notes::add);
    // each object trimmed as it is decoded: the peak is one full object, not the cluster
    list(
        "nodes",
        () ->
            StreamedList.forEach(
                client,
                "api/v1/nodes",
                Map.of(),
                StreamedList.ItemReader.trimmedNodes(),
                view::upsert));
    forEach(
        "namespaces",
        client,
        "api/v1/namespaces",
        Namespace.class,
        ns -> {
          Namespace trimmed = Trimmed.namespace(ns);
          view.upsert(trimmed);
          namespaces.accept(trimmed);
        });
    nodeCapabilities(
        client,
        notes,
        nc -> {
          // list items of a custom resource carry these, but a proxy or an old server may drop them
          nc.setApiVersion(NodeCapabilityStatus.API_VERSION);
          nc.setKind(NodeCapabilityStatus.KIND);
          try {
            view.upsert(nc);
          } catch (IllegalArgumentException e) {
            notes.add(e.getMessage() + "; its verdicts are left out");
          }
        });
    CniDaemonSet cni = config.cniDaemonSet();
    if (cni != null && cni.namespace() != null && !cni.namespace().isBlank()) {
      for (Pod pod : cniPods(client, cni)) {
        CniPodReadiness.readyNode(pod).ifPresent(node -> view.setCniReady(node, true));
      }
    }
    return new Snapshot(view, notes);
  }

  private static void nodeCapabilities(
      KubernetesClient client, List<String> notes, Consumer<GenericKubernetesResource> each) {
    String what = "nodecapabilities." + NodeCapabilityStatus.GROUP;
    try {
      forEach(
          what,
          client,
          "apis/" + NodeCapabilityStatus.API_VERSION + "/" + NodeCapabilityStatus.PLURAL,
          GenericKubernetesResource.class,
          each);
    } catch (ClusterReadException e) {
      if (e.getCause() instanceof KubernetesClientException k
          && k.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
        notes.add(CRD_MISSING);
        return;
      }
      throw e;
    }
  }

  private static List<Pod> cniPods(KubernetesClient client, CniDaemonSet cni) {
    String what = "pods in " + cni.namespace() + " (capabilities.cniDaemonSet)";
    return list(
        what,
        () -> {
          var pods = client.pods().inNamespace(cni.namespace());
          return (cni.podSelector().isEmpty() ? pods : pods.withLabels(cni.podSelector()))
              .list()
              .getItems();
        });
  }

  /**
   * Lists one kind through {@link StreamedList}, handing each object to {@code each} as it is
   * decoded.
   *
   * @throws ClusterReadException naming {@code what} when the list fails
   */
  public static <T> void forEach(
      String what, KubernetesClient client, String path, Class<T> type, Consumer<T> each) {
    forEach(what, client, path, Map.of(), type, each);
  }

  /** As above, with query parameters such as a field selector. */
  public static <T> void forEach(
      String what,
      KubernetesClient client,
      String path,
      Map<String, String> query,
      Class<T> type,
      Consumer<T> each) {
    list(what, () -> StreamedList.forEach(client, path, query, type, each));
  }

  private static <T> T list(String what, Supplier<T> lister) {
    try {
      return lister.get();
    } catch (KubernetesClientException e) {
      throw failed(what, e);
    }
  }

  private static ClusterReadException failed(String what, KubernetesClientException e) {
    return new ClusterReadException("listing " + what + " failed: " + cause(e), e);
  }

  /** The first line of the innermost message: fabric8 wraps a refused connection in two layers. */
  public static String cause(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    if (e instanceof KubernetesClientException k && k.getCode() > 0) {
      String status = k.getStatus() == null ? null : k.getStatus().getMessage();
      return "HTTP "
          + k.getCode()
          + (status == null || status.isBlank()
              ? ""
              : ": " + status.lines().findFirst().orElse(""));
    }
    String message = root.getMessage();
    return root.getClass().getSimpleName()
        + (message == null ? "" : ": " + message.lines().findFirst().orElse(""));
  }
}
