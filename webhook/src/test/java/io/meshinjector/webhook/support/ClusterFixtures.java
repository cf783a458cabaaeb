package io.meshinjector.webhook.support;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.meshinjector.engine.capability.NodeCapabilityStatus;
import io.meshinjector.engine.decision.Annotations;
import io.meshinjector.webhook.cluster.NodeCapabilityResource;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;

/** Cluster objects as a real API server holds them, and a bounded wait. */
public final class ClusterFixtures {
  public static final String RHEL = "Red Hat Enterprise Linux 8.10 (Ootpa)";
  public static final String CENTOS7 = "CentOS Linux 7 (Core)";
  public static final String AL2023 = "Amazon Linux 2023.6.20241212";
  public static final String CNI_NAMESPACE = "linkerd-cni";

  public static final ResourceDefinitionContext NODE_CAPABILITIES = NodeCapabilityResource.CONTEXT;

  private ClusterFixtures() {}

  public static void registerNodeCapabilities(KubernetesMockServer server) {
    server.expectCustomResource(nodeCapabilityCrd(false));
  }

  /**
   * The NodeCapability CRD as the mock server needs it to serve the kind; with the status
   * subresource as the chart installs it, or without it, so that a create keeps a status as given.
   */
  public static CustomResourceDefinitionContext nodeCapabilityCrd(boolean statusSubresource) {
    return new CustomResourceDefinitionContext.Builder()
        .withGroup(NodeCapabilityStatus.GROUP)
        .withVersion(NodeCapabilityStatus.VERSION)
        .withPlural(NodeCapabilityStatus.PLURAL)
        .withKind(NodeCapabilityStatus.KIND)
        .withScope("Cluster")
        .withStatusSubresource(statusSubresource)
        .build();
  }

  public static Node node(String name, String osImage, String kubelet) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .addToLabels("kubernetes.io/hostname", name)
        .addToLabels("kubernetes.io/os", "linux")
        .endMetadata()
        .withNewStatus()
        .withNewNodeInfo()
        .withOsImage(osImage)
        .withKubeletVersion(kubelet)
        .endNodeInfo()
        .endStatus()
        .build();
  }

  /**
   * The webhook configuration a release installed without a revision has, as the chart renders its
   * labels and catch-all: what the webhook's view of the cluster's revisions reads.
   */
  public static void installRevisionDefault(KubernetesClient client) {
    client
        .admissionRegistration()
        .v1()
        .mutatingWebhookConfigurations()
        .resource(
            new io.fabric8.kubernetes.api.model.admissionregistration.v1
                    .MutatingWebhookConfigurationBuilder()
                .withNewMetadata()
                .withName("mesh-injector")
                .withLabels(java.util.Map.of("mesh-injector.io/revision", "default"))
                .endMetadata()
                .addNewWebhook()
                .withName("inject-unlabelled.mesh-injector.io")
                .withNewClientConfig()
                .withUrl("https://127.0.0.1:8443/mutate/unrouted")
                .endClientConfig()
                .endWebhook()
                .build())
        .create();
  }

  public static Namespace enabledNamespace(String name) {
    return new NamespaceBuilder()
        .withNewMetadata()
        .withName(name)
        .addToAnnotations(Annotations.INJECT, "enabled")
        .endMetadata()
        .build();
  }

  /** A pod that can only land on {@code node}. */
  public static Pod podOn(String namespace, String node) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("web-" + node)
        .withNamespace(namespace)
        .endMetadata()
        .withNewSpec()
        .addToNodeSelector("kubernetes.io/hostname", node)
        .addNewContainer()
        .withName("web")
        .withImage("nginx:1.27")
        .endContainer()
        .endSpec()
        .build();
  }

  /** A pod of the CNI DaemonSet on {@code node}. */
  public static Pod cniPod(String node, boolean ready) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("linkerd-cni-" + node)
        .withNamespace(CNI_NAMESPACE)
        .addToLabels("k8s-app", "linkerd-cni")
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .addNewContainer()
        .withName("install-cni")
        .withImage("cr.l5d.io/linkerd/cni-plugin:v1.6.0")
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .addNewCondition()
        .withType("Ready")
        .withStatus(ready ? "True" : "False")
        .endCondition()
        .endStatus()
        .build();
  }

  public static GenericKubernetesResource report(String node, Map<String, String> capabilities) {
    GenericKubernetesResource r = new GenericKubernetesResource();
    r.setApiVersion(NodeCapabilityStatus.API_VERSION);
    r.setKind(NodeCapabilityStatus.KIND);
    r.setMetadata(new ObjectMetaBuilder().withName(node).build());
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("observedAt", Instant.now().toString());
    status.put("capabilities", capabilities);
    status.put("facts", Map.of());
    r.setAdditionalProperty("status", status);
    return r;
  }

  /** Polls until {@code condition} holds; fails naming {@code what} after {@code limit}. */
  public static void await(String what, Duration limit, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + limit + ": " + what);
      }
      Thread.sleep(20);
    }
  }
}
