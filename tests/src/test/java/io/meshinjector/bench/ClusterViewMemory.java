package io.meshinjector.bench;

import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.webhook.cluster.CompactNodeStore;
import io.meshinjector.webhook.lists.Trimmed;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jol.info.GraphLayout;

/**
 * The heap the informer-fed cluster view holds for 5,000 realistic Nodes (an EKS node's label set,
 * 50-entry image lists, conditions, addresses, managedFields; taints on some), fed the way the Node
 * informer feeds it: each Node trimmed into the informer's cache and projected into the view, whose
 * index is then built. Measured with JOL's object-graph walk, not timed. Every string is a fresh
 * instance, as JSON decoding makes them, so that sharing does not flatter the figure.
 *
 * <p>Measured for each shape of pod CIDRs named in the second argument (all three by default):
 * {@code none}, as EKS's VPC CNI leaves {@code spec.podCIDRs}; {@code ipv4}, a /24 per node as the
 * node IPAM controller gives it; {@code dual}, that and a /64. For each it prints the informer's
 * store ({@link CompactNodeStore}) alone and the store with the view, per node.
 *
 * <p>Run: {@code ./mvnw -B -q -o -pl tests -am test-compile} then {@code java -cp "$(cat
 * tests/target/bench.classpath):tests/target/test-classes:..."
 * io.meshinjector.bench.ClusterViewMemory} (docs/benchmarks.md has the exact command).
 */
public final class ClusterViewMemory {
  private ClusterViewMemory() {}

  public static void main(String[] args) {
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
    String[] shapes = args.length > 1 ? args[1].split(",") : new String[] {"none", "ipv4", "dual"};
    System.out.printf("nodes: %d%n", count);
    for (String shape : shapes) {
      measure(count, shape);
    }
  }

  private static void measure(int count, String cidrs) {
    List<Node> full = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      full.add(withPodCidrs(realisticNode(i), i, cidrs));
    }
    CompactNodeStore cache = new CompactNodeStore();
    InMemoryClusterView view =
        new InMemoryClusterView(ConfigLoader.defaults().engine().capabilities(), warning -> {});
    for (Node node : full) {
      // the informer's lister trims each Node as it is decoded; the cache and the view get that
      Node trimmed = Trimmed.node(node);
      cache.put(cache.getKey(trimmed), trimmed);
      view.upsertNode(Trimmed.withoutPublishedLabels(trimmed));
    }
    NodeIndex index = view.nodes(Instant.now());
    if (index.size() != count) {
      throw new IllegalStateException("indexed " + index.size() + " of " + count);
    }

    long fullBytes = GraphLayout.parseInstance(full).totalSize();
    long storeBytes = GraphLayout.parseInstance(cache).totalSize();
    long heldBytes = GraphLayout.parseInstance(cache, view).totalSize();
    System.out.printf(
        "pod CIDRs: %s%n"
            + "  as received (50 images each):   %,d bytes (%.1f MiB, %,d B/node)%n"
            + "  informer cache alone:           %,d bytes (%.1f MiB, %,d B/node)%n"
            + "  held (informer cache + view):   %,d bytes (%.1f MiB, %,d B/node)%n",
        cidrs,
        fullBytes,
        fullBytes / 1048576.0,
        fullBytes / count,
        storeBytes,
        storeBytes / 1048576.0,
        storeBytes / count,
        heldBytes,
        heldBytes / 1048576.0,
        heldBytes / count);
  }

  /**
   * Node {@code i} with pod CIDRs of the shape named, as the API server returns them ({@code
   * podCIDR} the first of {@code podCIDRs}), each a string of its own.
   */
  private static Node withPodCidrs(Node node, int i, String shape) {
    String v4 = s("10." + i / 256 % 256 + "." + i % 256 + ".0/24");
    String v6 = s("fd00:10:244:" + Integer.toHexString(i % 65536 + 1) + "::/64");
    List<String> cidrs =
        switch (shape) {
          case "none" -> List.of();
          case "ipv4" -> List.of(v4);
          case "dual" -> List.of(v4, v6);
          default -> throw new IllegalArgumentException("pod CIDRs: none, ipv4 or dual: " + shape);
        };
    node.getSpec().setPodCIDRs(new ArrayList<>(cidrs));
    node.getSpec().setPodCIDR(cidrs.isEmpty() ? null : s(cidrs.get(0)));
    return node;
  }

  /** A fresh copy, as each decoded object has its own strings. */
  private static String s(String text) {
    return new String(text.toCharArray());
  }

  static Node realisticNode(int i) {
    String name = s("ip-10-" + (i / 250) + "-" + (i % 250) + "-17.eu-west-1.compute.internal");
    String zone = s("eu-west-1" + "abc".charAt(i % 3));
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(s("beta.kubernetes.io/arch"), s("amd64"));
    labels.put(s("beta.kubernetes.io/instance-type"), s("m5.2xlarge"));
    labels.put(s("beta.kubernetes.io/os"), s("linux"));
    labels.put(s("eks.amazonaws.com/capacityType"), s("ON_DEMAND"));
    labels.put(s("eks.amazonaws.com/nodegroup"), s("workers-" + (i % 8)));
    labels.put(s("eks.amazonaws.com/nodegroup-image"), s("ami-0c2b8ca1dad447f8a"));
    labels.put(s("eks.amazonaws.com/sourceLaunchTemplateId"), s("lt-0a1b2c3d4e5f60718"));
    labels.put(s("eks.amazonaws.com/sourceLaunchTemplateVersion"), s("3"));
    labels.put(s("failure-domain.beta.kubernetes.io/region"), s("eu-west-1"));
    labels.put(s("failure-domain.beta.kubernetes.io/zone"), zone);
    labels.put(s("k8s.io/cloud-provider-aws"), s("6f1e5c0ad7e04e6a9d4c1b2a3f4e5d6c"));
    labels.put(s("kubernetes.io/arch"), s("amd64"));
    labels.put(s("kubernetes.io/hostname"), name);
    labels.put(s("kubernetes.io/os"), s("linux"));
    labels.put(s("node.kubernetes.io/instance-type"), s("m5.2xlarge"));
    labels.put(s("topology.ebs.csi.aws.com/zone"), zone);
    labels.put(s("topology.k8s.aws/zone-id"), s("euw1-az" + (i % 3 + 1)));
    labels.put(s("topology.kubernetes.io/region"), s("eu-west-1"));
    labels.put(s("topology.kubernetes.io/zone"), zone);
    // what the publisher wrote: kept in the cache (to compare), not in the view
    labels.put(s("capability.mesh-injector.io/cni"), s("ready"));
    labels.put(s("capability.mesh-injector.io/iptables-legacy"), s("unknown"));
    labels.put(s("capability.mesh-injector.io/iptables-nft"), s("unknown"));
    labels.put(s("capability.mesh-injector.io/native-sidecar"), s("supported"));

    NodeBuilder b =
        new NodeBuilder()
            .withNewMetadata()
            .withName(name)
            .withUid(s("3c4f0d1e-8a2b-4c6d-9e0f-" + String.format("%012d", i)))
            .withResourceVersion(s(String.valueOf(1_000_000 + i)))
            .withCreationTimestamp(s("2026-11-01T08:00:00Z"))
            .withLabels(labels)
            .addToAnnotations(s("alpha.kubernetes.io/provided-node-ip"), s("10.0.0." + (i % 250)))
            .addToAnnotations(
                s("csi.volume.kubernetes.io/nodeid"), s("{\"ebs.csi.aws.com\":\"i-0" + i + "\"}"))
            .addToAnnotations(s("node.alpha.kubernetes.io/ttl"), s("0"))
            .addToAnnotations(
                s("volumes.kubernetes.io/controller-managed-attach-detach"), s("true"))
            .withManagedFields(
                managed("kubelet", 30),
                managed("kube-controller-manager", 8),
                managed("aws-node", 6))
            .endMetadata()
            .withNewSpec()
            .withProviderID(s("aws:///" + zone + "/i-0" + i))
            .endSpec();
    if (i % 10 == 0) {
      b.editSpec()
          .addToTaints(new Taint(s("NoSchedule"), s("dedicated"), null, s("batch")))
          .addToTaints(new Taint(s("NoExecute"), s("nvidia.com/gpu"), null, s("present")))
          .endSpec();
    }
    b.withNewStatus()
        .addNewAddress(s("10.0.0." + (i % 250)), s("InternalIP"))
        .addNewAddress(name, s("InternalDNS"))
        .addNewAddress(name, s("Hostname"))
        .withAllocatable(quantities("7910m", "29304Mi", "58"))
        .withCapacity(quantities("8", "31850Mi", "58"))
        .withNewDaemonEndpoints()
        .withNewKubeletEndpoint(10250)
        .endDaemonEndpoints()
        .withNewNodeInfo()
        .withArchitecture(s("amd64"))
        .withBootID(s("b1d2e3f4-" + i))
        .withContainerRuntimeVersion(s("containerd://1.7.22"))
        .withKernelVersion(s("6.1.112-124.190.amzn2023.x86_64"))
        .withKubeProxyVersion(s("v1.31.2-eks-7f9249a"))
        .withKubeletVersion(s("v1.31.2-eks-7f9249a"))
        .withMachineID(s("ec2" + i))
        .withOperatingSystem(s("linux"))
        .withOsImage(s("Amazon Linux 2023.6.20241111"))
        .withSystemUUID(s("ec2" + i))
        .endNodeInfo()
        .endStatus();
    for (String type :
        new String[] {
          "MemoryPressure", "DiskPressure", "PIDPressure", "Ready", "NetworkUnavailable"
        }) {
      b.editStatus()
          .addNewCondition()
          .withType(s(type))
          .withStatus(s("Ready".equals(type) ? "True" : "False"))
          .withReason(s("Kubelet" + type))
          .withMessage(s("kubelet has no " + type + " problem"))
          .withLastHeartbeatTime(s("2026-11-24T01:59:12Z"))
          .withLastTransitionTime(s("2026-11-01T08:01:00Z"))
          .endCondition()
          .endStatus();
    }
    for (int k = 0; k < 50; k++) {
      String repo =
          "602401143452.dkr.ecr.eu-west-1.amazonaws.com/team-" + (k % 7) + "/service-" + k;
      b.editStatus()
          .addNewImage()
          .withNames(
              s(repo + "@sha256:" + String.format("%064x", (long) k * 7919 + i)),
              s(repo + ":v1." + k + ".3"))
          .withSizeBytes(30_000_000L + k * 1_000_003L)
          .endImage()
          .endStatus();
    }
    return b.build();
  }

  private static Map<String, Quantity> quantities(String cpu, String memory, String pods) {
    Map<String, Quantity> q = new LinkedHashMap<>();
    q.put(s("cpu"), new Quantity(s(cpu)));
    q.put(s("ephemeral-storage"), new Quantity(s("95551679124")));
    q.put(s("hugepages-1Gi"), new Quantity(s("0")));
    q.put(s("hugepages-2Mi"), new Quantity(s("0")));
    q.put(s("memory"), new Quantity(s(memory)));
    q.put(s("pods"), new Quantity(s(pods)));
    return q;
  }

  private static io.fabric8.kubernetes.api.model.ManagedFieldsEntry managed(
      String manager, int fields) {
    FieldsV1 f = new FieldsV1();
    Map<String, Object> inner = new LinkedHashMap<>();
    for (int k = 0; k < fields; k++) {
      inner.put(s("f:field" + k), new LinkedHashMap<>());
    }
    f.setAdditionalProperty(s("f:status"), inner);
    return new ManagedFieldsEntryBuilder()
        .withManager(s(manager))
        .withOperation(s("Update"))
        .withApiVersion(s("v1"))
        .withTime(s("2026-11-24T01:59:12Z"))
        .withFieldsType(s("FieldsV1"))
        .withFieldsV1(f)
        .build();
  }
}
