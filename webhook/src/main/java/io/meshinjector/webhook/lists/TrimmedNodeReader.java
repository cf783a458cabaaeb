package io.meshinjector.webhook.lists;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;

/**
 * Reads a listed Node's JSON straight into what {@link Trimmed#node} keeps, skipping the rest as it
 * parses.
 *
 * <p>Why not bind it with Jackson and trim it: at 20,000 EKS-shaped Nodes the first list is 314 MB
 * of JSON, and binding each Node's conditions, addresses, capacities, annotations and node info
 * into fabric8's objects, only for {@link Trimmed#node} to keep a tenth of them, cost about as much
 * CPU again as reading the bytes, on a replica that is not ready until it has read them all (8 s
 * against 3.6 s for the skip alone, on one core of the benchmark machine, cold JIT). The Node this
 * makes equals {@code Trimmed.node} of the bound one; {@code TrimmedNodeReaderTest} holds it to
 * that.
 */
final class TrimmedNodeReader {
  private TrimmedNodeReader() {}

  /**
   * Reads one Node, the parser at its {@code START_OBJECT}, and leaves the parser at its {@code
   * END_OBJECT}.
   *
   * @throws IOException naming the field, when a field this keeps has a value of the wrong shape
   */
  static Node read(JsonParser p) throws IOException {
    NodeParts parts = new NodeParts();
    expect(p, p.currentToken(), JsonToken.START_OBJECT, "a Node");
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken value = p.nextToken();
      switch (field) {
        case "metadata" -> {
          if (object(p, value, "metadata")) {
            metadata(p, parts);
          }
        }
        case "spec" -> {
          if (object(p, value, "spec")) {
            // as fabric8's NodeSpec starts: no list means an empty one, an explicit null means null
            parts.spec = true;
            parts.taints = new ArrayList<>();
            parts.podCIDRs = new ArrayList<>();
            spec(p, parts);
          }
        }
        case "status" -> {
          if (object(p, value, "status")) {
            status(p, parts);
          }
        }
        default -> p.skipChildren();
      }
    }
    return parts.trimmed();
  }

  private static void metadata(JsonParser p, NodeParts parts) throws IOException {
    // as fabric8's ObjectMeta starts: no labels field means none, an explicit null means null
    parts.labels = new LinkedHashMap<>();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken value = p.nextToken();
      switch (field) {
        case "name" -> parts.name = text(p, value, "metadata.name");
        case "resourceVersion" ->
            parts.resourceVersion = text(p, value, "metadata.resourceVersion");
        case "labels" -> {
          if (!object(p, value, "metadata.labels")) {
            parts.labels = null;
          } else {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
              String key = p.currentName();
              parts.labels.put(key, text(p, p.nextToken(), "metadata.labels." + key));
            }
          }
        }
        default -> p.skipChildren();
      }
    }
  }

  private static void spec(JsonParser p, NodeParts parts) throws IOException {
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken value = p.nextToken();
      switch (field) {
        case "taints" -> {
          if (value == JsonToken.VALUE_NULL) {
            parts.taints = null;
          } else {
            expect(p, value, JsonToken.START_ARRAY, "spec.taints");
            while (p.nextToken() != JsonToken.END_ARRAY) {
              parts.taints.add(taint(p));
            }
          }
        }
        case "unschedulable" -> parts.unschedulable = flag(p, value, "spec.unschedulable");
        case "podCIDR" -> parts.podCIDR = text(p, value, "spec.podCIDR");
        case "podCIDRs" -> {
          if (value == JsonToken.VALUE_NULL) {
            parts.podCIDRs = null;
          } else {
            expect(p, value, JsonToken.START_ARRAY, "spec.podCIDRs");
            for (JsonToken cidr = p.nextToken();
                cidr != JsonToken.END_ARRAY;
                cidr = p.nextToken()) {
              parts.podCIDRs.add(text(p, cidr, "spec.podCIDRs[]"));
            }
          }
        }
        default -> p.skipChildren();
      }
    }
  }

  private static Taint taint(JsonParser p) throws IOException {
    expect(p, p.currentToken(), JsonToken.START_OBJECT, "spec.taints[]");
    Taint taint = new Taint();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken value = p.nextToken();
      switch (field) {
        case "key" -> taint.setKey(text(p, value, "spec.taints[].key"));
        case "value" -> taint.setValue(text(p, value, "spec.taints[].value"));
        case "effect" -> taint.setEffect(text(p, value, "spec.taints[].effect"));
        case "timeAdded" -> taint.setTimeAdded(text(p, value, "spec.taints[].timeAdded"));
        default -> p.skipChildren();
      }
    }
    return taint;
  }

  private static void status(JsonParser p, NodeParts parts) throws IOException {
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken value = p.nextToken();
      if ("nodeInfo".equals(field) && object(p, value, "status.nodeInfo")) {
        parts.info = true;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String infoField = p.currentName();
          JsonToken infoValue = p.nextToken();
          switch (infoField) {
            case "osImage" -> parts.osImage = text(p, infoValue, "status.nodeInfo.osImage");
            case "kubeletVersion" ->
                parts.kubelet = text(p, infoValue, "status.nodeInfo.kubeletVersion");
            case "operatingSystem" ->
                parts.operatingSystem = text(p, infoValue, "status.nodeInfo.operatingSystem");
            default -> p.skipChildren();
          }
        }
      } else {
        p.skipChildren();
      }
    }
  }

  /** True at an object to read, false at a null; anything else is an error naming the field. */
  private static boolean object(JsonParser p, JsonToken value, String field) throws IOException {
    if (value == JsonToken.VALUE_NULL) {
      return false;
    }
    expect(p, value, JsonToken.START_OBJECT, field);
    return true;
  }

  /** A scalar as text, as Jackson binds one to a String field; null for a JSON null. */
  private static String text(JsonParser p, JsonToken value, String field) throws IOException {
    if (value == JsonToken.VALUE_NULL) {
      return null;
    }
    if (!value.isScalarValue()) {
      throw new IOException(field + " is " + describe(value) + ", not a string");
    }
    return p.getText();
  }

  private static Boolean flag(JsonParser p, JsonToken value, String field) throws IOException {
    return switch (value) {
      case VALUE_NULL -> null;
      case VALUE_TRUE -> Boolean.TRUE;
      case VALUE_FALSE -> Boolean.FALSE;
      default -> throw new IOException(field + " is " + describe(value) + ", not a boolean");
    };
  }

  private static void expect(JsonParser p, JsonToken value, JsonToken wanted, String what)
      throws IOException {
    if (value != wanted) {
      throw new IOException(
          what + " is " + describe(value) + ", not " + describe(wanted) + at(p.currentLocation()));
    }
  }

  private static String at(com.fasterxml.jackson.core.JsonLocation location) {
    return location == null ? "" : " (at byte " + location.getByteOffset() + ")";
  }

  private static String describe(JsonToken token) {
    if (token == null) {
      return "the end of the input";
    }
    return switch (token) {
      case START_OBJECT -> "an object";
      case START_ARRAY -> "an array";
      case VALUE_STRING -> "a string";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
      case VALUE_TRUE, VALUE_FALSE -> "a boolean";
      case VALUE_NULL -> "null";
      default -> token.toString();
    };
  }
}
