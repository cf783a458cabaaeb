package io.meshinjector.plane;

import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Nodes shaped like EKS ones, for the memory of large clusters: 23 labels, 50 container images in
 * {@code status.images}, 3 annotations, a providerID, three addresses, and a taint on every fifth.
 * Pools alternate RHEL 8, Amazon Linux and CentOS 7 so the decision has classes to tell apart.
 */
public final class RealisticNodes {
  private RealisticNodes() {}

  /** Node {@code i}'s name. */
  public static String name(int i) {
    return String.format(
        "ip-10-%d-%d-%d.eu-west-1.compute.internal", i / 65536 % 256, i / 256 % 256, i % 256);
  }

  public static Node node(int i) {
    String name = name(i);
    String pool =
        switch (i % 3) {
          case 0 -> "rhel";
          case 1 -> "al2023";
          default -> "centos";
        };
    String os =
        switch (pool) {
          case "rhel" -> FakeNodes.RHEL8;
          case "centos" -> FakeNodes.CENTOS7;
          default -> "Amazon Linux 2023.6.20250107";
        };
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("kubernetes.io/hostname", name);
    labels.put("kubernetes.io/os", "linux");
    labels.put("kubernetes.io/arch", "amd64");
    labels.put("beta.kubernetes.io/os", "linux");
    labels.put("beta.kubernetes.io/arch", "amd64");
    labels.put("beta.kubernetes.io/instance-type", "m5.2xlarge");
    labels.put("node.kubernetes.io/instance-type", "m5.2xlarge");
    labels.put("topology.kubernetes.io/region", "eu-west-1");
    labels.put("topology.kubernetes.io/zone", "eu-west-1" + (char) ('a' + i % 3));
    labels.put("failure-domain.beta.kubernetes.io/region", "eu-west-1");
    labels.put("failure-domain.beta.kubernetes.io/zone", "eu-west-1" + (char) ('a' + i % 3));
    labels.put("topology.ebs.csi.aws.com/zone", "eu-west-1" + (char) ('a' + i % 3));
    labels.put("topology.k8s.aws/zone-id", "euw1-az" + (1 + i % 3));
    labels.put("eks.amazonaws.com/nodegroup", "ng-" + pool);
    labels.put(
        "eks.amazonaws.com/nodegroup-image", "ami-0" + Integer.toHexString(0x1000000 + i % 7));
    labels.put("eks.amazonaws.com/capacityType", i % 4 == 0 ? "SPOT" : "ON_DEMAND");
    labels.put("eks.amazonaws.com/sourceLaunchTemplateId", "lt-0a1b2c3d4e5f60718");
    labels.put("eks.amazonaws.com/sourceLaunchTemplateVersion", "7");
    labels.put("k8s.io/cloud-provider-aws", "2c4b1b3f5e8d7a6c9b0a1f2e3d4c5b6a");
    labels.put("pool", pool);
    labels.put("team", "platform");
    labels.put("cost-center", "cc-" + (1000 + i % 17));
    labels.put("node-lifecycle", i % 4 == 0 ? "spot" : "on-demand");
    List<ContainerImage> images = new ArrayList<>();
    for (int k = 0; k < 50; k++) {
      String repo = "123456789012.dkr.ecr.eu-west-1.amazonaws.com/team-" + k % 9 + "/service-" + k;
      images.add(
          new ContainerImage(
              List.of(
                  repo + "@sha256:" + String.format("%064x", (long) k * 7919 + i % 13),
                  repo + ":v1." + k + "." + (i % 5)),
              40_000_000L + k * 1_000_003L));
    }
    Map<String, Quantity> capacity =
        Map.of(
            "cpu", new Quantity("8"),
            "memory", new Quantity("32408092Ki"),
            "pods", new Quantity("58"),
            "ephemeral-storage", new Quantity("83873772Ki"),
            "hugepages-1Gi", new Quantity("0"),
            "hugepages-2Mi", new Quantity("0"));
    NodeBuilder b =
        new NodeBuilder()
            .withNewMetadata()
            .withName(name)
            .withLabels(labels)
            .addToAnnotations("alpha.kubernetes.io/provided-node-ip", "10.0." + i % 256 + ".1")
            .addToAnnotations("node.alpha.kubernetes.io/ttl", "0")
            .addToAnnotations("volumes.kubernetes.io/controller-managed-attach-detach", "true")
            .endMetadata()
            .withNewSpec()
            .withProviderID("aws:///eu-west-1a/i-0" + String.format("%016x", 0xabc000L + i))
            .endSpec()
            .withNewStatus()
            .withCapacity(capacity)
            .withAllocatable(capacity)
            .addNewAddress("10.0." + i % 256 + ".1", "InternalIP")
            .addNewAddress(name, "Hostname")
            .addNewAddress(name, "InternalDNS")
            .withImages(images)
            .withNewNodeInfo()
            .withOsImage(os)
            .withKubeletVersion(
                pool.equals("centos") ? "v1.27.16-eks-1234567" : "v1.31.4-eks-0a1b2c3")
            .withKernelVersion(
                pool.equals("centos")
                    ? "3.10.0-1160.el7.x86_64"
                    : "6.1.119-129.201.amzn2023.x86_64")
            .withContainerRuntimeVersion("containerd://1.7.23")
            .withOperatingSystem("linux")
            .withArchitecture("amd64")
            .withMachineID("ec2" + String.format("%029x", (long) i))
            .withSystemUUID("ec2" + String.format("%029x", (long) i))
            .withBootID(String.format("%032x", (long) i * 31))
            .withKubeProxyVersion("")
            .endNodeInfo()
            .endStatus();
    if (i % 5 == 0) {
      b.editSpec()
          .addToTaints(
              new TaintBuilder()
                  .withKey("dedicated")
                  .withValue("batch")
                  .withEffect("NoSchedule")
                  .build())
          .endSpec();
    }
    return b.build();
  }

  /** Creates nodes {@code 0..count-1} on four connections at once. */
  public static void create(KubernetesClient admin, int count) throws Exception {
    create(admin, 0, count);
  }

  /** Creates nodes {@code from..to-1} on four connections at once. */
  public static void create(KubernetesClient admin, int from, int to) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int first = t;
        done.add(
            pool.submit(
                () -> {
                  for (int i = from + first; i < to; i += 4) {
                    admin.nodes().resource(node(i)).create();
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
