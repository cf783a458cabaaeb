package io.meshinjector.plane;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Nodes without a kubelet: Ready through their status, schedulable, with the OS image and kubelet
 * version the decision infers from. Pods bound to them stay Pending.
 */
public final class FakeNodes {
  private FakeNodes() {}

  /**
   * A node's shape: what the rule engine reads of it.
   *
   * @param operatingSystem {@code status.nodeInfo.operatingSystem} and the {@code kubernetes.io/os}
   *     label
   * @param podCidrs {@code spec.podCIDRs}, as the node IPAM controller would assign them; empty for
   *     none
   */
  public record Shape(
      String osImage,
      String kubeletVersion,
      Map<String, String> labels,
      List<Taint> taints,
      String operatingSystem,
      List<String> podCidrs) {
    public static Shape of(String osImage, String kubeletVersion, Map<String, String> labels) {
      return new Shape(osImage, kubeletVersion, labels, List.of(), "linux", List.of());
    }

    /** The same node with these pod CIDRs (a v1.32 API server takes one of each family). */
    public Shape withPodCidrs(String... cidrs) {
      return new Shape(osImage, kubeletVersion, labels, taints, operatingSystem, List.of(cidrs));
    }

    /** The same node reporting another OS, as a Windows kubelet does. */
    public Shape withOperatingSystem(String os) {
      return new Shape(osImage, kubeletVersion, labels, taints, os, podCidrs);
    }
  }

  public static final String RHEL8 = "Red Hat Enterprise Linux 8.10 (Ootpa)";
  public static final String CENTOS7 = "CentOS Linux 7 (Core)";
  public static final String DEBIAN = "Debian GNU/Linux 12 (bookworm)";

  /** A kubelet that runs native sidecars (1.29 on). */
  public static final String KUBELET = "v1.32.6";

  /**
   * RHEL 8 nodes on kubelet {@value #KUBELET}, labelled {@code labels}: where nft works and native
   * sidecars run, the node most classes need.
   */
  public static void createRhel8(
      KubernetesClient admin, Map<String, String> labels, String... names) {
    for (String name : names) {
      create(admin, name, Shape.of(RHEL8, KUBELET, labels));
    }
  }

  public static Node create(KubernetesClient admin, String name, Shape shape) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("kubernetes.io/hostname", name);
    labels.put("kubernetes.io/os", shape.operatingSystem());
    labels.put("kubernetes.io/arch", "amd64");
    labels.putAll(shape.labels());
    Map<String, Quantity> resources =
        Map.of(
            "cpu", new Quantity("8"),
            "memory", new Quantity("32Gi"),
            "pods", new Quantity("250"),
            "ephemeral-storage", new Quantity("100Gi"));
    String now = Instant.now().toString();
    Node node =
        new NodeBuilder()
            .withNewMetadata()
            .withName(name)
            .withLabels(labels)
            .endMetadata()
            .withNewSpec()
            .withTaints(shape.taints())
            .withPodCIDR(shape.podCidrs().isEmpty() ? null : shape.podCidrs().get(0))
            .withPodCIDRs(shape.podCidrs())
            .endSpec()
            .withNewStatus()
            .withCapacity(resources)
            .withAllocatable(resources)
            .addNewCondition()
            .withType("Ready")
            .withStatus("True")
            .withReason("KubeletReady")
            .withMessage("fake node")
            .withLastHeartbeatTime(now)
            .withLastTransitionTime(now)
            .endCondition()
            .addNewAddress()
            .withType("Hostname")
            .withAddress(name)
            .endAddress()
            .withNewNodeInfo()
            .withOsImage(shape.osImage())
            .withKubeletVersion(shape.kubeletVersion())
            .withKernelVersion("5.14.0")
            .withContainerRuntimeVersion("containerd://1.7.22")
            .withOperatingSystem(shape.operatingSystem())
            .withArchitecture("amd64")
            .withMachineID("fake-" + name)
            .withSystemUUID("fake-" + name)
            .withBootID("fake-" + name)
            .withKubeProxyVersion("")
            .endNodeInfo()
            .endStatus()
            .build();
    admin.nodes().resource(node).create();
    // the TaintNodesByCondition plugin marks every new Node not-ready; the status says Ready
    // the node-lifecycle controller writes the same Node meanwhile: a conflict is tried again
    Await.until(
        "node " + name + " Ready in its status",
        Duration.ofSeconds(30),
        () -> {
          admin
              .nodes()
              .withName(name)
              .editStatus(
                  n -> {
                    n.setStatus(node.getStatus());
                    return n;
                  });
          return true;
        });
    Await.until(
        "node " + name + " without the not-ready taint",
        Duration.ofSeconds(30),
        () -> {
          Node n = admin.nodes().withName(name).get();
          List<Taint> taints =
              n.getSpec().getTaints() == null ? List.of() : n.getSpec().getTaints();
          if (taints.stream().noneMatch(t -> t.getKey().equals("node.kubernetes.io/not-ready"))) {
            return true;
          }
          admin
              .nodes()
              .withName(name)
              .edit(
                  e -> {
                    e.getSpec()
                        .getTaints()
                        .removeIf(t -> t.getKey().equals("node.kubernetes.io/not-ready"));
                    return e;
                  });
          return false;
        });
    return admin.nodes().withName(name).get();
  }
}
