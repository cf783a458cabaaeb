package io.meshinjector.engine.linkerd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How Linkerd's injector reads one annotation's text, and what it accepts. Single values are read
 * as Go's parsers read them, with no surrounding spaces; lists are split on commas and each item
 * trimmed, as proxy-init and Linkerd's port parsers do. A value it would refuse (or that would give
 * a pod that cannot start) is {@link Read.Bad}; the caller ignores it and warns.
 */
public sealed interface ValueFormat {

  /** What reading a value gave. */
  sealed interface Read {
    /** Accepted; {@code value} is the text the pod renders (canonical where Linkerd's is). */
    record Ok(String value) implements Read {}

    /**
     * Not accepted.
     *
     * @param accepts what the annotation accepts, for the warning
     */
    record Bad(String accepts) implements Read {}
  }

  /**
   * @param namedPorts the pod's container ports by name, for opaque ports
   */
  Read read(String text, Map<String, Integer> namedPorts);

  Pattern DIGITS = Pattern.compile("[0-9]{1,10}");
  Pattern CIDR =
      Pattern.compile(
          "([0-9]{1,3}(\\.[0-9]{1,3}){3}/[0-9]{1,2}|[0-9a-fA-F]*:[0-9a-fA-F:.]*/[0-9]{1,3})");

  /** One TCP port, 1 to 65535. */
  record Port() implements ValueFormat {
    @Override
    public Read read(String text, Map<String, Integer> namedPorts) {
      return port(text).<Read>map(p -> new Read.Ok(Integer.toString(p))).orElse(BAD);
    }

    private static final Read BAD = new Read.Bad("a port number from 1 to 65535");
  }

  /**
   * Ports and port ranges, comma-separated ({@code 7777,8888}, {@code 4000-4100}), as proxy-init
   * reads its ports to ignore; passed on as written.
   */
  record Ports() implements ValueFormat {
    @Override
    public Read read(String text, Map<String, Integer> namedPorts) {
      if (text.isBlank() || text.length() > 4096) {
        return BAD;
      }
      for (String item : text.split(",", -1)) {
        if (range(item.trim()).isEmpty()) {
          return BAD;
        }
      }
      return new Read.Ok(text);
    }

    private static final Read BAD =
        new Read.Bad("ports or port ranges (1-65535), comma-separated, such as 7777,8000-8100");
  }

  /**
   * Linkerd's opaque ports: ports, ranges and the names of the pod's container ports,
   * comma-separated; a name the pod does not have, or a bad item, is left out (as Linkerd's {@code
   * ParseContainerOpaquePorts} does) and the rest apply.
   */
  record OpaquePorts() implements ValueFormat {
    @Override
    public Read read(String text, Map<String, Integer> namedPorts) {
      if (text.length() > 4096) {
        return new Read.Bad("at most 4096 characters");
      }
      List<String> out = new ArrayList<>();
      List<String> bad = new ArrayList<>();
      for (String raw : text.split(",", -1)) {
        String item = raw.trim();
        if (item.isEmpty()) {
          continue;
        }
        Integer named = namedPorts.get(item);
        if (named != null) {
          out.add(named.toString());
          continue;
        }
        Optional<int[]> r = range(item);
        if (r.isEmpty()) {
          bad.add(item);
        } else {
          int[] lh = r.get();
          out.add(lh[0] == lh[1] ? Integer.toString(lh[0]) : lh[0] + "-" + lh[1]);
        }
      }
      if (!bad.isEmpty()) {
        return new Read.Bad(
            "ports, port ranges or the names of the pod's container ports, comma-separated ("
                + String.join(", ", bad)
                + " is none of them)");
      }
      return new Read.Ok(String.join(",", out));
    }
  }

  /** A Kubernetes quantity, not negative, written back in canonical form. */
  record Quantity() implements ValueFormat {
    @Override
    public Read read(String text, Map<String, Integer> namedPorts) {
      return Quantities.parse(text)
          .filter(q -> q.value().signum() >= 0)
          .<Read>map(q -> new Read.Ok(q.canonical()))
          .orElse(
              new Read.Bad("a Kubernetes quantity that is not negative, such as 500m, 1, 64Mi"));
    }
  }

  /**
   * A number strictly between 0 and 1 (Linkerd's CPU ratio limit), read as Linkerd reads it: Go's
   * {@code ParseFloat} into a float64, so {@code 1e-400} is 0 there and refused, and written back
   * as its chart writes that float64 ({@code %v}: {@code 0.1}, {@code 1e-05}). Reading it as an
   * exact decimal instead accepted {@code 1e-999999999} and wrote it out with a billion zeros.
   */
  record Ratio() implements ValueFormat {
    /**
     * Go's decimal float syntax, ASCII digits only. Inf and NaN are out of range anyway; Go's hex
     * floats (0x1p-3) are refused here, a spelling nobody gives a CPU ratio.
     */
    private static final Pattern DECIMAL =
        Pattern.compile("[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?");

    @Override
    public Read read(String text, Map<String, Integer> namedPorts) {
      String t = text; // Go's parsers take no surrounding spaces
      if (t.length() <= 1024 && DECIMAL.matcher(t).matches()) {
        double d = Double.parseDouble(t);
        if (d > 0.0 && d < 1.0) {
          return new Read.Ok(goFloat(d));
        }
      }
      return new Read.Bad("a number greater than 0.0 and less than 1.0");
    }

    /**
     * Go's {@code %v} of a float64 from 0 to 1: the fewest digits that read back to it (the closest
     * such), in exponent form below 1e-4. Found by rounding, not Double.toString, whose digits are
     * not always the fewest before Java 19.
     */
    static String goFloat(double d) {
      BigDecimal exact = new BigDecimal(d);
      BigDecimal shortest = exact;
      for (int p = 1; p <= 17; p++) {
        BigDecimal r = exact.round(new java.math.MathContext(p, java.math.RoundingMode.HALF_EVEN));
        if (r.doubleValue() == d) {
          shortest = r;
          break;
        }
      }
      shortest = shortest.stripTrailingZeros();
      int exponent = shortest.precision() - shortest.scale() - 1;
      if (exponent >= -4) {
        return shortest.toPlainString();
      }
      String digits = shortest.unscaledValue().toString();
      String mantissa =
          digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
      int e = -exponent;
      return mantissa + "e-" + (e < 10 ? "0" + e : Integer.toString(e));
    }
  }

  /** Go's {@code strconv.ParseBool} spellings, written back as true or false. */
  record GoBool() implements ValueFormat {
    @Override
    public Read read(String text, Map<String, Integer> namedPorts) {
      return switch (text) {
        case "1", "t", "T", "true", "TRUE", "True" -> new Read.Ok("true");
        case "0", "f", "F", "false", "FALSE", "False" -> new Read.Ok("false");
        default -> new Read.Bad("true or false");
      };
    }
  }

  /** One of a few words, exactly as written (Linkerd compares them case-sensitively). */
  record OneOf(List<String> words) implements ValueFormat {
    public OneOf {
      words = List.copyOf(words);
    }

    @Override
    public Read read(String text, Map<String, Integer> namedPorts) {
      return words.contains(text) ? new Read.Ok(text) : new Read.Bad("one of " + words);
    }
  }

  /** A Go duration ({@code 100ms}, {@code 1.5s}, {@code 2m}), written back as Linkerd writes it. */
  record Duration(boolean millis) implements ValueFormat {
    @Override
    public Read read(String text, Map<String, Integer> namedPorts) {
      return GoDurations.parse(text)
          .filter(n -> n >= 0)
          .<Read>map(n -> new Read.Ok(millis ? GoDurations.asMillis(n) : GoDurations.asSeconds(n)))
          .orElse(new Read.Bad("a duration such as 100ms, 1.5s or 2m"));
    }
  }

  /** Whole seconds, 0 or more (Go's {@code ParseUint}). */
  record Seconds() implements ValueFormat {
    @Override
    public Read read(String text, Map<String, Integer> namedPorts) {
      String t = text;
      if (DIGITS.matcher(t).matches() && Long.parseLong(t) <= Integer.MAX_VALUE) {
        return new Read.Ok(Long.toString(Long.parseLong(t)));
      }
      return new Read.Bad("a whole number of seconds, 0 or more");
    }
  }

  /**
   * A user or group id. {@code min} 1 for the proxy's uid: the proxy runs as non-root, and a uid of
   * 0 would keep the pod from starting; -1 for a gid, which means none.
   */
  record Id(long min) implements ValueFormat {
    private static final Pattern ID = Pattern.compile("[+-]?[0-9]{1,11}");

    @Override
    public Read read(String text, Map<String, Integer> namedPorts) {
      String t = text;
      // Go's ParseInt reads ASCII digits only; Long.parseLong also reads other scripts' digits
      if (!ID.matcher(t).matches()) {
        return new Read.Bad("a whole number from " + min + " to " + Integer.MAX_VALUE);
      }
      try {
        long v = Long.parseLong(t);
        if (v >= min && v <= Integer.MAX_VALUE && t.length() <= 11) {
          return new Read.Ok(Long.toString(v));
        }
      } catch (NumberFormatException e) {
        // below
      }
      return new Read.Bad("a whole number from " + min + " to " + Integer.MAX_VALUE);
    }
  }

  /** Text of a given shape (an image name, a tag, a log filter), passed on as written. */
  record Text(Pattern shape, String accepts) implements ValueFormat {
    @Override
    public Read read(String text, Map<String, Integer> namedPorts) {
      return text.length() <= 1024 && shape.matcher(text).matches()
          ? new Read.Ok(text)
          : new Read.Bad(accepts);
    }
  }

  /** CIDRs, comma-separated, as proxy-init reads its subnets to ignore. */
  record Cidrs() implements ValueFormat {
    @Override
    public Read read(String text, Map<String, Integer> namedPorts) {
      if (text.isBlank() || text.length() > 4096) {
        return BAD;
      }
      for (String item : text.split(",", -1)) {
        if (!CIDR.matcher(item.trim()).matches()) {
          return BAD;
        }
      }
      return new Read.Ok(text);
    }

    private static final Read BAD =
        new Read.Bad("CIDRs, comma-separated, such as 10.0.0.0/8,192.168.0.0/16");
  }

  /**
   * A JSON list of Kubernetes EnvVar objects ({@code [{"name":"A","value":"b"}]}), each with a name
   * and a string value or a valueFrom object.
   */
  record EnvList() implements ValueFormat {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public Read read(String text, Map<String, Integer> namedPorts) {
      Read bad =
          new Read.Bad(
              "a JSON list of environment variables, such as [{\"name\":\"A\",\"value\":\"b\"}]");
      if (text.length() > 65536) {
        return bad;
      }
      JsonNode list;
      try {
        list = JSON.readTree(text);
      } catch (Exception e) {
        return bad;
      }
      if (list == null || !list.isArray()) {
        return bad;
      }
      for (JsonNode e : list) {
        if (!e.isObject()
            || !e.path("name").isTextual()
            || e.path("name").asText().isEmpty()
            || (e.has("value") && !e.get("value").isTextual())
            || (e.has("valueFrom") && !e.get("valueFrom").isObject())) {
          return bad;
        }
      }
      return new Read.Ok(list.toString());
    }
  }

  /** A port from 1 to 65535, or empty. */
  static Optional<Integer> port(String s) {
    if (!DIGITS.matcher(s).matches()) {
      return Optional.empty();
    }
    long v = Long.parseLong(s);
    return v >= 1 && v <= 65535 ? Optional.of((int) v) : Optional.empty();
  }

  /** A port or a range {@code lo-hi} with lo at most hi, or empty. */
  static Optional<int[]> range(String s) {
    int dash = s.indexOf('-');
    if (dash < 0) {
      return port(s).map(p -> new int[] {p, p});
    }
    Optional<Integer> lo = port(s.substring(0, dash).trim());
    Optional<Integer> hi = port(s.substring(dash + 1).trim());
    if (lo.isEmpty() || hi.isEmpty() || lo.get() > hi.get()) {
      return Optional.empty();
    }
    return Optional.of(new int[] {lo.get(), hi.get()});
  }
}
