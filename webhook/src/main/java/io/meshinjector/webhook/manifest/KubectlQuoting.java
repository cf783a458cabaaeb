package io.meshinjector.webhook.manifest;

import com.fasterxml.jackson.dataformat.yaml.util.StringQuotingChecker;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.NodeId;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Quotes every string that kubectl would not read back as a string. kubectl reads YAML 1.1 (go-yaml
 * v2, through sigs.k8s.io/yaml), where {@code 0x1F}, {@code 1e3}, {@code 1_000}, {@code .inf},
 * {@code on} and {@code ~} are numbers, booleans or null; Jackson's own check, made for YAML 1.2,
 * lets many of them through plain, and kubectl then rejects an annotation or env value that is not
 * a string.
 */
final class KubectlQuoting extends StringQuotingChecker {
  private static final long serialVersionUID = 1L;

  private static final StringQuotingChecker JACKSON = StringQuotingChecker.Default.instance();

  /** SnakeYAML's resolver is YAML 1.1's, timestamps and sexagesimal numbers included. */
  private static final Resolver YAML_1_1 = new Resolver();

  /**
   * go-yaml's own float test, run after it drops every underscore; it is not exactly YAML 1.1's.
   */
  private static final Pattern GO_YAML_FLOAT =
      Pattern.compile("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");

  @Override
  public boolean needToQuoteName(String name) {
    return JACKSON.needToQuoteName(name) || !readsAsString(name);
  }

  @Override
  public boolean needToQuoteValue(String value) {
    return JACKSON.needToQuoteValue(value) || !readsAsString(value);
  }

  /** Whether {@code plain}, written without quotes, is read back as this string. */
  static boolean readsAsString(String plain) {
    if (!Tag.STR.equals(YAML_1_1.resolve(NodeId.scalar, plain, true))) {
      return false;
    }
    String goPlain = plain.replace("_", "");
    return !GO_YAML_FLOAT.matcher(goPlain).matches() && !isGoInteger(goPlain);
  }

  /**
   * Go's {@code strconv.ParseInt(s, 0, 64)}, which go-yaml tries on every plain scalar: beside YAML
   * 1.1's forms it takes {@code 0o17}, {@code 0X1F} and {@code 0B101}.
   */
  private static boolean isGoInteger(String s) {
    String digits = s.startsWith("+") || s.startsWith("-") ? s.substring(1) : s;
    int radix = 10;
    if (digits.length() > 1 && digits.charAt(0) == '0') {
      switch (Character.toLowerCase(digits.charAt(1))) {
        case 'x' -> {
          radix = 16;
          digits = digits.substring(2);
        }
        case 'o' -> {
          radix = 8;
          digits = digits.substring(2);
        }
        case 'b' -> {
          radix = 2;
          digits = digits.substring(2);
        }
        default -> radix = 8;
      }
    }
    if (digits.isEmpty()) {
      return false;
    }
    for (int i = 0; i < digits.length(); i++) {
      char c = digits.charAt(i);
      if (c > 0x7f || Character.digit(c, radix) < 0) {
        return false;
      }
    }
    return true;
  }
}
