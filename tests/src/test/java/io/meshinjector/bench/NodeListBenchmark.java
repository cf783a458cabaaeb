package io.meshinjector.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.api.model.NodeListBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.meshinjector.plane.RealisticNodes;
import io.meshinjector.webhook.lists.NodeListReading;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Reading the first list of Nodes as serve does, from a body already in memory (no network, no API
 * server): {@code nodes} EKS-shaped Nodes ({@link RealisticNodes}, plus the two managedFields
 * entries an API server adds, the four conditions a kubelet reports and pod CIDRs, IPv4 on even
 * nodes and dual-stack on odd ones) into the trimmed Nodes the informer stores. {@code protobuf}:
 * the encoding serve asks for ({@code ProtobufList}); {@code json}: the same list in JSON ({@code
 * TrimmedNodeReader}), for comparison. Time per list; with {@code -prof gc}, {@code
 * gc.alloc.rate.norm} is the bytes allocated per list.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class NodeListBenchmark {
  private static final String NOW = "2026-11-20T10:30:00Z";

  @Param({"5000"})
  int nodes;

  private byte[] protobuf;
  private byte[] json;

  @Setup
  public void setUp() throws IOException {
    List<Node> items = listed(nodes);
    NodeList list =
        new NodeListBuilder().withNewMetadata().withResourceVersion("4242").endMetadata().build();
    list.setItems(items);
    protobuf = NodeListProtobuf.envelope("4242", items);
    json = new KubernetesSerialization().asJson(list).getBytes(StandardCharsets.UTF_8);
    List<Node> fromProtobuf = new ArrayList<>(nodes);
    List<Node> fromJson = new ArrayList<>(nodes);
    NodeListReading.protobuf(new ByteArrayInputStream(protobuf), fromProtobuf::add);
    NodeListReading.json(new ByteArrayInputStream(json), fromJson::add);
    if (fromProtobuf.size() != nodes || !fromProtobuf.equals(fromJson)) {
      throw new IllegalStateException("the two readers do not make the same Nodes of the list");
    }
    System.out.printf(
        "%n%,d Nodes: %,d bytes of protobuf, %,d of JSON%n", nodes, protobuf.length, json.length);
  }

  @Benchmark
  public ListMeta protobuf(Blackhole each) throws IOException {
    return NodeListReading.protobuf(new ByteArrayInputStream(protobuf), each::consume);
  }

  @Benchmark
  public ListMeta json(Blackhole each) throws IOException {
    return NodeListReading.json(new ByteArrayInputStream(json), each::consume);
  }

  /** The benchmark's {@code nodes} Nodes, as a list returns them. */
  static List<Node> listed(int nodes) {
    KubernetesSerialization serialization = new KubernetesSerialization();
    List<Node> items = new ArrayList<>(nodes);
    for (int i = 0; i < nodes; i++) {
      items.add(asListed(RealisticNodes.node(i), i, serialization));
    }
    return items;
  }

  /**
   * Node {@code i}'s pod CIDRs as the node IPAM controller gives them: a /24 of 10.0.0.0/8, and on
   * odd nodes a /64 of fd00:10:244::/48 after it.
   */
  static List<String> podCidrs(int i) {
    String v4 = "10." + i / 256 % 256 + "." + i % 256 + ".0/24";
    return i % 2 == 0
        ? List.of(v4)
        : List.of(v4, "fd00:10:244:" + Integer.toHexString(i % 65536) + "::/64");
  }

  /** The Node as a list returns it: with what the API server and a kubelet add to it. */
  private static Node asListed(Node node, int i, KubernetesSerialization serialization) {
    // what kube-controller-manager's IPAM sets: podCIDR is the first of podCIDRs
    node.getSpec().setPodCIDRs(podCidrs(i));
    node.getSpec().setPodCIDR(podCidrs(i).get(0));
    var meta = node.getMetadata();
    meta.setUid(String.format("%08x-0000-4000-8000-%012x", i, (long) i * 7919));
    meta.setResourceVersion(Integer.toString(1000 + i));
    meta.setCreationTimestamp(NOW);
    JsonNode tree = serialization.convertValue(node, JsonNode.class);
    meta.setManagedFields(
        List.of(
            managed("fabric8-kubernetes-client", "", fields(tree, "metadata", "spec")),
            managed("kubelet", "status", fields(tree, "status"))));
    List<NodeCondition> conditions = new ArrayList<>();
    conditions.add(condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "memory"));
    conditions.add(condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "no disk"));
    conditions.add(condition("PIDPressure", "False", "KubeletHasSufficientPID", "PID"));
    conditions.add(condition("Ready", "True", "KubeletReady", "ready"));
    node.getStatus().setConditions(conditions);
    return node;
  }

  private static NodeCondition condition(String type, String status, String reason, String what) {
    NodeCondition c = new NodeCondition();
    c.setType(type);
    c.setStatus(status);
    c.setReason(reason);
    c.setMessage("kubelet has " + what + " available");
    c.setLastHeartbeatTime(NOW);
    c.setLastTransitionTime(NOW);
    return c;
  }

  private static ManagedFieldsEntry managed(
      String manager, String subresource, Map<String, Object> fields) {
    FieldsV1 v1 = new FieldsV1();
    fields.forEach(v1::setAdditionalProperty);
    ManagedFieldsEntry e = new ManagedFieldsEntry();
    e.setManager(manager);
    e.setOperation("Update");
    e.setApiVersion("v1");
    e.setTime(NOW);
    e.setFieldsType("FieldsV1");
    e.setFieldsV1(v1);
    e.setSubresource(subresource);
    return e;
  }

  /** The field set of {@code tops} as server-side apply writes one: {"f:name": {...}}. */
  private static Map<String, Object> fields(JsonNode tree, String... tops) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (String top : tops) {
      out.put("f:" + top, fields(tree.get(top)));
    }
    return out;
  }

  private static Map<String, Object> fields(JsonNode node) {
    Map<String, Object> out = new LinkedHashMap<>();
    if (node != null && node.isObject()) {
      node.fields().forEachRemaining(f -> out.put("f:" + f.getKey(), fields(f.getValue())));
    }
    return out;
  }
}
