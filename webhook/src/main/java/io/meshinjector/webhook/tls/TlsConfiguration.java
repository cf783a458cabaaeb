package io.meshinjector.webhook.tls;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.webhook.controllers.LeaderElection;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The serving certificate's beans in {@code serve}: the expiry monitor and self-managed mode. */
@Configuration(proxyBeanMethods = false)
public class TlsConfiguration {
  /** The SSL bundle WebhookServer serves from ({@code server.ssl.bundle}). */
  public static final String BUNDLE = "webhook";

  /** The only protocols the admission port speaks; 1.1 and older are refused in the handshake. */
  public static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

  /**
   * The suites the admission port accepts: TLS 1.3's three, and for 1.2 only ECDHE key exchange
   * (forward secrecy) with an AEAD cipher, as Kubernetes' and Go's TLS defaults prefer. No CBC, no
   * RSA key exchange, no SHA-1 MAC.
   */
  public static final List<String> CIPHERS =
      List.of(
          "TLS_AES_128_GCM_SHA256",
          "TLS_AES_256_GCM_SHA384",
          "TLS_CHACHA20_POLY1305_SHA256",
          "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
          "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
          "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
          "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
          "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
          "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256");

  @Bean
  TlsSettings tlsSettings(MeshConfig config) {
    return TlsSettings.from(config);
  }

  @Bean(destroyMethod = "close")
  ServingCertificateMonitor servingCertificateMonitor(
      SslBundles bundles, MeterRegistry registry, TlsSettings settings) {
    return new ServingCertificateMonitor(bundles, BUNDLE, settings, Clock.systemUTC())
        .start(registry);
  }

  @Bean
  SelfManagedLifecycle selfManagedLifecycle(TlsSettings settings) {
    return new SelfManagedLifecycle(
        settings,
        () -> new KubernetesClientBuilder().build(),
        System.getenv("KUBERNETES_SERVICE_HOST") != null,
        LeaderElection.Timing.defaults());
  }

  /**
   * Starts self-managed mode where it applies: that mode, and inside a pod. Outside one, a
   * kubeconfig may point at any cluster, and {@code serve} on a laptop must not rewrite that
   * cluster's Secret or webhook configuration.
   */
  static final class SelfManagedLifecycle implements SmartLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(SelfManagedLifecycle.class);
    private final TlsSettings settings;
    private final Supplier<KubernetesClient> clients;
    private final boolean inPod;
    private final LeaderElection.Timing timing;
    private KubernetesClient client;
    private SelfManagedCertificates certificates;
    private LeaderElection election;
    private volatile boolean running;

    SelfManagedLifecycle(
        TlsSettings settings,
        Supplier<KubernetesClient> clients,
        boolean inPod,
        LeaderElection.Timing timing) {
      this.settings = settings;
      this.clients = clients;
      this.inPod = inPod;
      this.timing = timing;
    }

    @Override
    public void start() {
      running = true;
      if (settings.mode() != TlsMode.SELF_MANAGED) {
        LOG.info(
            "tls: mode={}: the Secret and caBundle are managed elsewhere ({})",
            settings.mode().id(),
            settings.describe());
        return;
      }
      if (!inPod) {
        LOG.info(
            "tls: mode=self-managed, but not running in a pod: the Secret and caBundle are left"
                + " alone ({})",
            settings.describe());
        return;
      }
      client = clients.get();
      Clock clock = Clock.systemUTC();
      certificates =
          new SelfManagedCertificates(
              new CertificateReconciler(client, settings, clock, settings.rotationPolicy()),
              settings,
              clock);
      election =
          new LeaderElection(
              client,
              settings.namespace(),
              settings.leaseName(),
              identity(),
              timing,
              certificates::startLeading,
              certificates::stopLeading);
      election.start();
      LOG.info(
          "tls: mode=self-managed, standing for lease {}/{} as {} ({})",
          settings.namespace(),
          settings.leaseName(),
          election.identity(),
          settings.describe());
    }

    private static String identity() {
      // the pod name, unique among replicas; a random suffix keeps a restarted pod distinct
      String pod =
          Optional.ofNullable(System.getenv("POD_NAME"))
              .or(() -> Optional.ofNullable(System.getenv("HOSTNAME")))
              .orElse("mesh-injector");
      return pod + "_" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Override
    public void stop() {
      if (election != null) {
        election.close();
      }
      if (certificates != null) {
        certificates.close();
      }
      if (client != null) {
        client.close();
      }
      running = false;
    }

    @Override
    public boolean isRunning() {
      return running;
    }
  }
}
