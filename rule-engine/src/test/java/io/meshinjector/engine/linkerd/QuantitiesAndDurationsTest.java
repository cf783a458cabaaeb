package io.meshinjector.engine.linkerd;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Quantities in apimachinery's canonical form and Go durations in Linkerd's two written forms. */
class QuantitiesAndDurationsTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "0.5, 500m",
    "1, 1",
    "1000m, 1",
    "1.5, 1500m",
    "256Mi, 256Mi",
    "64Mi, 64Mi",
    "1.5Gi, 1536Mi",
    "1024Ki, 1Mi",
    "1000Ki, 1000Ki",
    "512Ki, 512Ki",
    "0.5Ki, 512",
    "2000, 2k",
    "1200, 1200",
    "1e3, 1e3",
    "1E3, 1e3",
    "100M, 100M",
    "0.1m, 100u",
    "0, 0",
    "0Mi, 0",
    ".5, 500m",
    "5., 5",
    "1.0000000001, 1000000001n",
    // a lone E is apimachinery's exa suffix, not an exponent without digits
    "12E, 12E",
  })
  void canonical(String in, String out) {
    assertThat(Quantities.parse(in))
        .hasValueSatisfying(q -> assertThat(q.canonical()).isEqualTo(out));
  }

  @ParameterizedTest
  @CsvSource({
    "lots",
    "1 Mi",
    "Mi",
    "1.2.3",
    "1Kb",
    "--1",
    "1e",
    "''",
    // exponents beyond an int, and the one whose absolute value is negative in Java
    "1e99999999999",
    "1e-2147483648",
  })
  void notQuantities(String in) {
    assertThat(Quantities.parse(in)).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"0.5, 1", "1, 1", "1.1, 2", "0, 0", "2500m, 3"})
  void wholeCoresRoundUp(String in, long cores) {
    assertThat(Quantities.parse(in).orElseThrow().wholeUnitsRoundedUp()).isEqualTo(cores);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "100ms, 100ms, 0s",
    "1s, 1000ms, 1s",
    "1.5s, 1500ms, 1s",
    "2m, 120000ms, 120s",
    "1h30m, 5400000ms, 5400s",
    "300us, 0ms, 0s",
    "0, 0ms, 0s",
    "0.3s, 300ms, 0s",
  })
  void durations(String in, String millis, String seconds) {
    long n = GoDurations.parse(in).orElseThrow();
    assertThat(GoDurations.asMillis(n)).isEqualTo(millis);
    assertThat(GoDurations.asSeconds(n)).isEqualTo(seconds);
  }

  @ParameterizedTest
  @CsvSource({
    "10",
    "1x",
    "ms",
    "1.2.3s",
    "''",
    "1s-",
    "9999999999h",
    // Go's ParseDuration reads ASCII digits only: Arabic-Indic three, fullwidth one
    "\u0663s",
    "\uff11ms",
  })
  void notDurations(String in) {
    assertThat(GoDurations.parse(in)).isEmpty();
  }

  /**
   * Linkerd reads the CPU ratio with Go's ParseFloat into a float64 and its chart writes it with
   * {@code %v}: the fewest digits, in exponent form below 1e-4 (fmt.Sprint(1e-5) is "1e-05").
   */
  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "0.10, 0.1",
    "0.5, 0.5",
    ".25, 0.25",
    "0.0001, 0.0001",
    "1e-5, 1e-05",
    "15E-8, 1.5e-07"
  })
  void ratiosAsLinkerdWritesThem(String in, String out) {
    assertThat(new ValueFormat.Ratio().read(in, java.util.Map.of()))
        .isEqualTo(new ValueFormat.Read.Ok(out));
  }

  /** Out of range as a float64 (1e-400 is 0 there), or not Go's syntax. */
  @ParameterizedTest
  @CsvSource({"0", "1", "1.0", "1e-400", "1E-999999999", "-0.5", "\u0660.5", "half"})
  void notRatios(String in) {
    assertThat(new ValueFormat.Ratio().read(in, java.util.Map.of()))
        .isInstanceOf(ValueFormat.Read.Bad.class);
  }

  /** Go's ParseInt takes a sign and ASCII digits; Long.parseLong would take fullwidth ones too. */
  @ParameterizedTest
  @CsvSource({"+2102, 2102", "2102, 2102", "\uff12\uff11\uff10\uff12, bad"})
  void ids(String in, String out) {
    ValueFormat.Read read = new ValueFormat.Id(1).read(in, java.util.Map.of());
    if (out.equals("bad")) {
      assertThat(read).isInstanceOf(ValueFormat.Read.Bad.class);
    } else {
      assertThat(read).isEqualTo(new ValueFormat.Read.Ok(out));
    }
  }
}
