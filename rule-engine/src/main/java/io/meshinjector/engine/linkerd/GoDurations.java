package io.meshinjector.engine.linkerd;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.Optional;

/**
 * Go's {@code time.ParseDuration}, which Linkerd's injector reads its timeout annotations with
 * ({@code 100ms}, {@code 1.5s}, {@code 1h30m}), and the two ways it writes them back.
 */
public final class GoDurations {
  private static final Map<String, Long> UNITS =
      Map.of(
          "ns", 1L,
          "us", 1_000L,
          "µs", 1_000L,
          "μs", 1_000L,
          "ms", 1_000_000L,
          "s", 1_000_000_000L,
          "m", 60_000_000_000L,
          "h", 3_600_000_000_000L);
  private static final BigDecimal MAX = BigDecimal.valueOf(Long.MAX_VALUE);

  private GoDurations() {}

  /** The duration in nanoseconds, or empty when Go would refuse the text. */
  public static Optional<Long> parse(String s) {
    if (s == null || s.isEmpty() || s.length() > 128) {
      return Optional.empty();
    }
    int i = 0;
    boolean negative = false;
    if (s.charAt(0) == '-' || s.charAt(0) == '+') {
      negative = s.charAt(0) == '-';
      i++;
    }
    if (s.substring(i).equals("0")) {
      return Optional.of(0L);
    }
    if (i == s.length()) {
      return Optional.empty();
    }
    BigDecimal total = BigDecimal.ZERO;
    while (i < s.length()) {
      int start = i;
      while (i < s.length() && (digit(s.charAt(i)) || s.charAt(i) == '.')) {
        i++;
      }
      String number = s.substring(start, i);
      if (number.isEmpty()
          || number.equals(".")
          || number.indexOf('.') != number.lastIndexOf('.')) {
        return Optional.empty();
      }
      int unitStart = i;
      while (i < s.length() && !digit(s.charAt(i)) && s.charAt(i) != '.') {
        i++;
      }
      Long unit = UNITS.get(s.substring(unitStart, i));
      if (unit == null) {
        return Optional.empty();
      }
      BigDecimal n = new BigDecimal(number.startsWith(".") ? "0" + number : number);
      total = total.add(n.multiply(BigDecimal.valueOf(unit)));
      if (total.compareTo(MAX) > 0) {
        return Optional.empty();
      }
    }
    long nanos = total.setScale(0, RoundingMode.DOWN).longValueExact();
    return Optional.of(negative ? -nanos : nanos);
  }

  /**
   * Go reads ASCII digits only; Character.isDigit would also take other scripts' (U+0663, U+FF11),
   * and BigDecimal reads those too, so a value Linkerd refuses would apply here.
   */
  private static boolean digit(char c) {
    return c >= '0' && c <= '9';
  }

  /**
   * {@code fmt.Sprintf("%dms", int(d.Seconds()*1000))}: through a float, as Linkerd writes its
   * connect timeouts and shutdown grace period.
   */
  public static String asMillis(long nanos) {
    return (long) (seconds(nanos) * 1000) + "ms";
  }

  /** {@code fmt.Sprintf("%ds", int(d.Seconds()))}: Linkerd's discovery cache timeouts. */
  public static String asSeconds(long nanos) {
    return (long) seconds(nanos) + "s";
  }

  /** Go's {@code Duration.Seconds()}: whole seconds plus the rest as a fraction, in a double. */
  private static double seconds(long nanos) {
    long sec = nanos / 1_000_000_000L;
    long nsec = nanos % 1_000_000_000L;
    return (double) sec + (double) nsec / 1e9;
  }
}
