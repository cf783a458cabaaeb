package io.meshinjector.engine.probe;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.dataformat.toml.TomlFactory;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import java.util.Map;

/**
 * containerd's and CRI-O's TOML configs as plain maps, read with Jackson's TOML parser. Tables are
 * maps, arrays are lists, strings stay strings; numbers, booleans and dates keep Jackson's types.
 */
public final class RuntimeConfig {
  /**
   * Host configs are a few kB; the caps only keep a hostile or broken file from costing more than a
   * probe run's worth of memory and time.
   */
  private static final TomlMapper TOML =
      new TomlMapper(
          TomlFactory.builder()
              .streamReadConstraints(
                  StreamReadConstraints.builder()
                      .maxNestingDepth(64)
                      .maxStringLength(1 << 20)
                      .maxNumberLength(100)
                      .build())
              .build());

  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

  private RuntimeConfig() {}

  /**
   * @param file the host path, named in the message
   * @throws MalformedHostFile {@code <file> is not valid TOML: line N: <what>}
   */
  public static Map<String, Object> parse(String file, String text) throws MalformedHostFile {
    try {
      Map<String, Object> doc = TOML.readValue(text, MAP);
      return doc == null ? Map.of() : doc;
    } catch (JacksonException e) {
      throw new MalformedHostFile(
          file + " is not valid TOML: " + where(e, text) + e.getOriginalMessage());
    } catch (RuntimeException e) {
      // the parser's own failures on input it does not expect are still bad input, not a crash
      throw new MalformedHostFile(file + " is not valid TOML: " + e);
    }
  }

  private static String where(JacksonException e, String text) {
    JsonLocation at = e.getLocation();
    if (at == null || at.getLineNr() <= 0) {
      return "";
    }
    int line = at.getLineNr();
    if (String.valueOf(e.getOriginalMessage()).startsWith("Duplicate key")) {
      // Jackson notices the duplicate at the token after the statement: name the statement's line
      line = lastContentLine(text, line, at.getColumnNr());
    }
    return "line " + line + ": ";
  }

  /**
   * The last line at or before {@code line}:{@code column} holding more than blanks or a comment.
   */
  static int lastContentLine(String text, int line, int column) {
    String[] lines = text.split("\n", -1);
    for (int n = Math.min(line, lines.length); n >= 1; n--) {
      String content = lines[n - 1];
      if (n == line) {
        content = content.substring(0, Math.max(0, Math.min(content.length(), column - 1)));
      }
      int hash = content.indexOf('#');
      if (!(hash >= 0 ? content.substring(0, hash) : content).isBlank()) {
        return n;
      }
    }
    return line;
  }

  /** The value at a path of table keys, or null when any step is missing or not a table. */
  public static Object get(Map<String, Object> doc, String... path) {
    Object cur = doc;
    for (String key : path) {
      if (!(cur instanceof Map<?, ?> m)) {
        return null;
      }
      cur = m.get(key);
    }
    return cur;
  }
}
