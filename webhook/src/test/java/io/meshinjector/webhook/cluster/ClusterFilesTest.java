package io.meshinjector.webhook.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.Source;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.ConfigLoader;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Corrupt NodeCapabilities in a --cluster file: warnings naming each, and a view that serves. */
class ClusterFilesTest {
  static final Path CORRUPT = Path.of("src/test/resources/cluster/corrupt-nodecapabilities.yaml");

  @Test
  void corruptNodeCapabilitiesAreNamedAndCountAsUnknown() {
    List<String> warnings = new ArrayList<>();

    InMemoryClusterView view =
        ClusterFiles.load(
            ConfigLoader.defaults().engine().capabilities(), List.of(CORRUPT), warnings::add);

    assertThat(warnings)
        .anySatisfy(
            w ->
                assertThat(w)
                    .startsWith("NodeCapability 'rhel-1': ")
                    .contains("status.observedAt 'yesterday' is not an RFC 3339 time")
                    .endsWith("all its verdicts count as unknown"))
        .anySatisfy(
            w -> assertThat(w).startsWith("NodeCapability 'rhel-2': status is a string, not a map"))
        .anySatisfy(
            w ->
                assertThat(w)
                    .startsWith("NodeCapability 'rhel-3': ")
                    .contains("status.observedAt is a number (1763634000)")
                    .contains("status.capabilities is a list, not a map")
                    .contains("status.facts is a string, not a map"))
        .anySatisfy(
            w ->
                assertThat(w)
                    .startsWith("NodeCapability 'rhel-4': ")
                    .contains("status.capabilities.cni is 'available'")
                    .contains("status.capabilities.iptables-nft is a map"))
        .anySatisfy(w -> assertThat(w).startsWith("NodeCapability 'rhel-5': no status"))
        .anySatisfy(w -> assertThat(w).endsWith("a NodeCapability without metadata.name ignored"))
        .anySatisfy(w -> assertThat(w).contains("NodeCapability 'rhel-6' is not a valid object"));
    var rhel1 = view.nodes(Instant.parse("2026-11-20T10:30:00Z")).capabilities("rhel-1");
    assertThat(rhel1.orElseThrow().get(CapabilityKey.IPTABLES_LEGACY).source())
        .isEqualTo(Source.INFERENCE);
    assertThat(rhel1.orElseThrow().verdict(CapabilityKey.CNI)).isEqualTo(Verdict.UNKNOWN);
  }
}
