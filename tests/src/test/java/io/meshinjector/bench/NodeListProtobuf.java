package io.meshinjector.bench;

import com.google.protobuf.CodedOutputStream;
import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.NodeSystemInfo;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A NodeList as the API server answers it in protobuf: {@code k8s\0}, then runtime.Unknown holding
 * the list. Written with protobuf-java's CodedOutputStream as Go's generated marshaller writes it:
 * fields in number order, a struct's strings, bools and nested structs always (empty when unset),
 * maps as entries sorted by key. Field numbers are those of {@code k8s.io/api/core/v1/
 * generated.proto} and apimachinery's {@code meta/v1}; only what the benchmark's Nodes set is
 * written.
 */
final class NodeListProtobuf {
  private static final KubernetesSerialization JSON = new KubernetesSerialization();

  private NodeListProtobuf() {}

  static byte[] envelope(String resourceVersion, List<Node> nodes) {
    Message list =
        new Message()
            .message(1, new Message().string(1, "").string(2, resourceVersion).string(3, ""));
    nodes.forEach(n -> list.message(2, node(n)));
    Message unknown =
        new Message()
            .message(1, new Message().string(1, "v1").string(2, "NodeList"))
            .message(2, list)
            .string(3, "")
            .string(4, "");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(new byte[] {'k', '8', 's', 0});
    out.writeBytes(unknown.bytes());
    return out.toByteArray();
  }

  private static Message node(Node node) {
    return new Message()
        .message(1, metadata(node.getMetadata()))
        .message(2, spec(node.getSpec()))
        .message(3, status(node.getStatus()));
  }

  /** ObjectMeta; a Time is seconds 1, nanos 2. */
  private static Message metadata(ObjectMeta m) {
    Message meta =
        new Message()
            .string(1, m.getName())
            .string(2, m.getGenerateName())
            .string(3, m.getNamespace())
            .string(4, m.getSelfLink())
            .string(5, m.getUid())
            .string(6, m.getResourceVersion())
            .varint(7, m.getGeneration() == null ? 0 : m.getGeneration())
            .message(8, time(m.getCreationTimestamp()));
    entries(meta, 11, m.getLabels());
    entries(meta, 12, m.getAnnotations());
    for (ManagedFieldsEntry e : m.getManagedFields()) {
      meta.message(
          17,
          new Message()
              .string(1, e.getManager())
              .string(2, e.getOperation())
              .string(3, e.getApiVersion())
              .message(4, time(e.getTime()))
              .string(6, e.getFieldsType())
              .message(
                  7,
                  new Message()
                      .bytes(
                          1,
                          JSON.asJson(e.getFieldsV1().getAdditionalProperties())
                              .getBytes(StandardCharsets.UTF_8)))
              .string(8, e.getSubresource()));
    }
    return meta;
  }

  /**
   * NodeSpec: podCIDR 1, externalID 2, providerID 3, unschedulable 4, taints 5, podCIDRs 7 (a field
   * per CIDR; configSource 6, a nil pointer here, is left out as Go leaves it out).
   */
  private static Message spec(NodeSpec s) {
    Message spec =
        new Message()
            .string(1, s.getPodCIDR())
            .string(2, s.getExternalID())
            .string(3, s.getProviderID())
            .varint(4, Boolean.TRUE.equals(s.getUnschedulable()) ? 1 : 0);
    for (Taint t : s.getTaints()) {
      Message taint =
          new Message().string(1, t.getKey()).string(2, t.getValue()).string(3, t.getEffect());
      if (t.getTimeAdded() != null) {
        taint.message(4, time(t.getTimeAdded()));
      }
      spec.message(5, taint);
    }
    if (s.getPodCIDRs() != null) {
      s.getPodCIDRs().forEach(cidr -> spec.string(7, cidr));
    }
    return spec;
  }

  private static Message status(NodeStatus s) {
    Message status = new Message();
    quantities(status, 1, s.getCapacity());
    quantities(status, 2, s.getAllocatable());
    status.string(3, s.getPhase());
    for (NodeCondition c : s.getConditions()) {
      status.message(
          4,
          new Message()
              .string(1, c.getType())
              .string(2, c.getStatus())
              .message(3, time(c.getLastHeartbeatTime()))
              .message(4, time(c.getLastTransitionTime()))
              .string(5, c.getReason())
              .string(6, c.getMessage()));
    }
    for (NodeAddress a : s.getAddresses()) {
      status.message(5, new Message().string(1, a.getType()).string(2, a.getAddress()));
    }
    status.message(6, new Message().message(1, new Message().varint(1, 10250)));
    NodeSystemInfo i = s.getNodeInfo();
    status.message(
        7,
        new Message()
            .string(1, i.getMachineID())
            .string(2, i.getSystemUUID())
            .string(3, i.getBootID())
            .string(4, i.getKernelVersion())
            .string(5, i.getOsImage())
            .string(6, i.getContainerRuntimeVersion())
            .string(7, i.getKubeletVersion())
            .string(8, i.getKubeProxyVersion())
            .string(9, i.getOperatingSystem())
            .string(10, i.getArchitecture()));
    for (ContainerImage image : s.getImages()) {
      Message m = new Message();
      image.getNames().forEach(n -> m.string(1, n));
      status.message(8, m.varint(2, image.getSizeBytes()));
    }
    return status;
  }

  private static Message time(String rfc3339) {
    Message time = new Message();
    if (rfc3339 != null) {
      Instant t = Instant.parse(rfc3339);
      time.varint(1, t.getEpochSecond()).varint(2, t.getNano());
    }
    return time;
  }

  private static void entries(Message message, int field, Map<String, String> map) {
    if (map != null) {
      new TreeMap<>(map)
          .forEach((k, v) -> message.message(field, new Message().string(1, k).string(2, v)));
    }
  }

  /** map&lt;string, Quantity&gt;; a Quantity is its string, field 1. */
  private static void quantities(Message message, int field, Map<String, Quantity> map) {
    if (map != null) {
      new TreeMap<>(map)
          .forEach(
              (k, v) ->
                  message.message(
                      field,
                      new Message()
                          .string(1, k)
                          .message(2, new Message().string(1, v.toString()))));
    }
  }

  /** One message being written. */
  private static final class Message {
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    private final CodedOutputStream out = CodedOutputStream.newInstance(buffer);

    Message string(int field, String text) {
      try {
        out.writeString(field, text == null ? "" : text);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return this;
    }

    Message varint(int field, long value) {
      try {
        out.writeInt64(field, value);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return this;
    }

    Message message(int field, Message message) {
      return bytes(field, message.bytes());
    }

    Message bytes(int field, byte[] value) {
      try {
        out.writeByteArray(field, value);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return this;
    }

    byte[] bytes() {
      try {
        out.flush();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return buffer.toByteArray();
    }
  }
}
