package io.meshinjector.bench;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
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
import java.util.List;
import java.util.Map;

/**
 * A 5,000-node cluster in mixed classes with taints, and a typical Deployment pod: the fixture the
 * decision benchmark runs on.
 */
final class BenchCluster {
  static final Instant NOW = Instant.parse("2026-11-20T10:30:00Z");

  private BenchCluster() {}

  static List<HasMetadata> objects(int nodes) {
    List<HasMetadata> out = new ArrayList<>();
    out.add(
        new NamespaceBuilder()
            .withNewMetadata()
            .withName("shop")
            .withAnnotations(Map.of("mesh-injector.io/inject", "enabled"))
            .endMetadata()
            .build());
    for (int i = 0; i < nodes; i++) {
      String name = "node-" + i;
      String os;
      String kubelet;
      switch (i % 10) {
        case 0, 1, 2, 3 -> {
          os = "Red Hat Enterprise Linux 8.10 (Ootpa)";
          kubelet = "v1.31.0";
        }
        case 4, 5, 6 -> {
          os = "CentOS Linux 7 (Core)";
          kubelet = "v1.28.9";
        }
        case 7, 8 -> {
          os = "Amazon Linux 2023.5.20240624";
          kubelet = "v1.31.0-eks-a737599";
          out.add(probe(name));
        }
        default -> {
          os = "Ubuntu 22.04.4 LTS";
          kubelet = "v1.30.4+k3s1";
        }
      }
      NodeBuilder b =
          new NodeBuilder()
              .withNewMetadata()
              .withName(name)
              .withLabels(
                  Map.of(
                      "kubernetes.io/hostname",
                      name,
                      "kubernetes.io/os",
                      "linux",
                      "topology.kubernetes.io/zone",
                      "zone-" + (i % 3),
                      "node.kubernetes.io/instance-type",
                      "m5." + (i % 4) + "xlarge"))
              .endMetadata()
              .withNewStatus()
              .withNewNodeInfo()
              .withOsImage(os)
              .withKubeletVersion(kubelet)
              .endNodeInfo()
              .endStatus();
      if (i % 20 == 0) {
        b.withNewSpec()
            .withTaints(new Taint("NoSchedule", "nvidia.com/gpu", null, "true"))
            .endSpec();
      } else if (i % 33 == 0) {
        b.withNewSpec()
            .withTaints(new Taint("NoExecute", "node.kubernetes.io/not-ready", null, null))
            .endSpec();
      }
      Node node = b.build();
      out.add(node);
    }
    return out;
  }

  private static GenericKubernetesResource probe(String node) {
    GenericKubernetesResource r = new GenericKubernetesResource();
    r.setApiVersion(NodeCapabilityStatus.API_VERSION);
    r.setKind(NodeCapabilityStatus.KIND);
    r.setMetadata(new ObjectMetaBuilder().withName(node).build());
    r.setAdditionalProperty(
        "status",
        new NodeCapabilityStatus(
                NOW,
                Map.of(
                    CapabilityKey.IPTABLES_NFT, Verdict.AVAILABLE,
                    CapabilityKey.IPTABLES_LEGACY, Verdict.AVAILABLE,
                    CapabilityKey.CNI, Verdict.READY),
                Map.of("os", "amzn 2023"),
                Map.of())
            .toMap());
    return r;
  }

  /** A Deployment's pod as the API server hands it over: defaults tolerations, one nodeSelector. */
  static Pod deploymentPod() {
    return new PodBuilder()
        .withNewMetadata()
        .withGenerateName("web-7d9f8b6c5d-")
        .withNamespace("shop")
        .withLabels(Map.of("app", "web", "pod-template-hash", "7d9f8b6c5d"))
        .endMetadata()
        .withNewSpec()
        .withNodeSelector(Map.of("kubernetes.io/os", "linux"))
        .withContainers(
            new ContainerBuilder()
                .withName("web")
                .withImage("buoyantio/emojivoto-web:v10")
                .withPorts(
                    new ContainerPortBuilder().withContainerPort(8080).withName("http").build())
                .build())
        .withTolerations(
            new Toleration("NoExecute", "node.kubernetes.io/not-ready", "Exists", 300L, null),
            new Toleration("NoExecute", "node.kubernetes.io/unreachable", "Exists", 300L, null))
        .endSpec()
        .build();
  }
}
