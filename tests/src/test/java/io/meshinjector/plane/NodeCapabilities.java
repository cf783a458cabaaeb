package io.meshinjector.plane;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilityStatus;
import io.meshinjector.engine.capability.Verdict;
import java.time.Instant;
import java.util.Map;

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

  /** {@code node}'s NodeCapability as the probe writes it: the object, then its status. */
  public static void report(
      KubernetesClient admin, String node, Instant observedAt, Map<CapabilityKey, Verdict> caps) {
    GenericKubernetesResource created = create(admin, node);
    created.setAdditionalProperty(
        "status", new NodeCapabilityStatus(observedAt, caps, Map.of(), Map.of()).toMap());
    admin
        .genericKubernetesResources(ClusterHygiene.NODE_CAPABILITY)
        .resource(created)
        .updateStatus();
  }
}
