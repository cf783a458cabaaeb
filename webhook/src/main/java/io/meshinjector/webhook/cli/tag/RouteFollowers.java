package io.meshinjector.webhook.cli.tag;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.meshinjector.engine.revisions.RevisionNames;
import io.meshinjector.webhook.cli.snapshot.ClusterReadException;
import io.meshinjector.webhook.cli.snapshot.ClusterSnapshot;
import java.util.List;

/**
 * The namespaces that follow a revision or tag: those whose routing label ({@value
 * RevisionNames#ROUTE_LABEL}) carries its name, which is what the API server routes their pods on.
 */
public final class RouteFollowers {
  private RouteFollowers() {}

  /**
   * Their names, sorted.
   *
   * @throws ClusterReadException when the namespaces cannot be listed
   */
  public static List<String> of(KubernetesClient client, String name) {
    String value = RevisionNames.routeValue(name);
    try {
      return client
          .namespaces()
          .withLabel(RevisionNames.ROUTE_LABEL, value)
          .list()
          .getItems()
          .stream()
          .map(n -> n.getMetadata().getName())
          .sorted()
          .toList();
    } catch (KubernetesClientException e) {
      throw new ClusterReadException(
          "listing the namespaces labelled "
              + RevisionNames.ROUTE_LABEL
              + "="
              + value
              + " failed: "
              + ClusterSnapshot.cause(e),
          e);
    }
  }

  /** {@code label=value}, as a message names the label. */
  public static String selector(String name) {
    return RevisionNames.ROUTE_LABEL + "=" + RevisionNames.routeValue(name);
  }
}
