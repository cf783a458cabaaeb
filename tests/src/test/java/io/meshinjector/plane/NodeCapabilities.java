package io.meshinjector.plane;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

/** NodeCapability objects as the node probe creates them, before it writes their status. */
public final class NodeCapabilities {
  private NodeCapabilities() {}

  /** {@code node}'s NodeCapability, created with no status yet. */
  public static GenericKubernetesResource create(KubernetesClient admin, String node) {
    return admin
        .genericKubernetesResources(ClusterHygiene.NODE_CAPABILITY)
        .resource(
            new GenericKubernetesResourceBuilder()
                .withApiVersion("mesh-injector.io/v1alpha1")
                .withKind("NodeCapability")
                .withNewMetadata()
                .withName(node)
                .endMetadata()
                .build())
        .create();
  }
}
