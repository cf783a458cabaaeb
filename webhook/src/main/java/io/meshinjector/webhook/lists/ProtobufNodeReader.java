package io.meshinjector.webhook.lists;

import static com.google.protobuf.WireFormat.getTagFieldNumber;
import static io.meshinjector.webhook.lists.ProtobufList.enter;
import static io.meshinjector.webhook.lists.ProtobufList.leave;
import static io.meshinjector.webhook.lists.ProtobufList.string;
import static io.meshinjector.webhook.lists.ProtobufList.varint;

import com.google.protobuf.CodedInputStream;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;

/**
 * Reads a listed Node from the API server's protobuf encoding into what {@link Trimmed#node} keeps,
 * as {@link TrimmedNodeReader} does from its JSON: the fields kept are read, every other one is
 * skipped by its length ({@link ProtobufList} says how).
 *
 * <p>Why: at 20,000 EKS-shaped Nodes the API server took 13 to 15 s on these machines to start
 * answering the list as JSON (encoding 450 MB), and under one second as protobuf (277 MB); and a
 * Node's images, conditions and managed fields, most of its bytes, are skipped here by their length
 * instead of being parsed.
 *
 * <p>The Node made equals the one {@link TrimmedNodeReader} makes from the JSON of the same object,
 * which writes what protobuf always writes only when it is set: an empty name, resourceVersion or
 * taint value, and a false {@code unschedulable}, are left out of the JSON ({@code omitempty}), so
 * they are null here too (so is an empty {@code podCIDR}; an empty {@code podCIDRs} is no field in
 * either); a zero {@code timeAdded} is JSON's null. Field numbers are those of {@code
 * k8s.io/api/core/v1/generated.proto} (v1.32) and {@code k8s.io/apimachinery/.../meta/v1}'s.
 */
final class ProtobufNodeReader {
  private ProtobufNodeReader() {}

  /** Reads one Node message, until {@code readTag} returns 0 at its end. */
  static Node read(CodedInputStream in) throws IOException {
    NodeParts parts = new NodeParts();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (getTagFieldNumber(tag)) {
        case 1 -> {
          int limit = enter(in, tag, "metadata");
          metadata(in, parts);
          leave(in, limit, "metadata");
        }
        case 2 -> {
          int limit = enter(in, tag, "spec");
          spec(in, parts);
          leave(in, limit, "spec");
        }
        case 3 -> {
          int limit = enter(in, tag, "status");
          status(in, parts);
          leave(in, limit, "status");
        }
        default -> in.skipField(tag);
      }
    }
    return parts.trimmed();
  }

  /** ObjectMeta: name 1, resourceVersion 6, labels 11 (entries of key 1, value 2). */
  private static void metadata(CodedInputStream in, NodeParts parts) throws IOException {
    parts.labels = new LinkedHashMap<>();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (getTagFieldNumber(tag)) {
        case 1 -> parts.name = unlessEmpty(string(in, tag, "metadata.name"));
        case 6 -> parts.resourceVersion = unlessEmpty(string(in, tag, "metadata.resourceVersion"));
        case 11 -> {
          int limit = enter(in, tag, "metadata.labels");
          String key = "";
          String value = "";
          for (int entry = in.readTag(); entry != 0; entry = in.readTag()) {
            switch (getTagFieldNumber(entry)) {
              case 1 -> key = string(in, entry, "metadata.labels[].key");
              case 2 -> value = string(in, entry, "metadata.labels[].value");
              default -> in.skipField(entry);
            }
          }
          leave(in, limit, "metadata.labels");
          parts.labels.put(key, value);
        }
        default -> in.skipField(tag);
      }
    }
  }

  /** NodeSpec: podCIDR 1, unschedulable 4, taints 5, podCIDRs 7 (one field per CIDR). */
  private static void spec(CodedInputStream in, NodeParts parts) throws IOException {
    parts.spec = true;
    parts.taints = new ArrayList<>();
    parts.podCIDRs = new ArrayList<>();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (getTagFieldNumber(tag)) {
        case 1 -> parts.podCIDR = unlessEmpty(string(in, tag, "spec.podCIDR"));
        case 7 -> parts.podCIDRs.add(string(in, tag, "spec.podCIDRs[]"));
        case 4 ->
            parts.unschedulable = varint(in, tag, "spec.unschedulable") != 0 ? Boolean.TRUE : null;
        case 5 -> {
          int limit = enter(in, tag, "spec.taints[]");
          parts.taints.add(taint(in));
          leave(in, limit, "spec.taints[]");
        }
        default -> in.skipField(tag);
      }
    }
  }

  /** Taint: key 1, value 2, effect 3, timeAdded 4 (a Time: seconds 1, nanos 2). */
  private static Taint taint(CodedInputStream in) throws IOException {
    Taint taint = new Taint();
    taint.setKey("");
    taint.setEffect("");
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (getTagFieldNumber(tag)) {
        case 1 -> taint.setKey(string(in, tag, "spec.taints[].key"));
        case 2 -> taint.setValue(unlessEmpty(string(in, tag, "spec.taints[].value")));
        case 3 -> taint.setEffect(string(in, tag, "spec.taints[].effect"));
        case 4 -> {
          int limit = enter(in, tag, "spec.taints[].timeAdded");
          taint.setTimeAdded(time(in));
          leave(in, limit, "spec.taints[].timeAdded");
        }
        default -> in.skipField(tag);
      }
    }
    return taint;
  }

  /**
   * A Time as its JSON says it: RFC 3339 in UTC to the second, or null for the zero time (which
   * protobuf sends as an empty message).
   */
  private static String time(CodedInputStream in) throws IOException {
    long seconds = 0;
    long nanos = 0;
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (getTagFieldNumber(tag)) {
        case 1 -> seconds = varint(in, tag, "timeAdded.seconds");
        case 2 -> nanos = varint(in, tag, "timeAdded.nanos");
        default -> in.skipField(tag);
      }
    }
    return seconds == 0 && nanos == 0 ? null : Instant.ofEpochSecond(seconds).toString();
  }

  /** NodeStatus: nodeInfo 7 (NodeSystemInfo: osImage 5, kubeletVersion 7, operatingSystem 9). */
  private static void status(CodedInputStream in, NodeParts parts) throws IOException {
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      if (getTagFieldNumber(tag) != 7) {
        in.skipField(tag);
        continue;
      }
      int limit = enter(in, tag, "status.nodeInfo");
      parts.info = true;
      // JSON always carries all three, empty or not
      parts.osImage = "";
      parts.kubelet = "";
      parts.operatingSystem = "";
      for (int info = in.readTag(); info != 0; info = in.readTag()) {
        switch (getTagFieldNumber(info)) {
          case 5 -> parts.osImage = string(in, info, "status.nodeInfo.osImage");
          case 7 -> parts.kubelet = string(in, info, "status.nodeInfo.kubeletVersion");
          case 9 -> parts.operatingSystem = string(in, info, "status.nodeInfo.operatingSystem");
          default -> in.skipField(info);
        }
      }
      leave(in, limit, "status.nodeInfo");
    }
  }

  private static String unlessEmpty(String text) {
    return text.isEmpty() ? null : text;
  }
}
