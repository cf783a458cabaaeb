package io.meshinjector.engine.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A reader over one object of the config tree that knows its dotted path, so every error names the
 * key, and that refuses keys nobody read ({@link #done()}), so a typo is an error rather than a
 * silently ignored setting.
 */
public final class ConfigSection {
  private static final Pattern GO_DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)");

  private final JsonNode node;
  private final String path;
  private final Set<String> read = new HashSet<>();

  ConfigSection(JsonNode node, String path) {
    if (node == null || !node.isObject()) {
      throw new ConfigException("config key '" + path + "' must be a map");
    }
    this.node = node;
    this.path = path;
  }

  public String path() {
    return path;
  }

  public String key(String name) {
    return path.isEmpty() ? name : path + "." + name;
  }

  private JsonNode required(String name) {
    read.add(name);
    JsonNode v = node.get(name);
    if (v == null || v.isNull()) {
      throw new ConfigException("config key '" + key(name) + "' is missing");
    }
    return v;
  }

  /** The keys of this section, in order. */
  public Iterator<String> names() {
    return node.fieldNames();
  }

  public boolean has(String name) {
    JsonNode v = node.get(name);
    return v != null && !v.isNull();
  }

  public JsonNode raw(String name) {
    read.add(name);
    return node.get(name);
  }

  public String text(String name) {
    JsonNode v = required(name);
    if (!v.isValueNode()) {
      throw new ConfigException("config key '" + key(name) + "' must be a string");
    }
    return v.asText();
  }

  public boolean bool(String name) {
    JsonNode v = required(name);
    if (!v.isBoolean()) {
      throw new ConfigException(
          "config key '" + key(name) + "' must be true or false, not '" + v.asText() + "'");
    }
    return v.booleanValue();
  }

  public int integer(String name) {
    JsonNode v = required(name);
    if (!v.canConvertToInt() || !v.isIntegralNumber()) {
      throw new ConfigException(
          "config key '" + key(name) + "' must be a whole number, not '" + v.asText() + "'");
    }
    return v.intValue();
  }

  public Duration duration(String name) {
    String text = text(name);
    try {
      return parseDuration(text);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "config key '"
              + key(name)
              + "' must be a duration such as 30s, 5m or 1h, not '"
              + text
              + "'");
    }
  }

  /** One of the allowed values, compared as written. */
  public <T> T choice(String name, Map<String, T> allowed) {
    String text = text(name);
    T value = allowed.get(text);
    if (value == null) {
      throw new ConfigException(
          "config key '"
              + key(name)
              + "' has invalid value '"
              + text
              + "': allowed "
              + allowed.keySet());
    }
    return value;
  }

  public List<String> strings(String name) {
    JsonNode v = required(name);
    if (!v.isArray()) {
      throw new ConfigException("config key '" + key(name) + "' must be a list");
    }
    List<String> out = new ArrayList<>();
    for (JsonNode item : v) {
      if (!item.isValueNode()) {
        throw new ConfigException("config key '" + key(name) + "' must be a list of strings");
      }
      out.add(item.asText());
    }
    return out;
  }

  /** A free-form map of strings (labels, selectors): any key is allowed. */
  public Map<String, String> stringMap(String name) {
    JsonNode v = required(name);
    if (!v.isObject()) {
      throw new ConfigException("config key '" + key(name) + "' must be a map");
    }
    Map<String, String> out = new LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> it = v.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!e.getValue().isValueNode() || e.getValue().isNull()) {
        throw new ConfigException(
            "config key '" + key(name) + "." + e.getKey() + "' must be a string");
      }
      out.put(e.getKey(), e.getValue().asText());
    }
    return out;
  }

  public ConfigSection section(String name) {
    return new ConfigSection(required(name), key(name));
  }

  /** A list of maps, each read by {@code reader} and then checked for unread keys. */
  public <T> List<T> list(String name, Function<ConfigSection, T> reader) {
    JsonNode v = required(name);
    if (!v.isArray()) {
      throw new ConfigException("config key '" + key(name) + "' must be a list");
    }
    List<T> out = new ArrayList<>();
    int i = 0;
    for (JsonNode item : v) {
      ConfigSection s = new ConfigSection(item, key(name) + "[" + i++ + "]");
      T value;
      try {
        value = reader.apply(s);
      } catch (ConfigException e) {
        throw e;
      } catch (IllegalArgumentException e) {
        throw new ConfigException("config key '" + s.path() + "': " + e.getMessage(), e);
      }
      s.done();
      out.add(value);
    }
    return out;
  }

  /** Marks every key of this section as read; for sections another module binds. */
  public void skip(String name) {
    read.add(name);
  }

  /**
   * Refuses the keys nobody read.
   *
   * @throws ConfigException naming the first unknown key and the known ones
   */
  public void done() {
    Iterator<String> names = node.fieldNames();
    while (names.hasNext()) {
      String n = names.next();
      if (!read.contains(n)) {
        throw new ConfigException(
            "config key '"
                + key(n)
                + "' is not known; known keys here: "
                + new java.util.TreeSet<>(read));
      }
    }
  }

  /** Parses {@code 90s}, {@code 5m}, {@code 1h30m}, {@code 2d}, {@code 500ms} or ISO-8601. */
  public static Duration parseDuration(String text) {
    String t = text.trim();
    if (t.startsWith("P") || t.startsWith("p")) {
      return Duration.parse(t);
    }
    Matcher m = GO_DURATION.matcher(t);
    Duration total = Duration.ZERO;
    int end = 0;
    while (m.find()) {
      if (m.start() != end) {
        throw new IllegalArgumentException(text);
      }
      long n = Long.parseLong(m.group(1));
      total =
          total.plus(
              switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
              });
      end = m.end();
    }
    if (end == 0 || end != t.length()) {
      throw new IllegalArgumentException(text);
    }
    return total;
  }
}
