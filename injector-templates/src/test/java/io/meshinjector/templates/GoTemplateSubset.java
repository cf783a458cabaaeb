package io.meshinjector.templates;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Renders a region of a mesh's own Go template (Helm chart partials, istiod's injection template)
 * as Go's text/template would, for the few constructs such regions use: {@code if}, {@code else
 * if}, {@code else} and {@code end} on a line of their own or inside a line, with a condition that
 * is a value ({@code .Values.a.b}) or its {@code not}; a value written out, optionally {@code |
 * quote}; a comment. Anything else fails, so that a region that grew another construct upstream is
 * noticed instead of rendered wrongly.
 *
 * <p>The tests that compare our pods with what a mesh's template produces for a setting its own
 * goldens do not cover (Linkerd's {@code disableIPv6: false}, istiod's {@code
 * global.nativeNftables}) render the lines that setting reads with this, from the vendored template
 * and its chart's values, and check the rendering of the goldens' setting against the goldens
 * first.
 */
final class GoTemplateSubset {
  private GoTemplateSubset() {}

  private static final Pattern ACTION = Pattern.compile("\\{\\{-?\\s*(.*?)\\s*-?}}");
  private static final Pattern CONTROL_LINE = Pattern.compile("\\s*\\{\\{-?\\s*(.*?)\\s*-?}}\\s*");
  private static final Pattern VALUE = Pattern.compile("\\.Values((?:\\.[A-Za-z0-9_]+)+)");

  /**
   * The lines of {@code text} from the one containing {@code start} up to, not including, the first
   * one after it containing {@code end}; {@code start} must be on exactly one line.
   */
  static String region(String text, String start, String end) {
    List<String> lines = text.lines().toList();
    int from = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(start)) {
        if (from >= 0) {
          throw new IllegalArgumentException("'" + start + "' is on more than one line");
        }
        from = i;
      }
    }
    if (from < 0) {
      throw new IllegalArgumentException("no line contains '" + start + "'");
    }
    for (int i = from + 1; i < lines.size(); i++) {
      if (lines.get(i).contains(end)) {
        return String.join("\n", lines.subList(from, i)) + "\n";
      }
    }
    throw new IllegalArgumentException("no line after '" + start + "' contains '" + end + "'");
  }

  /** How often {@code needle} occurs in {@code text}. */
  static int count(String text, String needle) {
    int n = 0;
    for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length())) {
      n++;
    }
    return n;
  }

  /** One open {@code if}: whether its current branch renders, and whether a branch was taken. */
  private static final class Frame {
    final boolean outer;
    boolean active;
    boolean taken;

    Frame(boolean outer, boolean active) {
      this.outer = outer;
      this.active = outer && active;
      this.taken = active;
    }

    void elseIf(boolean cond) {
      active = outer && !taken && cond;
      taken |= cond;
    }
  }

  /**
   * @param values the chart's values ({@code .Values}), with the setting under test
   */
  static String render(String region, JsonNode values) {
    Deque<Frame> lineFrames = new ArrayDeque<>();
    StringBuilder out = new StringBuilder();
    for (String line : region.lines().toList()) {
      Matcher whole = CONTROL_LINE.matcher(line);
      if (whole.matches() && control(whole.group(1), lineFrames, values)) {
        continue;
      }
      if (!lineFrames.isEmpty() && !lineFrames.peek().active) {
        continue;
      }
      out.append(renderLine(line, values)).append('\n');
    }
    if (!lineFrames.isEmpty()) {
      throw new IllegalArgumentException("an if is not closed in the region");
    }
    return out.toString();
  }

  /** Applies a control action to the frames; false when the action is not one (a value). */
  private static boolean control(String action, Deque<Frame> frames, JsonNode values) {
    boolean active = frames.isEmpty() || frames.peek().active;
    if (action.startsWith("/*")) {
      return true; // a comment renders nothing
    }
    if (action.startsWith("if ")) {
      frames.push(new Frame(active, condition(action.substring(3), values)));
      return true;
    }
    if (action.startsWith("else if ")) {
      frame(frames, action).elseIf(condition(action.substring(8), values));
      return true;
    }
    if (action.equals("else")) {
      frame(frames, action).elseIf(true);
      return true;
    }
    if (action.equals("end")) {
      frame(frames, action);
      frames.pop();
      return true;
    }
    return false;
  }

  private static Frame frame(Deque<Frame> frames, String action) {
    if (frames.isEmpty()) {
      throw new IllegalArgumentException("'" + action + "' without an if");
    }
    return frames.peek();
  }

  private static String renderLine(String line, JsonNode values) {
    Deque<Frame> frames = new ArrayDeque<>();
    StringBuilder out = new StringBuilder();
    Matcher m = ACTION.matcher(line);
    int at = 0;
    while (m.find()) {
      if (frames.isEmpty() || frames.peek().active) {
        out.append(line, at, m.start());
      }
      at = m.end();
      String action = m.group(1);
      if (control(action, frames, values)) {
        continue;
      }
      if (frames.isEmpty() || frames.peek().active) {
        out.append(value(action, values));
      }
    }
    if (!frames.isEmpty()) {
      throw new IllegalArgumentException("an if is not closed on the line: " + line);
    }
    return out.append(line.substring(at)).toString();
  }

  private static boolean condition(String cond, JsonNode values) {
    String c = cond.trim();
    boolean negate = c.startsWith("not ");
    JsonNode v = lookup(negate ? c.substring(4).trim() : c, values);
    return truthy(v) != negate;
  }

  private static String value(String action, JsonNode values) {
    String a = action.trim();
    boolean quote = a.endsWith("| quote");
    if (quote) {
      a = a.substring(0, a.length() - "| quote".length()).trim();
    }
    JsonNode v = lookup(a, values);
    String text = v.isMissingNode() || v.isNull() ? "" : v.asText();
    return quote ? '"' + text.replace("\\", "\\\\").replace("\"", "\\\"") + '"' : text;
  }

  private static JsonNode lookup(String expr, JsonNode values) {
    Matcher m = VALUE.matcher(expr);
    if (!m.matches()) {
      throw new IllegalArgumentException("not a construct this subset renders: {{ " + expr + " }}");
    }
    JsonNode v = values.at(m.group(1).replace('.', '/'));
    return v == null ? MissingNode.getInstance() : v;
  }

  /** Go's truth: false, 0, "", nil and empty maps and lists are false. */
  private static boolean truthy(JsonNode v) {
    if (v.isMissingNode() || v.isNull()) {
      return false;
    }
    if (v.isBoolean()) {
      return v.booleanValue();
    }
    if (v.isNumber()) {
      return v.asDouble() != 0;
    }
    if (v.isTextual()) {
      return !v.asText().isEmpty();
    }
    return !v.isEmpty();
  }
}
