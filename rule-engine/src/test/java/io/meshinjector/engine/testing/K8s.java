package io.meshinjector.engine.testing;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilityStatus;
import io.meshinjector.engine.capability.Verdict;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Small builders for the Kubernetes objects the engine tests feed it. */
public final class K8s {
  public static final String RHEL8 = "Red Hat Enterprise Linux 8.10 (Ootpa)";
  public static final String CENTOS7 = "CentOS Linux 7 (Core)";
  public static final String AL2023 = "Amazon Linux 2023.5.20240624";
  public static final String UBUNTU = "Ubuntu 22.04.4 LTS";

  private K8s() {}

  /** A node with its OS image, kubelet version and labels (key=value pairs). */
  public static Node node(String name, String osImage, String kubelet, String... labels) {
    Map<String, String> l = new LinkedHashMap<>();
    l.put("kubernetes.io/hostname", name);
    for (String kv : labels) {
      String[] p = kv.split("=", 2);
      l.put(p[0], p.length > 1 ? p[1] : "");
    }
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(l)
        .endMetadata()
        .withNewStatus()
        .withNewNodeInfo()
        .withOsImage(osImage)
        .withKubeletVersion(kubelet)
        .endNodeInfo()
        .endStatus()
        .build();
  }

  public static Node taint(Node node, String key, String value, String effect) {
    List<Taint> taints = new ArrayList<>();
    if (node.getSpec() != null && node.getSpec().getTaints() != null) {
      taints.addAll(node.getSpec().getTaints());
    }
    taints.add(new Taint(effect, key, null, value));
    return new NodeBuilder(node).editOrNewSpec().withTaints(taints).endSpec().build();
  }

  /** The node with {@code spec.podCIDRs}, as the node IPAM controller assigns them. */
  public static Node podCidrs(Node node, String... cidrs) {
    return new NodeBuilder(node)
        .editOrNewSpec()
        .withPodCIDR(cidrs[0])
        .withPodCIDRs(List.of(cidrs))
        .endSpec()
        .build();
  }

  /** The node as a Windows kubelet reports it: {@code status.nodeInfo.operatingSystem}. */
  public static Node operatingSystem(Node node, String os) {
    return new NodeBuilder(node)
        .editStatus()
        .editNodeInfo()
        .withOperatingSystem(os)
        .endNodeInfo()
        .endStatus()
        .build();
  }

  /** Marks the node unschedulable, as {@code kubectl cordon} does, without the mirrored taint. */
  public static Node cordon(Node node) {
    return new NodeBuilder(node).editOrNewSpec().withUnschedulable(true).endSpec().build();
  }

  public static Namespace namespace(
      String name, Map<String, String> annotations, Map<String, String> labels) {
    return new NamespaceBuilder()
        .withNewMetadata()
        .withName(name)
        .withAnnotations(annotations)
        .withLabels(labels)
        .endMetadata()
        .build();
  }

  /** A namespace with injection enabled, as documented: {@code inject: enabled}. */
  public static Namespace enabled(String name) {
    return namespace(name, Map.of("inject", "enabled"), Map.of());
  }

  /** A NodeCapability as the probe writes it. */
  public static GenericKubernetesResource probe(
      String node,
      Instant observedAt,
      Map<String, String> capabilities,
      Map<String, String> facts) {
    Map<CapabilityKey, Verdict> caps = new HashMap<>();
    capabilities.forEach(
        (k, v) -> caps.put(CapabilityKey.parse(k), CapabilityKey.parse(k).parseVerdict(v)));
    GenericKubernetesResource r = new GenericKubernetesResource();
    r.setApiVersion(NodeCapabilityStatus.API_VERSION);
    r.setKind(NodeCapabilityStatus.KIND);
    r.setMetadata(new ObjectMetaBuilder().withName(node).build());
    r.setAdditionalProperty(
        "status", new NodeCapabilityStatus(observedAt, caps, facts, Map.of()).toMap());
    return r;
  }

  /** A Deployment-like pod (no nodeName) in {@code ns} with the given annotations. */
  public static PodBuilder pod(String ns, Map<String, String> annotations) {
    return new PodBuilder()
        .withNewMetadata()
        .withGenerateName("web-")
        .withNamespace(ns)
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .withContainers(
            new ContainerBuilder().withName("web").withImage("buoyantio/emojivoto-web:v10").build())
        .endSpec();
  }

  public static Pod pod(String ns) {
    return pod(ns, Map.of()).build();
  }

  public static NodeSelectorRequirement req(String key, String op, String... values) {
    return new NodeSelectorRequirement(key, op, List.of(values));
  }

  /** Adds one required node-affinity term made of these requirements. */
  public static PodBuilder affinity(
      PodBuilder pod, List<NodeSelectorRequirement> exprs, List<NodeSelectorRequirement> fields) {
    return pod.editSpec()
        .withNewAffinity()
        .withNewNodeAffinity()
        .withNewRequiredDuringSchedulingIgnoredDuringExecution()
        .withNodeSelectorTerms(
            new NodeSelectorTermBuilder()
                .withMatchExpressions(exprs)
                .withMatchFields(fields)
                .build())
        .endRequiredDuringSchedulingIgnoredDuringExecution()
        .endNodeAffinity()
        .endAffinity()
        .endSpec();
  }

  public static Toleration tolerate(String key, String op, String value, String effect) {
    return new Toleration(effect, key, op, null, value);
  }
}
