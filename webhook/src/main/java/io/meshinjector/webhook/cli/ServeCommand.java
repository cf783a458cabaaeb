package io.meshinjector.webhook.cli;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.VersionInfo;
import io.meshinjector.certs.CertDirectory;
import io.meshinjector.certs.EnsureResult;
import io.meshinjector.certs.KeyType;
import io.meshinjector.certs.SubjectNames;
import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.webhook.cli.snapshot.ClusterDetection;
import io.meshinjector.webhook.cli.snapshot.ServerVersion;
import io.meshinjector.webhook.client.ClusterClients;
import io.meshinjector.webhook.cluster.ClusterConnection;
import io.meshinjector.webhook.controllers.LeaderElection;
import io.meshinjector.webhook.server.AotTraining;
import io.meshinjector.webhook.server.LiveCluster;
import io.meshinjector.webhook.server.ServerPorts;
import io.meshinjector.webhook.server.WebhookServer;
import io.meshinjector.webhook.settings.ClusterSettings;
import io.meshinjector.webhook.settings.WebhookSettings;
import io.meshinjector.webhook.tls.TlsProvider;
import io.meshinjector.webhook.tls.TlsSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ConfigurableApplicationContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/** {@code serve}: the HTTPS admission webhook. */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = {
      "Serves POST /mutate (admission.k8s.io/v1 and v1beta1), GET /healthz and GET /readyz over"
          + " HTTPS (TLS 1.3 and 1.2), and Prometheus metrics at /metrics on a plain-HTTP"
          + " management port.",
      "Decides from the --cluster files; with none, from the cluster it finds (in-cluster"
          + " service account, else KUBECONFIG or ~/.kube/config) through informers; with neither,"
          + " exits 1."
    })
public final class ServeCommand implements Callable<Integer> {
  @Mixin SourceOptions sources;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      converter = PortConverter.class,
      description = "HTTPS port (default: webhook.port of the config, 8443); 0 picks a free one.")
  Integer port;

  @Option(
      names = "--metrics-port",
      paramLabel = "PORT",
      converter = PortConverter.class,
      description =
          "Plain-HTTP metrics port (default: webhook.metricsPort of the config, 9090); 0 picks a"
              + " free one. It must differ from the HTTPS port.")
  Integer metricsPort;

  @Option(
      names = "--tls-dir",
      paramLabel = "DIR",
      defaultValue = "${sys:user.home}/.mesh-injector/tls",
      description =
          "Folder with tls.crt and tls.key (PEM, PKCS#8 key), reloaded when they change; when it"
              + " holds neither, a self-signed CA and serving certificate are written there"
              + " (ca.crt for curl --cacert). Default: ${DEFAULT-VALUE}.")
  Path tlsDir;

  @Option(
      names = "--log-format",
      paramLabel = "FORMAT",
      converter = LogFormatConverter.class,
      description = "text, or JSON lines: ecs, logstash, gelf (default: webhook.logFormat).")
  WebhookSettings.LogFormat logFormat;

  @Spec CommandSpec spec;

  /** The running server, for tests that start it through the command line. */
  private ConfigurableApplicationContext context;

  @Override
  public Integer call() {
    MeshConfig config = sources.meshConfig();
    WebhookSettings settings = WebhookSettings.from(config);
    if (port != null) {
      settings = settings.withPort(port);
    }
    if (metricsPort != null) {
      settings = settings.withMetricsPort(metricsPort);
    }
    if (logFormat != null) {
      settings = settings.withLogFormat(logFormat);
    }
    // Spring serves management on the HTTPS connector when the two ports are the same, so the
    // metrics would silently move; 0 is a free port each, never the same one
    if (settings.port() == settings.metricsPort() && settings.port() != 0) {
      String both = "the HTTPS port and the metrics port are both " + settings.port();
      if (port == null && metricsPort == null) {
        throw new ConfigException(
            both + ": set webhook.port and webhook.metricsPort to different ports");
      }
      throw new ParameterException(
          spec.commandLine(), both + ": give --port and --metrics-port different ports");
    }
    List<Path> files = sources.clusterFiles();
    ClusterSettings clusterSettings = ClusterSettings.from(config);
    ClusterConnection cluster;
    if (!files.isEmpty()) {
      cluster = ClusterConnection.fixed(sources.view(config), "the --cluster files " + files);
    } else {
      Optional<String> found = ClusterDetection.found();
      if (found.isEmpty()) {
        spec.commandLine()
            .getErr()
            .println(
                "serve: no cluster to decide from: give --cluster FILE, run in a pod, or point"
                    + " KUBECONFIG (or ~/.kube/config) at a cluster");
        return ExitCodes.INPUT;
      }
      KubernetesClient client = ClusterClients.builder().build();
      config = withServerVersion(client, config);
      LiveCluster live =
          new LiveCluster(
              client,
              found.get(),
              config,
              clusterSettings,
              podNamespace(),
              LeaderElection.Timing.defaults());
      live.listNodesNow();
      cluster = live;
    }
    CertDirectory certs = new CertDirectory(tlsDir);
    List<String> selfSigned =
        TlsSettings.selfSignedNames(
            config, settings.selfSignedNames(), System.getenv("POD_NAMESPACE"));
    EnsureResult tls =
        certs.ensure(
            SubjectNames.of(selfSigned),
            Duration.ofDays(settings.selfSignedDays()),
            KeyType.defaultType());
    context =
        WebhookServer.start(
            new WebhookServer.Options(config, settings, cluster, certs.tlsCrt(), certs.tlsKey()));
    Logger log = LoggerFactory.getLogger(ServeCommand.class);
    if (tls instanceof EnsureResult.Generated) {
      log.info(
          "{} held no certificate: wrote a self-signed CA (ca.crt) and a serving certificate for"
              + " {}",
          tlsDir,
          selfSigned);
    } else if (tls instanceof EnsureResult.Existing existing) {
      existing.validation().problems().forEach(p -> log.warn("{}/tls.crt: {}", tlsDir, p));
      existing.validation().warnings().forEach(w -> log.warn("{}/tls.crt: {}", tlsDir, w));
    }
    if (config.section("proxy").text("trustAnchorsPEM").isBlank()) {
      log.warn(
          "proxy.trustAnchorsPEM is empty: injected proxies cannot get an identity from the"
              + " control plane; set it to the control plane's trust anchors");
    }
    log.info("cluster view: {}", cluster.describe());
    ServerPorts ports = context.getBean(ServerPorts.class);
    log.info(
        "serving https://0.0.0.0:{}/mutate (TLS: {}); metrics at http://0.0.0.0:{}/metrics",
        ports.https(),
        TlsProvider.describe(),
        ports.management());
    if (AotTraining.requested()) {
      return train(ports, certs);
    }
    return ExitCodes.OK;
  }

  private static String podNamespace() {
    String ns = System.getenv("POD_NAMESPACE");
    return ns == null || ns.isBlank() ? TlsSettings.DEFAULT_NAMESPACE : ns;
  }

  /**
   * Native sidecars need an API server of 1.29 or later; an older one would drop the init
   * container's restartPolicy and the proxy would block the pod's start for ever.
   */
  private static MeshConfig withServerVersion(KubernetesClient client, MeshConfig config) {
    Logger log = LoggerFactory.getLogger(ServeCommand.class);
    VersionInfo version;
    // one quick try: an API server that is down must not hold the start-up back (the informers
    // wait for it on their own)
    try (KubernetesClient once =
        ClusterClients.builder()
            .withConfig(
                new ConfigBuilder(client.getConfiguration())
                    .withRequestRetryBackoffLimit(0)
                    .withRequestTimeout(5000)
                    .withConnectionTimeout(5000)
                    .build())
            .build()) {
      version = once.getKubernetesVersion();
    } catch (RuntimeException e) {
      log.warn(
          "cannot read the API server's version ({}): native sidecars follow the nodes' kubelets",
          e.toString());
      return config;
    }
    Optional<int[]> parsed = ServerVersion.parse(version);
    if (parsed.isEmpty()) {
      log.warn(
          "the API server's version {}.{} cannot be read: native sidecars follow the nodes'"
              + " kubelets",
          version == null ? null : version.getMajor(),
          version == null ? null : version.getMinor());
      return config;
    }
    int[] v = parsed.get();
    if (ServerVersion.supportsNativeSidecars(v)) {
      log.info("API server {}.{}: native sidecars where the nodes run them", v[0], v[1]);
      return config;
    }
    log.warn(
        "API server {}.{} is older than 1.29: no native sidecars, whatever the nodes say",
        v[0],
        v[1]);
    return ServerVersion.apply(config, v);
  }

  /**
   * A training run for the AOT cache: the workload, then a normal exit, when the cache is written.
   */
  private int train(ServerPorts ports, CertDirectory certs) {
    int code = ExitCodes.OK;
    try {
      Path trust = Files.exists(certs.caCrt()) ? certs.caCrt() : certs.tlsCrt();
      if (AotTraining.run(ports, trust) == 0) {
        code = ExitCodes.INPUT;
      }
    } catch (Exception e) {
      LoggerFactory.getLogger(ServeCommand.class).error("AOT training failed", e);
      code = ExitCodes.INPUT;
    }
    context.close();
    System.exit(code);
    return code;
  }

  /** A TCP port, so that a wrong one is a command-line error (exit 2) naming the option. */
  static final class PortConverter implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      try {
        int p = Integer.parseInt(value.strip());
        if (p >= 0 && p <= 65535) {
          return p;
        }
      } catch (NumberFormatException e) {
        // reported below, with the range
      }
      throw new TypeConversionException(
          "'" + value + "' is not a port: 1 to 65535, or 0 for a free one");
    }
  }

  static final class LogFormatConverter implements ITypeConverter<WebhookSettings.LogFormat> {
    @Override
    public WebhookSettings.LogFormat convert(String value) {
      try {
        return WebhookSettings.LogFormat.parse(value);
      } catch (ConfigException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
