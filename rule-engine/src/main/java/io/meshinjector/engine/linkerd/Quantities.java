package io.meshinjector.engine.linkerd;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kubernetes resource quantities ({@code 500m}, {@code 256Mi}, {@code 1e3}) as apimachinery's
 * {@code resource.ParseQuantity} reads them and writes them back in canonical form, so a pod this
 * injector renders holds what the API server (and Linkerd's CLI) would store: {@code 0.5} becomes
 * {@code 500m}.
 */
public final class Quantities {
  private static final Pattern QUANTITY =
      Pattern.compile(
          "([+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?");
  private static final Map<String, Integer> DECIMAL_SI =
      Map.of("n", -9, "u", -6, "m", -3, "", 0, "k", 3, "M", 6, "G", 9, "T", 12, "P", 15, "E", 18);
  private static final String[] DECIMAL_SUFFIX = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
  private static final String[] BINARY_SUFFIX = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  private static final BigInteger K1024 = BigInteger.valueOf(1024);

  /** The suffix kind, which decides the canonical form's. */
  private enum Format {
    DECIMAL_SI,
    BINARY_SI,
    DECIMAL_EXPONENT
  }

  /** A parsed quantity: its exact value (rounded up to nano) and how it was written. */
  public record Quantity(BigDecimal value, String canonical) {
    /** Rounded up to whole units, as Linkerd's {@code ToWholeCPUCores}. */
    public long wholeUnitsRoundedUp() {
      return value.setScale(0, RoundingMode.CEILING).longValueExact();
    }
  }

  private Quantities() {}

  /** The quantity, or empty when {@code text} is not one. */
  public static Optional<Quantity> parse(String text) {
    if (text == null || text.length() > 64) {
      return Optional.empty();
    }
    Matcher m = QUANTITY.matcher(text);
    if (!m.matches()) {
      return Optional.empty();
    }
    BigDecimal number = new BigDecimal(m.group(1).startsWith(".") ? "0" + m.group(1) : m.group(1));
    if (m.group(1).endsWith(".")) {
      number = new BigDecimal(m.group(1).substring(0, m.group(1).length() - 1));
    }
    String suffix = m.group(2) == null ? "" : m.group(2);
    Format format;
    BigDecimal value;
    if (suffix.endsWith("i")) {
      format = Format.BINARY_SI;
      int power = java.util.Arrays.asList(BINARY_SUFFIX).indexOf(suffix);
      value = number.multiply(new BigDecimal(K1024.pow(power)));
    } else if (suffix.length() > 1) {
      // an exponent (e3, E-3); a lone E is the exa suffix, handled below
      format = Format.DECIMAL_EXPONENT;
      String digits = suffix.substring(1).replace("+", "");
      // the pattern allows any number of digits: more than fit an int would throw, and
      // Math.abs(Integer.MIN_VALUE) is negative; so at most three that are not leading zeros
      if (digits.replaceFirst("^-?0*", "").length() > 3) {
        return Optional.empty();
      }
      int exp = Integer.parseInt(digits);
      if (Math.abs(exp) > 100) {
        return Optional.empty();
      }
      value = number.scaleByPowerOfTen(exp);
    } else {
      format = Format.DECIMAL_SI;
      value = number.scaleByPowerOfTen(DECIMAL_SI.get(suffix));
    }
    // apimachinery keeps nano precision and rounds anything finer up
    if (value.scale() > 9) {
      value = value.setScale(9, RoundingMode.CEILING);
    }
    if (value.abs().compareTo(BigDecimal.TEN.pow(30)) > 0) {
      return Optional.empty();
    }
    return Optional.of(new Quantity(value, canonical(value, format)));
  }

  private static String canonical(BigDecimal value, Format format) {
    if (value.signum() == 0) {
      return "0";
    }
    if (format == Format.BINARY_SI) {
      boolean small = value.abs().compareTo(new BigDecimal(1024)) < 0;
      boolean whole = value.stripTrailingZeros().scale() <= 0;
      if (small || !whole) {
        format = Format.DECIMAL_SI;
      } else {
        BigInteger n = value.toBigIntegerExact();
        int exp = 0;
        while (exp < BINARY_SUFFIX.length - 1 && n.mod(K1024).signum() == 0) {
          n = n.divide(K1024);
          exp++;
        }
        return n + BINARY_SUFFIX[exp];
      }
    }
    // an integer mantissa with an exponent that is a multiple of three
    BigDecimal stripped = value.stripTrailingZeros();
    BigInteger mantissa = stripped.unscaledValue();
    int exponent = -stripped.scale();
    while (Math.floorMod(exponent, 3) != 0) {
      mantissa = mantissa.multiply(BigInteger.TEN);
      exponent--;
    }
    if (format == Format.DECIMAL_SI && exponent >= -9 && exponent <= 18) {
      return mantissa + DECIMAL_SUFFIX[(exponent + 9) / 3];
    }
    return exponent == 0 ? mantissa.toString() : mantissa + "e" + exponent;
  }
}
