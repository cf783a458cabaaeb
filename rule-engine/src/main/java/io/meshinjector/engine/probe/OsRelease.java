package io.meshinjector.engine.probe;

import java.util.LinkedHashMap;
import java.util.Map;

/** {@code /etc/os-release}: shell-style {@code KEY=value} lines (os-release(5)). */
public final class OsRelease {
  private OsRelease() {}

  public static Map<String, String> parse(String text) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String raw : text.split("\n")) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int eq = line.indexOf('=');
      if (eq <= 0) {
        continue;
      }
      out.put(line.substring(0, eq).strip(), unquote(line.substring(eq + 1).strip()));
    }
    return out;
  }

  /** {@code rhel 8.10}: the ID and VERSION_ID of os-release, the form a probe fact takes. */
  public static String summary(Map<String, String> fields) {
    String id = fields.getOrDefault("ID", "").strip();
    String version = fields.getOrDefault("VERSION_ID", "").strip();
    if (id.isEmpty()) {
      return fields.getOrDefault("NAME", "unknown");
    }
    return version.isEmpty() ? id : id + " " + version;
  }

  private static String unquote(String v) {
    if (v.length() >= 2 && v.startsWith("'") && v.endsWith("'")) {
      return v.substring(1, v.length() - 1);
    }
    if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
      StringBuilder sb = new StringBuilder();
      String body = v.substring(1, v.length() - 1);
      for (int i = 0; i < body.length(); i++) {
        char c = body.charAt(i);
        if (c == '\\' && i + 1 < body.length()) {
          c = body.charAt(++i);
        }
        sb.append(c);
      }
      return sb.toString();
    }
    return v;
  }
}
