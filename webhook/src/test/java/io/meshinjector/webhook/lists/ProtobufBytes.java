package io.meshinjector.webhook.lists;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Protobuf as the API server writes it, for the readers' tests: written here from the wire format's
 * rules, not with the code under test. {@link #node} writes a Node as Go's generated marshaller
 * does: every string and bool of a struct always (empty or false when unset), a repeated field once
 * per entry (none for an empty list), maps as entries of key 1 and value 2, and the bulk the
 * readers skip (annotations, managed fields, conditions, images).
 */
final class ProtobufBytes {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  ProtobufBytes varint(int field, long value) {
    key(field, 0);
    raw(value);
    return this;
  }

  ProtobufBytes string(int field, String text) {
    return bytes(field, (text == null ? "" : text).getBytes(StandardCharsets.UTF_8));
  }

  ProtobufBytes message(int field, ProtobufBytes message) {
    return bytes(field, message.bytes());
  }

  ProtobufBytes bytes(int field, byte[] value) {
    key(field, 2);
    raw(value.length);
    out.writeBytes(value);
    return this;
  }

  ProtobufBytes fixed32(int field, int value) {
    key(field, 5);
    for (int i = 0; i < 4; i++) {
      out.write(value >>> (8 * i));
    }
    return this;
  }

  ProtobufBytes fixed64(int field, long value) {
    key(field, 1);
    for (int i = 0; i < 8; i++) {
      out.write((int) (value >>> (8 * i)));
    }
    return this;
  }

  /** A key with any wire type, for the malformed cases. */
  ProtobufBytes key(int field, int wireType) {
    raw((long) field << 3 | wireType);
    return this;
  }

  ProtobufBytes raw(long value) {
    while ((value & ~0x7fL) != 0) {
      out.write((int) (value & 0x7f) | 0x80);
      value >>>= 7;
    }
    out.write((int) value);
    return this;
  }

  byte[] bytes() {
    return out.toByteArray();
  }

  /** The envelope of a list: {@code k8s\0}, then runtime.Unknown holding the list's message. */
  static byte[] envelope(String kind, ProtobufBytes list) {
    ProtobufBytes unknown =
        new ProtobufBytes()
            .message(1, new ProtobufBytes().string(1, "v1").string(2, kind))
            .message(2, list)
            .string(3, "")
            .string(4, "");
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    all.writeBytes(new byte[] {'k', '8', 's', 0});
    all.writeBytes(unknown.bytes());
    return all.toByteArray();
  }

  /** A NodeList's message: ListMeta (resourceVersion 2, continue 3), then the items. */
  static ProtobufBytes nodeList(String resourceVersion, List<Node> nodes) {
    ProtobufBytes list =
        new ProtobufBytes()
            .message(1, new ProtobufBytes().string(1, "").string(2, resourceVersion).string(3, ""));
    nodes.forEach(n -> list.message(2, node(n)));
    return list;
  }

  /** A Node as Go marshals it, from the Node its JSON decodes to. */
  static ProtobufBytes node(Node node) {
    var meta = node.getMetadata();
    ProtobufBytes metadata =
        new ProtobufBytes()
            .string(1, meta.getName())
            .string(2, "")
            .string(3, "")
            .string(4, "")
            .string(5, "0c6a1e0e-uid")
            .string(6, meta.getResourceVersion())
            .varint(7, 0)
            .message(8, new ProtobufBytes().varint(1, 1_795_832_763L).varint(2, 0));
    entries(metadata, 11, meta.getLabels());
    entries(metadata, 12, Map.of("node.alpha.kubernetes.io/ttl", "0"));
    metadata.message(
        17,
        new ProtobufBytes()
            .string(1, "kubelet")
            .string(2, "Update")
            .message(7, new ProtobufBytes().bytes(1, "{\"f:status\":{}}".getBytes())));
    // NodeSpec: podCIDR 1 (always, empty when unset), externalID 2, providerID 3
    ProtobufBytes spec =
        new ProtobufBytes()
            .string(1, node.getSpec() == null ? "" : node.getSpec().getPodCIDR())
            .string(2, "")
            .string(3, "aws:///x");
    if (node.getSpec() != null) {
      spec.varint(4, Boolean.TRUE.equals(node.getSpec().getUnschedulable()) ? 1 : 0);
      for (Taint t : node.getSpec().getTaints()) {
        ProtobufBytes taint =
            new ProtobufBytes()
                .string(1, t.getKey())
                .string(2, t.getValue())
                .string(3, t.getEffect());
        if (t.getTimeAdded() != null) {
          taint.message(
              4,
              new ProtobufBytes()
                  .varint(1, Instant.parse(t.getTimeAdded()).getEpochSecond())
                  .varint(2, 0));
        }
        spec.message(5, taint);
      }
      // configSource 6 is left out as Go leaves out a nil pointer; podCIDRs 7, a field per CIDR
      if (node.getSpec().getPodCIDRs() != null) {
        node.getSpec().getPodCIDRs().forEach(cidr -> spec.string(7, cidr));
      }
    }
    ProtobufBytes info = new ProtobufBytes();
    var nodeInfo = node.getStatus() == null ? null : node.getStatus().getNodeInfo();
    for (int f = 1; f <= 10; f++) {
      String value =
          nodeInfo == null
              ? ""
              : switch (f) {
                case 5 -> nodeInfo.getOsImage();
                case 7 -> nodeInfo.getKubeletVersion();
                case 9 -> nodeInfo.getOperatingSystem();
                default -> "x" + f;
              };
      info.string(f, value);
    }
    ProtobufBytes status =
        new ProtobufBytes()
            .message(
                1,
                new ProtobufBytes().string(1, "cpu").message(2, new ProtobufBytes().string(1, "8")))
            .string(3, "")
            .message(4, new ProtobufBytes().string(1, "Ready").string(2, "True"))
            .message(5, new ProtobufBytes().string(1, "InternalIP").string(2, "10.0.0.1"))
            .message(7, info);
    for (int i = 0; i < 5; i++) {
      status.message(
          8,
          new ProtobufBytes()
              .string(1, "registry.example/app-" + i + "@sha256:abc")
              .varint(2, 40_000_000L + i));
    }
    return new ProtobufBytes().message(1, metadata).message(2, spec).message(3, status);
  }

  private static void entries(ProtobufBytes message, int field, Map<String, String> map) {
    if (map != null) {
      map.forEach((k, v) -> message.message(field, new ProtobufBytes().string(1, k).string(2, v)));
    }
  }
}
