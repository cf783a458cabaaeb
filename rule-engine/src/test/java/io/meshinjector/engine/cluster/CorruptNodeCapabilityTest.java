package io.meshinjector.engine.cluster;

import static io.meshinjector.engine.capability.CapabilityKey.CNI;
import static io.meshinjector.engine.capability.CapabilityKey.IPTABLES_LEGACY;
import static io.meshinjector.engine.capability.CapabilityKey.IPTABLES_NFT;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.meshinjector.engine.RuleEngine;
import io.meshinjector.engine.capability.NodeCapabilities;
import io.meshinjector.engine.capability.Source;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.testing.K8s;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A NodeCapability is anyone's to write: whatever its status holds, the view keeps serving, the
 * unusable part counts as unknown (so the Node's own inference decides), and a warning names the
 * object and the problem.
 */
class CorruptNodeCapabilityTest {
  static final Instant NOW = Instant.parse("2026-11-20T10:30:00Z");
  static final String GOOD_TIME = "2026-11-20T10:20:00Z";

  /** What a sound probe report says; RHEL 8's inference would say legacy unavailable. */
  static final Map<String, Object> GOOD_CAPS =
      Map.of("iptables-legacy", "available", "iptables-nft", "available", "cni", "ready");

  /**
   * @param status the value under {@code status}; {@link #ABSENT} for no key at all
   * @param warning what the warning must say, after the object's name
   * @param probeKept whether the report's good verdicts still count (from the probe)
   * @param cni the cni verdict the decision sees
   */
  record Row(String name, Object status, String warning, boolean probeKept, Verdict cni) {
    @Override
    public String toString() {
      return name;
    }
  }

  static final Object ABSENT = new Object();

  static Map<String, Object> status(Object observedAt, Object caps, Object facts) {
    Map<String, Object> m = new LinkedHashMap<>();
    if (observedAt != ABSENT) {
      m.put("observedAt", observedAt);
    }
    if (caps != ABSENT) {
      m.put("capabilities", caps);
    }
    if (facts != ABSENT) {
      m.put("facts", facts);
    }
    return m;
  }

  static Stream<Arguments> corrupt() {
    Map<String, Object> badCni = new LinkedHashMap<>(GOOD_CAPS);
    badCni.put("cni", "available");
    Map<String, Object> numberCni = new LinkedHashMap<>(GOOD_CAPS);
    numberCni.put("cni", 42);
    Map<String, Object> mapCni = new LinkedHashMap<>(GOOD_CAPS);
    mapCni.put("cni", Map.of("ready", true));
    Map<String, Object> nullCni = new LinkedHashMap<>(GOOD_CAPS);
    nullCni.put("cni", null);
    return Stream.of(
            new Row("missing status", ABSENT, "no status", false, Verdict.UNKNOWN),
            new Row("status is a string", "ready", "status is a string, not a map", false, null),
            new Row(
                "status is a list", List.of(GOOD_CAPS), "status is a list, not a map", false, null),
            new Row(
                "observedAt missing",
                status(ABSENT, GOOD_CAPS, ABSENT),
                "status.observedAt is missing",
                false,
                null),
            new Row(
                "observedAt garbage",
                status("yesterday", GOOD_CAPS, ABSENT),
                "status.observedAt 'yesterday' is not an RFC 3339 time",
                false,
                null),
            new Row(
                "observedAt a number",
                status(1763634000, GOOD_CAPS, ABSENT),
                "status.observedAt is a number (1763634000), not an RFC 3339 time",
                false,
                null),
            new Row(
                "observedAt a map",
                status(Map.of("seconds", 1), GOOD_CAPS, ABSENT),
                "status.observedAt is a map, not an RFC 3339 time",
                false,
                null),
            new Row(
                "observedAt in the future",
                status("2099-01-01T00:00:00Z", GOOD_CAPS, ABSENT),
                "status.observedAt 2099-01-01T00:00:00Z is ahead of this replica's clock",
                false,
                null),
            new Row(
                "observedAt at the end of time",
                status("+1000000000-12-31T23:59:59.999999999Z", GOOD_CAPS, ABSENT),
                "is ahead of this replica's clock",
                false,
                null),
            new Row(
                "capabilities a list",
                status(GOOD_TIME, List.of("cni"), ABSENT),
                "status.capabilities is a list, not a map",
                false,
                null),
            new Row(
                "a verdict the key does not take",
                status(GOOD_TIME, badCni, ABSENT),
                "status.capabilities.cni is 'available', not one of [ready, absent, unknown]",
                true,
                null),
            new Row(
                "a verdict that is a number",
                status(GOOD_TIME, numberCni, ABSENT),
                "status.capabilities.cni is a number (42)",
                true,
                null),
            new Row(
                "a verdict that is a map",
                status(GOOD_TIME, mapCni, ABSENT),
                "status.capabilities.cni is a map",
                true,
                null),
            new Row(
                "a verdict that is null",
                status(GOOD_TIME, nullCni, ABSENT),
                "status.capabilities.cni is null",
                true,
                null),
            new Row(
                "facts a string",
                status(GOOD_TIME, GOOD_CAPS, "os=rhel"),
                "status.facts is a string, not a map",
                true,
                Verdict.READY))
        .map(Arguments::of);
  }

  static GenericKubernetesResource capability(String name, Object status) {
    GenericKubernetesResource r = new GenericKubernetesResource();
    r.setApiVersion("mesh-injector.io/v1alpha1");
    r.setKind("NodeCapability");
    r.setMetadata(new ObjectMetaBuilder().withName(name).build());
    if (status != ABSENT) {
      r.setAdditionalProperty("status", status);
    }
    return r;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("corrupt")
  void countsAsUnknownWithAWarningNamingTheObject(Row row) {
    List<String> warnings = new ArrayList<>();
    InMemoryClusterView view =
        new InMemoryClusterView(ConfigLoader.defaults().engine().capabilities(), warnings::add);
    view.upsert(K8s.node("n1", K8s.RHEL8, "v1.31.0"));
    // a sound report first: a corrupt one must not leave its verdicts standing
    view.upsert(capability("n1", status(GOOD_TIME, GOOD_CAPS, Map.of())));
    assertThat(view.nodes(NOW).capabilities("n1").orElseThrow().verdict(IPTABLES_LEGACY))
        .isEqualTo(Verdict.AVAILABLE);

    view.upsert(capability("n1", row.status()));
    view.upsert(capability("n1", row.status())); // the same again: a re-list, a resync
    NodeCapabilities caps = view.nodes(NOW).capabilities("n1").orElseThrow();

    assertThat(warnings)
        .isNotEmpty()
        .allSatisfy(w -> assertThat(w).startsWith("NodeCapability 'n1': ").contains(row.warning()));
    assertThat(caps.verdict(CNI)).isEqualTo(row.cni() == null ? Verdict.UNKNOWN : row.cni());
    if (row.probeKept()) {
      assertThat(caps.get(IPTABLES_LEGACY).source()).isEqualTo(Source.PROBE);
      assertThat(caps.verdict(IPTABLES_LEGACY)).isEqualTo(Verdict.AVAILABLE);
    } else {
      // the probe counts as unknown, so the Node's inference decides: RHEL 8 has no legacy
      assertThat(caps.get(IPTABLES_LEGACY).source()).isEqualTo(Source.INFERENCE);
      assertThat(caps.verdict(IPTABLES_LEGACY)).isEqualTo(Verdict.UNAVAILABLE);
      assertThat(caps.verdict(IPTABLES_NFT)).isEqualTo(Verdict.AVAILABLE);
    }
    // and the decision is still made
    Decision d =
        new RuleEngine(ConfigLoader.defaults().engine(), Clock.fixed(NOW, ZoneOffset.UTC))
            .decide("shop/Pod/web", K8s.pod("shop"), viewWithNamespace(view));
    assertThat(d.summary()).isNotBlank();
  }

  private static InMemoryClusterView viewWithNamespace(InMemoryClusterView view) {
    view.upsert(K8s.enabled("shop"));
    return view;
  }

  @Test
  void aFutureReportIsWarnedAboutOnceAndNamedInTheTrace() {
    List<String> warnings = new ArrayList<>();
    InMemoryClusterView view =
        new InMemoryClusterView(ConfigLoader.defaults().engine().capabilities(), warnings::add);
    view.upsert(K8s.node("n1", K8s.RHEL8, "v1.31.0"));
    view.upsert(K8s.node("n2", K8s.RHEL8, "v1.31.0"));
    view.upsert(capability("n1", status("2099-01-01T00:00:00Z", GOOD_CAPS, Map.of())));

    view.nodes(NOW);
    view.upsert(K8s.node("n2", K8s.CENTOS7, "v1.31.0")); // forces a rebuild
    NodeCapabilities caps = view.nodes(NOW).capabilities("n1").orElseThrow();

    assertThat(warnings).hasSize(1);
    assertThat(caps.get(CNI).detail()).contains("is in the future");
  }

  @Test
  void aSkewOfAFewMinutesIsToleratedAndAnUnknownKeyIsNoProblem() {
    List<String> warnings = new ArrayList<>();
    InMemoryClusterView view =
        new InMemoryClusterView(ConfigLoader.defaults().engine().capabilities(), warnings::add);
    view.upsert(K8s.node("n1", K8s.RHEL8, "v1.31.0"));
    Map<String, Object> caps = new LinkedHashMap<>(GOOD_CAPS);
    caps.put("ebpf-redirect", "available"); // a newer probe's key
    view.upsert(capability("n1", status("2026-11-20T10:33:00Z", caps, Map.of())));

    assertThat(view.nodes(NOW).capabilities("n1").orElseThrow().get(CNI).source())
        .isEqualTo(Source.PROBE);
    assertThat(warnings).isEmpty();
  }

  @Test
  void aNodeCapabilityWithoutANameIsIgnoredWithAWarning() {
    List<String> warnings = new ArrayList<>();
    InMemoryClusterView view =
        new InMemoryClusterView(ConfigLoader.defaults().engine().capabilities(), warnings::add);
    GenericKubernetesResource r = capability("x", status(GOOD_TIME, GOOD_CAPS, Map.of()));
    r.setMetadata(null);

    assertThat(view.upsert(r)).isTrue();
    assertThat(warnings).containsExactly("NodeCapability without metadata.name ignored");
  }

  @Test
  void theProbesSourceIsNamedInTheVerdictAndABadSourceIsWarnedAboutWithoutCostingTheVerdict() {
    List<String> warnings = new ArrayList<>();
    InMemoryClusterView view =
        new InMemoryClusterView(ConfigLoader.defaults().engine().capabilities(), warnings::add);
    view.upsert(K8s.node("n1", K8s.RHEL8, "v1.31.0"));
    Map<String, Object> status =
        status(
            GOOD_TIME,
            GOOD_CAPS,
            Map.of(
                "reason.iptables-legacy",
                "iptables-legacy created a nat chain with a REDIRECT rule in a new network"
                    + " namespace and read it back"));
    status.put("sources", Map.of("iptables-legacy", "active", "iptables-nft", "files", "cni", 7));
    view.upsert(capability("n1", status));
    NodeCapabilities caps = view.nodes(NOW).capabilities("n1").orElseThrow();

    assertThat(caps.get(IPTABLES_LEGACY).toString())
        .isEqualTo(
            "available (probe: observed 2026-11-20T10:20:00Z, active check, iptables-legacy"
                + " created a nat chain with a REDIRECT rule in a new network namespace and read"
                + " it back)");
    assertThat(caps.get(IPTABLES_NFT).detail()).contains(", from the node's files");
    // a bad source only loses its label: the verdict stands
    assertThat(caps.get(CNI).source()).isEqualTo(Source.PROBE);
    assertThat(caps.get(CNI).detail()).doesNotContain("active").doesNotContain("files");
    assertThat(warnings)
        .containsExactly(
            "NodeCapability 'n1': status.sources.cni is a number (7), not one of [active,"
                + " files]; the verdicts stand, without that label");
  }
}
