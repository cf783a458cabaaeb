package io.meshinjector.templates.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;

/**
 * The RFC 6902 operations of one injection, written against the pod as the API server sent it. Each
 * operation looks at that tree before it is made (does the map or list exist, does the member), so
 * the patch applies to it by construction, and nothing is serialised or compared that the injection
 * does not change. Only {@code add} and {@code replace}: no move or copy to audit.
 */
public final class PodPatch {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private final JsonNode received;
  private final ArrayNode ops = F.arrayNode();
  private boolean metadataAdded;
  private boolean specAdded;

  /**
   * @param received the pod as received; read, never written
   */
  public PodPatch(JsonNode received) {
    this.received = received;
  }

  /** The operations so far, in the order they apply. */
  public ArrayNode ops() {
    return ops;
  }

  /**
   * Sets the entries of a metadata map ({@code labels}, {@code annotations}) whose value differs:
   * one operation an entry where the map exists, else one that adds the map. Call once a map.
   */
  public void putAll(String map, Map<String, String> entries) {
    if (entries.isEmpty()) {
      return;
    }
    JsonNode current = received.path("metadata").path(map);
    if (current.isObject()) {
      for (Map.Entry<String, String> e : entries.entrySet()) {
        JsonNode now = current.get(e.getKey());
        if (now == null || !now.isTextual() || !now.textValue().equals(e.getValue())) {
          op(
              now == null ? "add" : "replace",
              "/metadata/" + map + "/" + escape(e.getKey()),
              F.textNode(e.getValue()));
        }
      }
      return;
    }
    ensure("metadata");
    ObjectNode all = F.objectNode();
    entries.forEach(all::put);
    op(current.isMissingNode() ? "add" : "replace", "/metadata/" + map, all);
  }

  /**
   * Inserts {@code values} into a spec list from {@code at} on ({@code -1}: at its end), or adds
   * the list holding them where the pod has none. Call once a list.
   */
  public void insert(String list, int at, List<JsonNode> values) {
    if (values.isEmpty()) {
      return;
    }
    JsonNode current = received.path("spec").path(list);
    if (current.isArray()) {
      for (int k = 0; k < values.size(); k++) {
        op("add", "/spec/" + list + "/" + (at < 0 ? "-" : String.valueOf(at + k)), values.get(k));
      }
      return;
    }
    setList(list, values);
  }

  /** Replaces a spec list with {@code values} (a new order of its elements), or adds it. */
  public void setList(String list, List<JsonNode> values) {
    JsonNode current = received.path("spec").path(list);
    ensure("spec");
    op(
        current.isMissingNode() ? "add" : "replace",
        "/spec/" + list,
        F.arrayNode(values.size()).addAll(values));
  }

  /**
   * Sets {@code member} of the spec's object {@code field} to {@code value} where the pod has that
   * object, else sets the whole {@code field} to {@code whole}.
   */
  public void setMember(String field, String member, JsonNode value, JsonNode whole) {
    JsonNode current = received.path("spec").path(field);
    if (current.isObject()) {
      op(current.has(member) ? "replace" : "add", "/spec/" + field + "/" + escape(member), value);
      return;
    }
    ensure("spec");
    op(current.isMissingNode() ? "add" : "replace", "/spec/" + field, whole);
  }

  /**
   * Sets a member of one element of a spec list (a container's probe); the element is one the
   * caller read from the pod, at the same index.
   */
  public void setInElement(String list, int index, String member, JsonNode value) {
    JsonNode element = received.path("spec").path(list).path(index);
    op(
        element.has(member) ? "replace" : "add",
        "/spec/" + list + "/" + index + "/" + escape(member),
        value);
  }

  /** A top-level object the pod lacks ({@code metadata}, {@code spec}), added empty once. */
  private void ensure(String part) {
    if (received.path(part).isObject()) {
      return;
    }
    boolean metadata = part.equals("metadata");
    if (metadata ? metadataAdded : specAdded) {
      return;
    }
    op(received.has(part) ? "replace" : "add", "/" + part, F.objectNode());
    if (metadata) {
      metadataAdded = true;
    } else {
      specAdded = true;
    }
  }

  private void op(String op, String path, JsonNode value) {
    ops.addObject().put("op", op).put("path", path).set("value", value);
  }

  /** RFC 6901: {@code ~} and {@code /} in a key. */
  static String escape(String key) {
    if (key.indexOf('~') < 0 && key.indexOf('/') < 0) {
      return key;
    }
    return key.replace("~", "~0").replace("/", "~1");
  }
}
