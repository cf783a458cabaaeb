package io.meshinjector.webhook.cluster;

import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.meshinjector.engine.capability.NodeCapabilityStatus;

/**
 * The NodeCapability custom resource as the client addresses it. Spelled out instead of discovered,
 * so the informers, the one-off reads and the probe's writes make no discovery call.
 */
public final class NodeCapabilityResource {
  public static final ResourceDefinitionContext CONTEXT =
      new ResourceDefinitionContext.Builder()
          .withGroup(NodeCapabilityStatus.GROUP)
          .withVersion(NodeCapabilityStatus.VERSION)
          .withPlural(NodeCapabilityStatus.PLURAL)
          .withKind(NodeCapabilityStatus.KIND)
          .withNamespaced(false)
          .build();

  private NodeCapabilityResource() {}
}
