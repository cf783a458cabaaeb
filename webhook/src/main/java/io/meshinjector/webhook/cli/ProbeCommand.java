package io.meshinjector.webhook.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.meshinjector.engine.probe.ProbeOptions;
import io.meshinjector.engine.probe.ProbeReport;
import io.meshinjector.engine.repair.RepairMode;
import io.meshinjector.engine.repair.RepairSettings;
import io.meshinjector.engine.revisions.RevisionNames;
import io.meshinjector.webhook.probe.ActiveIptablesCheck;
import io.meshinjector.webhook.probe.HostProbe;
import io.meshinjector.webhook.probe.NodeCapabilityWriter;
import io.meshinjector.webhook.probe.PodRepair;
import io.meshinjector.webhook.probe.ProbeMetricsServer;
import io.meshinjector.webhook.probe.RepairMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code probe --node NAME [--host-root DIR] [--dry-run] [-o yaml|json] [--interval DURATION]
 * [--active-check [--iptables-dir DIR]] [--repair off|report|repair ...] [--metrics-port N]}:
 * measures this node from its mounted file system (and, with {@code --active-check}, by trying its
 * redirect backends: iptables, ip6tables, nft) and writes the node's {@code NodeCapability}; with
 * {@code --repair}, it also runs this node's {@link PodRepair}.
 *
 * <p>Plain picocli without Spring, so the DaemonSet pod on every node starts fast and small.
 */
@Command(
    name = "probe",
    mixinStandardHelpOptions = true,
    description = {
      "Measure this node's redirect backends (iptables, ip6tables, nft), kernel modules and mesh"
          + " CNI, and report them as its NodeCapability.",
      "Without --dry-run it server-side-applies the status every --interval (0: once).",
      "With --repair report|repair it also watches this node's pods and replaces (or reports)"
          + " injected pods whose redirect step failed."
    })
public final class ProbeCommand implements Callable<Integer> {

  /** Output format of {@code --dry-run}. */
  public enum Format {
    yaml,
    json
  }

  @Option(names = "--node", required = true, description = "The node's name (NodeCapability name).")
  String node;

  @Option(
      names = "--host-root",
      defaultValue = "/host",
      description = "Where the node's file system is mounted (default: ${DEFAULT-VALUE}).")
  Path hostRoot;

  @Option(names = "--dry-run", description = "Print the NodeCapability instead of writing it.")
  boolean dryRun;

  @Option(
      names = {"-o", "--output"},
      defaultValue = "yaml",
      description = "Format of --dry-run: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  Format output;

  @Option(
      names = "--interval",
      defaultValue = "5m",
      converter = DurationConverter.class,
      description =
          "How often to measure and write, e.g. 30s, 5m, 1h or PT5M; 0 writes once and exits"
              + " (default: ${DEFAULT-VALUE}).")
  Duration interval;

  @Option(
      names = "--cni-plugin",
      defaultValue = ProbeOptions.LINKERD_CNI,
      description = "The mesh CNI plugin's type in the conflist (default: ${DEFAULT-VALUE}).")
  String cniPlugin;

  @Option(
      names = "--active-check",
      description =
          "Also try iptables-legacy, iptables-nft, ip6tables-legacy, ip6tables-nft and nft (an"
              + " inet nat table) in new network namespaces (needs CAP_SYS_ADMIN, NET_ADMIN and"
              + " NET_RAW); the verdicts then rest on what the node did, the files explain them.")
  boolean activeCheck;

  @Option(
      names = "--iptables-dir",
      defaultValue = "/usr/sbin",
      description =
          "Where the probe's own iptables-legacy, iptables-nft, their ip6tables twins (and"
              + " their -save) and nft are, for --active-check (default: ${DEFAULT-VALUE}).")
  Path iptablesDir;

  @Option(
      names = "--repair",
      defaultValue = "off",
      converter = RepairModeConverter.class,
      description =
          "What to do with this node's injected pods whose redirect step failed: off, report"
              + " (Events and the metric) or repair (delete so their controller recreates them)"
              + " (default: ${DEFAULT-VALUE}). docs/operations.md, Repair.")
  RepairMode repair;

  @Option(
      names = "--repair-per-minute",
      defaultValue = "" + RepairSettings.DEFAULT_PER_NODE_PER_MINUTE,
      description =
          "At most this many pods deleted on this node per minute (default: ${DEFAULT-VALUE}).")
  int repairPerMinute;

  @Option(
      names = "--repair-backoff",
      defaultValue = "10m",
      converter = DurationConverter.class,
      description =
          "A pod of the same controller failing the same way on this node within this long after"
              + " a repair is reported, not replaced again (default: ${DEFAULT-VALUE}).")
  Duration repairBackoff;

  @Option(
      names = "--repair-resync",
      defaultValue = "20s",
      converter = DurationConverter.class,
      description =
          "How often the repair looks again at every pod of this node whose status did not change"
              + " (a rate-limited or backed-off one) (default: ${DEFAULT-VALUE}).")
  Duration repairResync;

  @Option(
      names = "--revision",
      defaultValue = RevisionNames.DEFAULT,
      description =
          "The revision of the release this probe belongs to (the chart's value `revision`): its"
              + " NodeCapability writes are applied under a field manager of its own, so a probe of"
              + " another revision, older or newer, never deletes the status fields this one"
              + " writes (default: ${DEFAULT-VALUE}).")
  String revision;

  @Option(
      names = "--metrics-port",
      defaultValue = "-1",
      description =
          "Serve GET /metrics (Prometheus text) on this port; -1: none (default: ${DEFAULT-VALUE}).")
  int metricsPort;

  @Spec CommandLine.Model.CommandSpec spec;

  private final Supplier<KubernetesClient> clients;
  private final Clock clock;
  private final Sleeper sleeper;

  /** Sleeps between runs; returns false to stop (tests, shutdown). */
  @FunctionalInterface
  interface Sleeper {
    boolean sleep(Duration d) throws InterruptedException;
  }

  public ProbeCommand() {
    this(() -> new KubernetesClientBuilder().build(), Clock.systemUTC(), ProbeCommand::sleep);
  }

  ProbeCommand(Supplier<KubernetesClient> clients, Clock clock, Sleeper sleeper) {
    this.clients = clients;
    this.clock = clock;
    this.sleeper = sleeper;
  }

  private static boolean sleep(Duration d) throws InterruptedException {
    Thread.sleep(d.toMillis());
    return true;
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    HostProbe probe =
        HostProbe.withKernelFallback(
            hostRoot,
            ProbeOptions.defaults().withCniPluginType(cniPlugin),
            activeCheck
                ? new ActiveIptablesCheck(iptablesDir, ActiveIptablesCheck.DEFAULT_TIMEOUT)
                : null,
            HostProbe.OWN_ROOT);
    if (dryRun) {
      ProbeReport report = probe.probe(clock.instant());
      out.print(render(report.toResource(node), output));
      out.flush();
      return 0;
    }
    RepairSettings repairSettings;
    try {
      repairSettings = new RepairSettings(repair, repairPerMinute, repairBackoff);
      RevisionNames.problem(revision)
          .filter(p -> !RevisionNames.DEFAULT.equals(revision))
          .ifPresent(
              p -> {
                throw new IllegalArgumentException("--revision: " + p);
              });
      if (repairResync.isNegative() || repairResync.isZero()) {
        throw new IllegalArgumentException("--repair-resync must be positive, not " + repairResync);
      }
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    try (KubernetesClient client = clients.get();
        ProbeMetricsServer metrics =
            metricsPort >= 0 ? ProbeMetricsServer.start(metricsPort) : null;
        PodRepair repairs = startRepair(client, repairSettings, metrics, err)) {
      NodeCapabilityWriter writer =
          new NodeCapabilityWriter(client, NodeCapabilityWriter.fieldManager(revision));
      boolean once = interval.isZero();
      while (true) {
        ProbeReport report = probe.probe(clock.instant());
        report.findings().forEach(f -> err.println("probe " + node + ": " + f));
        try {
          NodeCapabilityWriter.Method how = writer.write(node, report);
          err.println("probe " + node + ": wrote NodeCapability status (" + how + ")");
        } catch (RuntimeException e) {
          // keep the pod running: the next interval retries, and a crash-looping DaemonSet would
          // only add noise to a node that is already misbehaving
          err.println("probe " + node + ": writing NodeCapability failed: " + e.getMessage());
          if (once) {
            err.flush();
            return 1;
          }
        }
        err.flush();
        if (once || !sleeper.sleep(interval)) {
          return 0;
        }
      }
    }
  }

  /**
   * The repair loop beside the probe's own (docs/operations.md, Repair), on the same pod-bound
   * token: null when off, so an {@code off} probe never reads a pod.
   */
  private PodRepair startRepair(
      KubernetesClient client,
      RepairSettings settings,
      ProbeMetricsServer metrics,
      PrintWriter err) {
    if (settings.mode() == RepairMode.OFF) {
      return null;
    }
    MeterRegistry registry =
        metrics != null
            ? metrics.registry()
            : new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    return new PodRepair(
            client, node, settings, new RepairMetrics(registry), clock, err, repairResync)
        .start();
  }

  /** {@code off|report|repair}. */
  static final class RepairModeConverter implements CommandLine.ITypeConverter<RepairMode> {
    @Override
    public RepairMode convert(String value) {
      try {
        return RepairMode.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  static String render(Object resource, Format format) throws Exception {
    ObjectMapper mapper =
        format == Format.json
            ? new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            : new ObjectMapper(
                new YAMLFactory()
                    .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                    .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                    .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS));
    String text = mapper.writeValueAsString(resource);
    return text.endsWith("\n") ? text : text + "\n";
  }

  /** {@code 30s}, {@code 5m}, {@code 1h}, {@code 250ms}, plain seconds, or ISO-8601. */
  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      String v = value.strip().toLowerCase(Locale.ROOT);
      try {
        Duration d;
        if (v.startsWith("p")) {
          d = Duration.parse(v.toUpperCase(Locale.ROOT));
        } else if (v.endsWith("ms")) {
          d = Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
        } else if (v.endsWith("s")) {
          d = Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
        } else if (v.endsWith("m")) {
          d = Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
        } else if (v.endsWith("h")) {
          d = Duration.ofHours(Long.parseLong(v.substring(0, v.length() - 1)));
        } else {
          d = Duration.ofSeconds(Long.parseLong(v));
        }
        if (d.isNegative()) {
          throw new CommandLine.TypeConversionException("'" + value + "' is negative");
        }
        return d;
      } catch (NumberFormatException | DateTimeParseException e) {
        throw new CommandLine.TypeConversionException(
            "'" + value + "' is not a duration (e.g. 30s, 5m, 1h, PT5M)");
      }
    }
  }
}
