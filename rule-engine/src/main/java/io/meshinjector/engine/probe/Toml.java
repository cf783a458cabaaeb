package io.meshinjector.engine.probe;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small TOML 1.0 reader, enough for containerd's {@code config.toml} and CRI-O's {@code
 * crio.conf}: tables, arrays of tables, dotted and quoted keys, all four string forms, arrays and
 * inline tables. Numbers, booleans and dates are kept as their source text (the probe only reads
 * strings). A JDK-only parser keeps rule-engine free of another dependency for two config files.
 */
final class Toml {
  private final String src;
  private int pos;
  private int line = 1;

  private Toml(String src) {
    this.src = src;
  }

  /** Parses a document into nested maps; arrays become lists. */
  static Map<String, Object> parse(String text) {
    return new Toml(text).document();
  }

  /** Thrown with the line number, so the probe's reason points at the broken line. */
  static final class TomlException extends RuntimeException {
    TomlException(String message) {
      super(message);
    }
  }

  /** Follows a path of keys through nested tables; null when any step is missing. */
  static Object get(Map<String, Object> doc, String... path) {
    Object node = doc;
    for (String key : path) {
      if (!(node instanceof Map<?, ?> map)) {
        return null;
      }
      node = map.get(key);
    }
    return node;
  }

  private Map<String, Object> document() {
    Map<String, Object> rootTable = new LinkedHashMap<>();
    Map<String, Object> current = rootTable;
    while (true) {
      skipWhitespaceAndComments();
      if (eof()) {
        return rootTable;
      }
      if (peek() == '[') {
        boolean arrayTable = src.startsWith("[[", pos);
        pos += arrayTable ? 2 : 1;
        skipSpaces();
        List<String> keys = key();
        skipSpaces();
        expect(arrayTable ? "]]" : "]");
        endOfLine();
        current = arrayTable ? appendTable(rootTable, keys) : openTable(rootTable, keys);
      } else {
        List<String> keys = key();
        skipSpaces();
        expect("=");
        skipSpaces();
        Object value = value();
        put(current, keys, value);
        endOfLine();
      }
    }
  }

  private Map<String, Object> openTable(Map<String, Object> rootTable, List<String> keys) {
    Map<String, Object> t = rootTable;
    for (String k : keys) {
      t = child(t, k);
    }
    return t;
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> appendTable(Map<String, Object> rootTable, List<String> keys) {
    Map<String, Object> parent = rootTable;
    for (String k : keys.subList(0, keys.size() - 1)) {
      parent = child(parent, k);
    }
    String last = keys.get(keys.size() - 1);
    Object existing = parent.get(last);
    List<Object> list;
    if (existing == null) {
      list = new ArrayList<>();
      parent.put(last, list);
    } else if (existing instanceof List<?>) {
      list = (List<Object>) existing;
    } else {
      throw error("'" + last + "' is already a value, not an array of tables");
    }
    Map<String, Object> table = new LinkedHashMap<>();
    list.add(table);
    return table;
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> child(Map<String, Object> table, String key) {
    Object existing = table.get(key);
    if (existing == null) {
      Map<String, Object> created = new LinkedHashMap<>();
      table.put(key, created);
      return created;
    }
    if (existing instanceof Map<?, ?>) {
      return (Map<String, Object>) existing;
    }
    if (existing instanceof List<?> list
        && !list.isEmpty()
        && list.get(list.size() - 1) instanceof Map<?, ?>) {
      // [a.b] after [[a]] extends the last element of the array of tables
      return (Map<String, Object>) list.get(list.size() - 1);
    }
    throw error("'" + key + "' is already a value, not a table");
  }

  private void put(Map<String, Object> table, List<String> keys, Object value) {
    Map<String, Object> t = table;
    for (String k : keys.subList(0, keys.size() - 1)) {
      t = child(t, k);
    }
    String last = keys.get(keys.size() - 1);
    if (t.containsKey(last)) {
      throw error("duplicate key '" + last + "'");
    }
    t.put(last, value);
  }

  private List<String> key() {
    List<String> parts = new ArrayList<>();
    while (true) {
      skipSpaces();
      char c = peekOrFail("a key");
      if (c == '"') {
        parts.add(basicString());
      } else if (c == '\'') {
        parts.add(literalString());
      } else {
        int start = pos;
        while (!eof() && isBareKeyChar(peek())) {
          pos++;
        }
        if (start == pos) {
          throw error("expected a key but found '" + c + "'");
        }
        parts.add(src.substring(start, pos));
      }
      skipSpaces();
      if (!eof() && peek() == '.') {
        pos++;
        continue;
      }
      return parts;
    }
  }

  private Object value() {
    char c = peekOrFail("a value");
    if (c == '"') {
      return src.startsWith("\"\"\"", pos) ? multilineBasicString() : basicString();
    }
    if (c == '\'') {
      return src.startsWith("'''", pos) ? multilineLiteralString() : literalString();
    }
    if (c == '[') {
      return array();
    }
    if (c == '{') {
      return inlineTable();
    }
    int start = pos;
    scalarToken();
    // a date-time may use a space instead of 'T' (1979-05-27 07:32:00Z)
    if (src.substring(start, pos).matches("\\d{4}-\\d{2}-\\d{2}")
        && pos + 1 < src.length()
        && peek() == ' '
        && Character.isDigit(src.charAt(pos + 1))) {
      pos++;
      scalarToken();
    }
    String scalar = src.substring(start, pos);
    if (scalar.isEmpty()) {
      throw error("expected a value");
    }
    return scalar;
  }

  private void scalarToken() {
    while (!eof()) {
      char d = peek();
      if (d == ',' || d == ']' || d == '}' || d == '#' || Character.isWhitespace(d)) {
        return;
      }
      pos++;
    }
  }

  private List<Object> array() {
    expect("[");
    List<Object> out = new ArrayList<>();
    while (true) {
      skipWhitespaceAndComments();
      if (peekOrFail("']'") == ']') {
        pos++;
        return out;
      }
      out.add(value());
      skipWhitespaceAndComments();
      char c = peekOrFail("',' or ']'");
      if (c == ',') {
        pos++;
      } else if (c != ']') {
        throw error("expected ',' or ']' in array but found '" + c + "'");
      }
    }
  }

  private Map<String, Object> inlineTable() {
    expect("{");
    Map<String, Object> out = new LinkedHashMap<>();
    skipSpaces();
    if (peekOrFail("'}'") == '}') {
      pos++;
      return out;
    }
    while (true) {
      List<String> keys = key();
      skipSpaces();
      expect("=");
      skipSpaces();
      put(out, keys, value());
      skipSpaces();
      char c = peekOrFail("',' or '}'");
      pos++;
      if (c == '}') {
        return out;
      }
      if (c != ',') {
        throw error("expected ',' or '}' in inline table but found '" + c + "'");
      }
    }
  }

  private String basicString() {
    expect("\"");
    StringBuilder sb = new StringBuilder();
    while (true) {
      char c = nextOrFail("closing '\"'");
      if (c == '"') {
        return sb.toString();
      }
      if (c == '\n') {
        throw error("newline in a single-line string");
      }
      if (c == '\\') {
        escape(sb);
      } else {
        sb.append(c);
      }
    }
  }

  private String multilineBasicString() {
    expect("\"\"\"");
    skipFirstNewline();
    StringBuilder sb = new StringBuilder();
    while (true) {
      if (src.startsWith("\"\"\"", pos)) {
        // up to two quotes may directly precede the closing delimiter
        int extra = 0;
        while (extra < 2 && src.startsWith("\"", pos + 3 + extra)) {
          extra++;
        }
        sb.append("\"".repeat(extra));
        pos += 3 + extra;
        return sb.toString();
      }
      char c = nextOrFail("closing '\"\"\"'");
      if (c == '\\') {
        int save = pos;
        skipSpaces();
        if (!eof() && (peek() == '\n' || peek() == '\r')) {
          // line-ending backslash: trim the newline and the following whitespace
          skipWhitespaceOnly();
        } else {
          pos = save;
          escape(sb);
        }
      } else {
        if (c == '\n') {
          line++;
        }
        sb.append(c);
      }
    }
  }

  private String literalString() {
    expect("'");
    int start = pos;
    while (true) {
      char c = nextOrFail("closing \"'\"");
      if (c == '\'') {
        return src.substring(start, pos - 1);
      }
      if (c == '\n') {
        throw error("newline in a single-line string");
      }
    }
  }

  private String multilineLiteralString() {
    expect("'''");
    skipFirstNewline();
    int start = pos;
    int end = src.indexOf("'''", pos);
    if (end < 0) {
      throw error("unterminated ''' string");
    }
    for (int extra = 0; extra < 2 && src.startsWith("'", end + 3); extra++) {
      end++;
    }
    String body = src.substring(start, end);
    line += (int) body.chars().filter(ch -> ch == '\n').count();
    pos = end + 3;
    return body;
  }

  private void escape(StringBuilder sb) {
    char e = nextOrFail("an escape");
    switch (e) {
      case 'b' -> sb.append('\b');
      case 't' -> sb.append('\t');
      case 'n' -> sb.append('\n');
      case 'f' -> sb.append('\f');
      case 'r' -> sb.append('\r');
      case 'e' -> sb.append('\u001b');
      case '"' -> sb.append('"');
      case '\\' -> sb.append('\\');
      case 'u' -> sb.appendCodePoint(hex(4));
      case 'U' -> sb.appendCodePoint(hex(8));
      default -> throw error("invalid escape '\\" + e + "'");
    }
  }

  private int hex(int digits) {
    if (pos + digits > src.length()) {
      throw error("truncated unicode escape");
    }
    try {
      int cp = Integer.parseInt(src.substring(pos, pos + digits), 16);
      pos += digits;
      return cp;
    } catch (NumberFormatException e) {
      throw error("invalid unicode escape");
    }
  }

  private void skipFirstNewline() {
    if (src.startsWith("\r\n", pos)) {
      pos += 2;
      line++;
    } else if (src.startsWith("\n", pos)) {
      pos++;
      line++;
    }
  }

  private void endOfLine() {
    skipSpaces();
    if (!eof() && peek() == '#') {
      skipComment();
    }
    if (eof()) {
      return;
    }
    if (src.startsWith("\r\n", pos)) {
      pos += 2;
    } else if (peek() == '\n') {
      pos++;
    } else {
      throw error("unexpected '" + peek() + "' after a value");
    }
    line++;
  }

  private void skipWhitespaceAndComments() {
    while (!eof()) {
      char c = peek();
      if (c == '#') {
        skipComment();
      } else if (c == '\n') {
        line++;
        pos++;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        pos++;
      } else {
        return;
      }
    }
  }

  private void skipWhitespaceOnly() {
    while (!eof()) {
      char c = peek();
      if (c == '\n') {
        line++;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        return;
      }
      pos++;
    }
  }

  private void skipComment() {
    while (!eof() && peek() != '\n') {
      pos++;
    }
  }

  private void skipSpaces() {
    while (!eof() && (peek() == ' ' || peek() == '\t')) {
      pos++;
    }
  }

  private static boolean isBareKeyChar(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '_'
        || c == '-';
  }

  private void expect(String s) {
    if (!src.startsWith(s, pos)) {
      throw error("expected '" + s + "'" + (eof() ? " but the file ended" : ""));
    }
    pos += s.length();
  }

  private boolean eof() {
    return pos >= src.length();
  }

  private char peek() {
    return src.charAt(pos);
  }

  private char peekOrFail(String what) {
    if (eof()) {
      throw error("expected " + what + " but the file ended");
    }
    return peek();
  }

  private char nextOrFail(String what) {
    char c = peekOrFail(what);
    pos++;
    return c;
  }

  private TomlException error(String message) {
    return new TomlException("line " + line + ": " + message);
  }
}
