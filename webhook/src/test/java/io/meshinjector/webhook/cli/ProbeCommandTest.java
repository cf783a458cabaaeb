package io.meshinjector.webhook.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.meshinjector.webhook.cluster.NodeCapabilityResource;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

@EnableKubernetesMockClient(crud = true)
class ProbeCommandTest {
  static final Instant NOW = Instant.parse("2026-11-20T10:00:00Z");

  KubernetesMockServer server;
  KubernetesClient client;

  @TempDir Path host;

  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  @BeforeEach
  void rhel8Node() throws IOException {
    write("etc/os-release", "ID=\"rhel\"\nVERSION_ID=\"8.10\"\n");
    write("proc/sys/kernel/osrelease", "4.18.0-553.el8_10.x86_64\n");
    write("proc/modules", "nf_tables 1 0 - Live 0x0\nnft_chain_nat 1 0 - Live 0x0\n");
    write("lib/modules/4.18.0-553.el8_10.x86_64/modules.dep", "kernel/net/ipv4/ip_tables.ko.xz:\n");
    write("lib/modules/4.18.0-553.el8_10.x86_64/modules.builtin", "kernel/net/unix.ko\n");
    write("usr/sbin/xtables-nft-multi", "ELF");
    Files.createSymbolicLink(host.resolve("usr/sbin/iptables"), Path.of("xtables-nft-multi"));
    Files.createSymbolicLink(host.resolve("usr/sbin/iptables-save"), Path.of("xtables-nft-multi"));
    server.expectCustomResource(
        new CustomResourceDefinitionContext.Builder()
            .withGroup("mesh-injector.io")
            .withVersion("v1alpha1")
            .withPlural("nodecapabilities")
            .withKind("NodeCapability")
            .withScope("Cluster")
            .withStatusSubresource(true)
            .build());
  }

  private void write(String rel, String text) throws IOException {
    Path p = host.resolve(rel);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
  }

  private int run(ProbeCommand.Sleeper sleeper, String... args) {
    ProbeCommand command =
        new ProbeCommand(
            // the command closes its client when done; the test keeps reading with its own
            () -> new KubernetesClientBuilder().withConfig(client.getConfiguration()).build(),
            Clock.fixed(NOW, ZoneOffset.UTC),
            sleeper);
    return new CommandLine(command)
        .setOut(new PrintWriter(out, true))
        .setErr(new PrintWriter(err, true))
        .execute(args);
  }

  @Test
  void dryRunPrintsTheObjectAsYaml() throws Exception {
    int code = run(d -> false, "--node", "rhel-1", "--host-root", host.toString(), "--dry-run");

    assertThat(code).isZero();
    JsonNode doc = new ObjectMapper(new YAMLFactory()).readTree(out.toString());
    assertThat(doc.path("apiVersion").asText()).isEqualTo("mesh-injector.io/v1alpha1");
    assertThat(doc.path("kind").asText()).isEqualTo("NodeCapability");
    assertThat(doc.path("metadata").path("name").asText()).isEqualTo("rhel-1");
    assertThat(doc.path("status").path("observedAt").asText()).isEqualTo("2026-11-20T10:00:00Z");
    assertThat(doc.path("status").path("capabilities").path("iptables-legacy").asText())
        .isEqualTo("unavailable");
    assertThat(doc.path("status").path("capabilities").path("iptables-nft").asText())
        .isEqualTo("available");
    assertThat(doc.path("status").path("facts").path("hostIptables").asText()).isEqualTo("nft");
    assertThat(doc.path("status").path("facts").path("os").asText()).isEqualTo("rhel 8.10");
    assertThat(client.genericKubernetesResources(NodeCapabilityResource.CONTEXT).list().getItems())
        .as("dry-run writes nothing")
        .isEmpty();
  }

  @Test
  void dryRunPrintsJson() throws Exception {
    int code =
        run(
            d -> false,
            "--node",
            "rhel-1",
            "--host-root",
            host.toString(),
            "--dry-run",
            "-o",
            "json");

    assertThat(code).isZero();
    JsonNode doc = new ObjectMapper().readTree(out.toString());
    assertThat(doc.path("metadata").path("name").asText()).isEqualTo("rhel-1");
    assertThat(doc.path("status").path("facts").path("missingModules").asText())
        .isEqualTo("ip_tables,iptable_nat");
    assertThat(doc.path("status").path("capabilities").path("cni").asText()).isEqualTo("unknown");
  }

  @Test
  void writesEveryIntervalUntilStopped() throws Exception {
    List<Duration> slept = new ArrayList<>();
    AtomicInteger runs = new AtomicInteger();

    int code =
        run(
            d -> {
              slept.add(d);
              if (runs.incrementAndGet() == 1) {
                // the node changes between runs: the mesh CNI arrives
                try {
                  write(
                      "etc/cni/net.d/10-calico.conflist", "{\"plugins\":[{\"type\":\"calico\"}]}");
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
                return true;
              }
              return false;
            },
            "--node",
            "rhel-1",
            "--host-root",
            host.toString(),
            "--interval",
            "30s");

    assertThat(code).isZero();
    assertThat(slept).containsExactly(Duration.ofSeconds(30), Duration.ofSeconds(30));
    GenericKubernetesResource stored =
        client.genericKubernetesResources(NodeCapabilityResource.CONTEXT).withName("rhel-1").get();
    @SuppressWarnings("unchecked")
    Map<String, Object> status =
        (Map<String, Object>) stored.getAdditionalProperties().get("status");
    assertThat(status.get("capabilities"))
        .isEqualTo(
            Map.of(
                "iptables-legacy", "unavailable",
                "iptables-nft", "available",
                "cni", "absent",
                "ip6tables-legacy", "unavailable",
                "ip6tables-nft", "unavailable",
                "nftables", "unavailable"));
    @SuppressWarnings("unchecked")
    Map<String, String> facts = (Map<String, String>) status.get("facts");
    assertThat(facts)
        .containsEntry("cniConf", "/etc/cni/net.d/10-calico.conflist")
        .containsEntry("hostIptables", "nft");
    assertThat(err.toString())
        .contains("probe rhel-1: iptables-legacy: unavailable - ip_tables, iptable_nat")
        .contains("probe rhel-1: wrote NodeCapability status (REPLACE)");
  }

  @Test
  void intervalZeroWritesOnce() {
    int code =
        run(
            d -> {
              throw new AssertionError("must not sleep");
            },
            "--node",
            "rhel-1",
            "--host-root",
            host.toString(),
            "--interval",
            "0");

    assertThat(code).isZero();
    assertThat(
            client
                .genericKubernetesResources(NodeCapabilityResource.CONTEXT)
                .withName("rhel-1")
                .get()
                .getAdditionalProperties())
        .containsKey("status");
  }

  @Test
  void nodeIsRequired() {
    int code = run(d -> false, "--dry-run");

    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains("Missing required option: '--node=<node>'");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void anUnknownRepairModeNamesTheAllowedOnes() {
    int code = run(d -> false, "--node", "rhel-1", "--repair", "fix", "--interval", "0");

    assertThat(code).isEqualTo(2);
    assertThat(err.toString())
        .contains("--repair")
        .contains("repair mode 'fix' is not one of off, report, repair");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "--repair-per-minute | 0  | at least 1, not 0",
        "--repair-resync     | 0s | --repair-resync must be positive, not PT0S"
      })
  void aRepairSettingOutOfRangeIsRefusedBeforeAnythingRuns(
      String option, String value, String message) {
    int code =
        run(
            d -> false,
            "--node",
            "rhel-1",
            "--host-root",
            host.toString(),
            "--repair",
            "report",
            option,
            value,
            "--interval",
            "0");

    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains(message);
    assertThat(client.genericKubernetesResources(NodeCapabilityResource.CONTEXT).list().getItems())
        .isEmpty();
  }

  @ParameterizedTest
  @CsvSource({
    "30s,PT30S",
    "5m,PT5M",
    "1h,PT1H",
    "250ms,PT0.25S",
    "90,PT1M30S",
    "PT2M,PT2M",
    "0,PT0S"
  })
  void parsesDurations(String text, String iso) {
    assertThat(new ProbeCommand.DurationConverter().convert(text)).isEqualTo(Duration.parse(iso));
  }

  @ParameterizedTest
  @CsvSource({"soon", "-5s", "5d"})
  void refusesNonDurations(String text) {
    assertThatThrownBy(() -> new ProbeCommand.DurationConverter().convert(text))
        .isInstanceOf(CommandLine.TypeConversionException.class)
        .hasMessageContaining(text);
  }
}
