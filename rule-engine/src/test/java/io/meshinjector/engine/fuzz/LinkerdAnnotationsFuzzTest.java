package io.meshinjector.engine.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.meshinjector.engine.decision.ConfigOverrides;
import io.meshinjector.engine.linkerd.LinkerdAnnotation;
import io.meshinjector.engine.linkerd.LinkerdConfig;
import io.meshinjector.engine.linkerd.Quantities;
import io.meshinjector.engine.linkerd.ValueFormat;
import io.meshinjector.engine.linkerd.ValueFormat.Read;
import io.meshinjector.fuzz.Fuzz;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Linkerd's configuration annotations over hostile text. Their values come from whoever may create
 * a pod (or annotate a namespace), and the engine reads them at admission: every format must answer
 * Ok or Bad and never throw, an Ok must be what the pod can carry (a canonical quantity that reads
 * back to itself, a duration written as Linkerd writes it), and resolving a pod or namespace that
 * carries the text under every annotation warns exactly of the bad ones and applies exactly the
 * good ones.
 */
class LinkerdAnnotationsFuzzTest {
  /** The pod's container ports by name, for the opaque ports' names. */
  static final Map<String, Integer> NAMED = Map.of("http", 8080, "admin-http", 9990);

  static final Pattern MILLIS = Pattern.compile("(0|[1-9][0-9]*)ms");
  static final Pattern SECONDS = Pattern.compile("(0|[1-9][0-9]*)s");

  /**
   * Go's number parsers (ParseInt, ParseUint, ParseFloat, ParseDuration, apimachinery's
   * ParseQuantity) read ASCII digits only; the one letter beyond ASCII any of them reads is the
   * micro sign of a duration's µs.
   */
  static final Pattern GO_NUMERIC = Pattern.compile("[\\x00-\\x7f\u00b5\u03bc]*");

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  /** Real values of every format, from Linkerd's docs and tests. */
  static final List<String> SEEDS =
      List.of(
          "4143",
          "7777,8888",
          "4000-4100",
          "25,587,3306,4000-4100",
          "http,4000-4100,admin-http",
          "0.5",
          "500m",
          "256Mi",
          "1.5Gi",
          "1e3",
          "12E-3",
          "0.10",
          "1h30m",
          "1.5s",
          "100ms",
          "-1s",
          "300",
          "2102",
          "-1",
          "true",
          "F",
          "enabled",
          "IfNotPresent",
          "all-unauthenticated",
          "apache",
          "warn,linkerd=info,hickory=error",
          "linkerd[name=\"inbound\"]=trace,info",
          "[{\"name\":\"LINKERD2_PROXY_X\",\"value\":\"1\"}]",
          "[{\"name\":\"B\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":\"metadata.name\"}}}]",
          "10.0.0.0/8,100.64.0.0/10,fd00::/8",
          "cr.l5d.io/linkerd/proxy",
          "edge-24.2.4");

  /** The grammars' tokens, and digits Go would not read. */
  static final List<String> DICTIONARY =
      List.of(
          ",",
          "-",
          ".",
          "/",
          ":",
          "::",
          "+",
          " ",
          "0",
          "65535",
          "65536",
          "4294967296",
          "Ki",
          "Mi",
          "Gi",
          "Ei",
          "n",
          "u",
          "m",
          "k",
          "M",
          "E",
          "e",
          "e-",
          "e+",
          "e-999999999",
          "e99999999999",
          "h",
          "s",
          "ms",
          "us",
          "\u00b5s",
          "ns",
          "[",
          "]",
          "{",
          "}",
          "\"name\"",
          "\"value\"",
          "\"valueFrom\"",
          "null",
          "http",
          "true",
          "=",
          "9223372036854775807",
          "\u0663",
          "\uff11");

  /** Every annotation's format over the text: never a throw, and an Ok that is usable. */
  static void readEveryFormat(String t) {
    for (LinkerdAnnotation a : LinkerdAnnotation.values()) {
      Read read = a.format().read(t, NAMED);
      assertThat(read).as("%s read %s", a, t).isInstanceOfAny(Read.Ok.class, Read.Bad.class);
      if (!(read instanceof Read.Ok ok)) {
        continue;
      }
      assertThat(ok.value()).as("%s value of %s", a, t).isNotNull();
      ValueFormat f = a.format();
      boolean numeric =
          f instanceof ValueFormat.Port
              || f instanceof ValueFormat.Ports
              || f instanceof ValueFormat.Quantity
              || f instanceof ValueFormat.Ratio
              || f instanceof ValueFormat.Duration
              || f instanceof ValueFormat.Seconds
              || f instanceof ValueFormat.Id;
      if (numeric) {
        assertThat(GO_NUMERIC.matcher(t).matches())
            .as("%s accepted %s, which Linkerd's Go parser refuses", a, t)
            .isTrue();
      }
      if (f instanceof ValueFormat.Quantity q) {
        // the canonical form is what the API server stores: canonical itself (reading it again
        // does not move it), and the same amount as the text it came from
        Quantities.Quantity first = Quantities.parse(t.trim()).orElseThrow();
        Quantities.Quantity again = Quantities.parse(ok.value()).orElseThrow();
        assertThat(again.canonical()).as("%s canonical of %s", a, t).isEqualTo(ok.value());
        assertThat(again.value()).as("%s amount of %s", a, t).isEqualByComparingTo(first.value());
        assertThat(q.read(ok.value(), NAMED)).as("%s re-read of %s", a, t).isEqualTo(ok);
      }
      if (f instanceof ValueFormat.Duration d) {
        assertThat(ok.value()).as("%s of %s", a, t).matches(d.millis() ? MILLIS : SECONDS);
      }
      if (f instanceof ValueFormat.Ratio) {
        double r = Double.parseDouble(ok.value());
        assertThat(r).as("%s of %s", a, t).isGreaterThan(0.0).isLessThan(1.0);
      }
    }
  }

  static Pod pod(Map<String, String> annotations) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("fuzzed")
        .withNamespace("ns")
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .withContainers(
            new ContainerBuilder()
                .withName("app")
                .addNewPort()
                .withName("http")
                .withContainerPort(8080)
                .endPort()
                .addNewPort()
                .withName("admin-http")
                .withContainerPort(9990)
                .endPort()
                .build())
        .endSpec()
        .build();
  }

  static Namespace namespace(Map<String, String> annotations) {
    return new NamespaceBuilder()
        .withNewMetadata()
        .withName("ns")
        .withAnnotations(annotations)
        .endMetadata()
        .build();
  }

  /**
   * The text under every annotation, on the pod, then on the namespace only: the warnings name
   * exactly the bad ones that apply, and the overrides hold exactly the good ones, as read.
   */
  static void resolveEverywhere(String t) {
    Map<String, String> every = new LinkedHashMap<>();
    for (LinkerdAnnotation a : LinkerdAnnotation.values()) {
      every.put(a.key(), t);
    }
    for (boolean onNamespace : new boolean[] {false, true}) {
      List<String> warnings = new ArrayList<>();
      ConfigOverrides got =
          onNamespace
              ? LinkerdConfig.resolve(pod(Map.of()), namespace(every), warnings::add)
              : LinkerdConfig.resolve(pod(every), namespace(Map.of()), warnings::add);
      Set<String> bad = new TreeSet<>();
      for (LinkerdAnnotation a : LinkerdAnnotation.values()) {
        if (onNamespace && !a.inherited()) {
          assertThat(got.value(a.key())).as("%s not inherited", a).isEmpty();
          continue;
        }
        Read read = a.format().read(t, NAMED);
        if (read instanceof Read.Ok ok) {
          assertThat(got.value(a.key())).as("%s of %s", a, t).contains(ok.value());
        } else {
          assertThat(got.value(a.key())).as("%s of %s", a, t).isEmpty();
          bad.add(a.key());
        }
      }
      Set<String> warned = new TreeSet<>();
      for (String w : warnings) {
        String key = w.startsWith("annotation ") ? w.substring(11, w.indexOf(' ', 11)) : w;
        warned.add(key);
      }
      assertThat(warnings).as("one warning per bad value of %s", t).hasSameSizeAs(bad);
      assertThat(warned).as("warned of %s", t).isEqualTo(bad);
    }
  }

  /** Swaps one item of a comma-separated list for another seed's, or doubles one. */
  static byte[] listMutation(byte[] in, Random r) {
    String[] items = text(in).split(",", -1);
    if (items.length < 2) {
      return null;
    }
    int i = r.nextInt(items.length);
    if (r.nextBoolean()) {
      String[] other = SEEDS.get(r.nextInt(SEEDS.size())).split(",", -1);
      items[i] = other[r.nextInt(other.length)];
    } else {
      items[i] = items[i] + "," + items[i];
    }
    return utf8(String.join(",", items));
  }

  @Test
  void everyFormatAndTheResolutionOverHostileText() {
    List<byte[]> seeds = SEEDS.stream().map(LinkerdAnnotationsFuzzTest::utf8).toList();
    Fuzz.target("linkerd-annotations", seeds)
        .dictionary(DICTIONARY)
        .structural(LinkerdAnnotationsFuzzTest::listMutation)
        .run(
            in -> {
              String t = text(in);
              readEveryFormat(t);
              resolveEverywhere(t);
            });
  }
}
