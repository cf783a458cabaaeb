package io.meshinjector.templates.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A YAML template with the smallest substitution that templates for containers need, so that no
 * template engine (and no logic) sits between the values and the pod:
 *
 * <ul>
 *   <li>{@code ${name}} in a string is replaced by the value's text; {@code $${} writes {@code ${}.
 *   <li>A string that is only {@code ${name}} becomes the value itself (number, boolean, list, map),
 *       and is left out, with its key, when the value is empty.
 *   <li>An object with {@code $if: name} (or {@code $if: "!name"}) is left out, with its key, unless
 *       the value is set (not empty, not false). {@code name=text} holds when the value's text is
 *       {@code text}; terms join with {@code &&}, and those with {@code ||} (no parentheses).
 *   <li>A list item {@code {$items: [...]}} is replaced by its items; a list item that is only
 *       {@code ${name}} of a list value is replaced by that list's items.
 *   <li>A map key with {@code ${name}} is substituted; the entry is left out when the value is empty.
 *   <li>An object with {@code $if} and {@code $else} renders, when the condition fails, as its
 *       {@code $else} value instead of being left out.
 *   <li>A map entry whose key starts with {@code $merge} is an object whose entries join the map
 *       around it (a {@code $if} on it adds them or not, together).
 *   <li>A list item {@code {$each: name, ...}} is rendered once per entry of the map value {@code
 *       name}, in key order, with {@code ${key}} and {@code ${value}} the entry's; a list of only
 *       such items that renders empty is left out, with its key.
 * </ul>
 */
public final class Template {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final String IF = "$if";
  private static final String ITEMS = "$items";
  private static final String ELSE = "$else";
  private static final String MERGE = "$merge";
  private static final String EACH = "$each";

  /** Marks a node the rendering leaves out. */
  private static final JsonNode OMIT = F.missingNode();

  private final String name;
  private final JsonNode tree;

  private Template(String name, JsonNode tree) {
    this.name = name;
    this.tree = tree;
  }

  /**
   * @throws IllegalArgumentException when the text is not YAML
   */
  public static Template parse(String name, String yaml) {
    try {
      JsonNode tree = YAML.readTree(yaml);
      if (tree == null || tree.isMissingNode() || tree.isNull()) {
        throw new IllegalArgumentException("template is empty");
      }
      return of(name, tree);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("template is not valid YAML: " + e.getOriginalMessage());
    }
  }

  public static Template of(String name, JsonNode tree) {
    if (!tree.isContainerNode()) {
      throw new IllegalArgumentException("a template must be a map or a list");
    }
    Template t = new Template(name, tree.deepCopy());
    t.names(); // refuses malformed placeholders now rather than on the first pod
    return t;
  }

  public String name() {
    return name;
  }

  public JsonNode tree() {
    return tree.deepCopy();
  }

  /** Every value name the template refers to. */
  public Set<String> names() {
    Set<String> out = new TreeSet<>();
    collect(tree, out);
    return out;
  }

  /** Adds {@code prefix.key...} for every node under {@code node} (objects are walked). */
  public static void flatten(String prefix, JsonNode node, Map<String, JsonNode> out) {
    if (node == null) {
      return;
    }
    out.put(prefix, node);
    if (node.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> it = node.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        flatten(prefix + "." + e.getKey(), e.getValue(), out);
      }
    }
  }

  /** Where the renderer looks values up. */
  @FunctionalInterface
  public interface Values {
    /** The value, or null when there is no such name. */
    JsonNode get(String name);
  }

  /**
   * Renders the template; the result shares no node with the template.
   *
   * @throws TemplateException naming the template and the value it cannot find
   */
  public JsonNode render(Values values) {
    JsonNode out = render(tree, values);
    return out == OMIT ? F.nullNode() : out;
  }

  private JsonNode render(JsonNode node, Values values) {
    if (node.isTextual()) {
      return text(node.textValue(), values);
    }
    if (node.isObject()) {
      JsonNode cond = node.get(IF);
      if (cond != null && !holds(cond.asText(), values)) {
        JsonNode otherwise = node.get(ELSE);
        return otherwise == null ? OMIT : render(otherwise, values);
      }
      ObjectNode out = F.objectNode();
      Iterator<Map.Entry<String, JsonNode>> it = node.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        String key = e.getKey();
        if (key.equals(IF) || key.equals(ELSE)) {
          continue;
        }
        if (key.startsWith(MERGE)) {
          JsonNode merged = render(e.getValue(), values);
          if (merged.isObject()) {
            out.setAll((ObjectNode) merged);
          }
          continue;
        }
        if (key.indexOf('$') >= 0) {
          key = keyText(key, values);
          if (key == null) {
            continue;
          }
        }
        JsonNode v = render(e.getValue(), values);
        if (v != OMIT) {
          out.set(key, v);
        }
      }
      return out;
    }
    if (node.isArray()) {
      ArrayNode out = F.arrayNode(node.size());
      boolean onlyEach = !node.isEmpty();
      for (JsonNode item : node) {
        onlyEach &= item.isObject() && item.has(EACH);
        if (item.isObject() && item.has(ITEMS)) {
          JsonNode cond = item.get(IF);
          if (cond == null || holds(cond.asText(), values)) {
            for (JsonNode sub : item.get(ITEMS)) {
              add(out, render(sub, values), false);
            }
          }
          continue;
        }
        if (item.isObject() && item.has(EACH)) {
          each((ObjectNode) item, values, out);
          continue;
        }
        add(out, render(item, values), item.isTextual() && whole(item.textValue()) != null);
      }
      // a list made only from maps that are empty for this pod is left out, as an empty value is
      return onlyEach && out.isEmpty() ? OMIT : out;
    }
    return node.deepCopy();
  }

  /** One rendering of the item per entry of its {@code $each} map, sorted by key. */
  private void each(ObjectNode item, Values values, ArrayNode out) {
    JsonNode map = lookup(item.get(EACH).asText(), values);
    if (!map.isObject()) {
      return;
    }
    ObjectNode body = item.deepCopy();
    body.remove(EACH);
    Set<String> keys = new TreeSet<>();
    map.fieldNames().forEachRemaining(keys::add);
    for (String k : keys) {
      JsonNode v = map.get(k);
      Values entry =
          name ->
              switch (name) {
                case "key" -> TextNode.valueOf(k);
                case "value" -> v.isValueNode() ? TextNode.valueOf(v.asText()) : v;
                default -> values.get(name);
              };
      add(out, render(body, entry), false);
    }
  }

  private static void add(ArrayNode out, JsonNode v, boolean splice) {
    if (v == OMIT) {
      return;
    }
    if (splice && v.isArray()) {
      out.addAll((ArrayNode) v);
    } else {
      out.add(v);
    }
  }

  private JsonNode text(String s, Values values) {
    if (s.indexOf("${") < 0) {
      return TextNode.valueOf(s.replace("$${", "${"));
    }
    String whole = whole(s);
    if (whole != null) {
      JsonNode v = lookup(whole, values);
      return empty(v) ? OMIT : v.deepCopy();
    }
    return TextNode.valueOf(substitute(s, values, false));
  }

  /** The key with its values, or null when one of them is empty. */
  private String keyText(String key, Values values) {
    return substitute(key, values, true);
  }

  private String substitute(String s, Values values, boolean nullWhenEmpty) {
    StringBuilder b = new StringBuilder(s.length() + 32);
    int i = 0;
    while (i < s.length()) {
      int start = s.indexOf("${", i);
      if (start < 0) {
        b.append(s, i, s.length());
        break;
      }
      if (start > 0 && s.charAt(start - 1) == '$') {
        b.append(s, i, start - 1).append("${");
        i = start + 2;
        continue;
      }
      int end = s.indexOf('}', start);
      if (end < 0) {
        throw new TemplateException("template '" + name + "': unclosed '${' in '" + s + "'");
      }
      JsonNode v = lookup(s.substring(start + 2, end), values);
      if (nullWhenEmpty && empty(v)) {
        return null;
      }
      b.append(s, i, start).append(v.isValueNode() ? v.asText() : v.toString());
      i = end + 1;
    }
    return b.toString();
  }

  private boolean holds(String cond, Values values) {
    for (String any : cond.split("\\|\\|")) {
      boolean all = true;
      for (String term : any.split("&&")) {
        all &= term(term.trim(), values);
      }
      if (all) {
        return true;
      }
    }
    return false;
  }

  private boolean term(String cond, Values values) {
    boolean negate = cond.startsWith("!");
    String name = negate ? cond.substring(1) : cond;
    int eq = name.indexOf('=');
    JsonNode v = lookup(eq < 0 ? name : name.substring(0, eq), values);
    boolean set =
        eq < 0
            ? !empty(v) && !(v.isBoolean() && !v.booleanValue())
            : v.isValueNode() && v.asText().equals(name.substring(eq + 1));
    return set != negate;
  }

  /** The value names a {@code $if} condition reads. */
  private static void conditionNames(String cond, Set<String> out) {
    for (String any : cond.split("\\|\\|")) {
      for (String term : any.split("&&")) {
        String t = term.trim();
        t = t.startsWith("!") ? t.substring(1) : t;
        int eq = t.indexOf('=');
        out.add(eq < 0 ? t : t.substring(0, eq));
      }
    }
  }

  private JsonNode lookup(String key, Values values) {
    JsonNode v = values.get(key);
    if (v == null) {
      throw new TemplateException("template '" + name + "': no value '" + key + "'");
    }
    return v;
  }

  private static boolean empty(JsonNode v) {
    return v.isNull()
        || v.isMissingNode()
        || (v.isTextual() && v.textValue().isEmpty())
        || (v.isContainerNode() && v.isEmpty());
  }

  /** The name when {@code s} is exactly one placeholder. */
  private static String whole(String s) {
    if (s.startsWith("${") && s.endsWith("}") && s.indexOf('}') == s.length() - 1) {
      return s.substring(2, s.length() - 1);
    }
    return null;
  }

  private void collect(JsonNode node, Set<String> out) {
    if (node.isTextual()) {
      names(node.textValue(), out);
    } else if (node.isObject() && node.has(EACH)) {
      // ${key} and ${value} are the entry's, no values of their own
      Set<String> body = new TreeSet<>();
      ObjectNode rest = node.deepCopy();
      rest.remove(EACH);
      collect(rest, body);
      body.remove("key");
      body.remove("value");
      out.addAll(body);
      out.add(node.get(EACH).asText());
    } else if (node.isContainerNode()) {
      Iterator<Map.Entry<String, JsonNode>> it = node.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        names(e.getKey(), out);
        if (e.getKey().equals(IF)) {
          conditionNames(e.getValue().asText(), out);
        } else {
          collect(e.getValue(), out);
        }
      }
      if (node.isArray()) {
        for (JsonNode item : node) {
          collect(item, out);
        }
      }
    }
  }

  private void names(String s, Set<String> out) {
    int i = 0;
    while ((i = s.indexOf("${", i)) >= 0) {
      if (i > 0 && s.charAt(i - 1) == '$') {
        i += 2;
        continue;
      }
      int end = s.indexOf('}', i);
      if (end < 0) {
        throw new IllegalArgumentException("template '" + name + "': unclosed '${' in '" + s + "'");
      }
      out.add(s.substring(i + 2, end));
      i = end + 1;
    }
  }
}
