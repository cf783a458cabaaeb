package io.meshinjector.webhook.server;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.revisions.RevisionConfig;
import io.meshinjector.webhook.client.ClusterClients;
import io.meshinjector.webhook.cluster.ClusterConnection;
import io.meshinjector.webhook.cluster.ClusterInformers;
import io.meshinjector.webhook.cluster.InformerCaches;
import io.meshinjector.webhook.cluster.LiveNamespaces;
import io.meshinjector.webhook.cluster.ViewHealth;
import io.meshinjector.webhook.controllers.CapabilityLabels;
import io.meshinjector.webhook.controllers.InjectionLabels;
import io.meshinjector.webhook.controllers.LabelSubject;
import io.meshinjector.webhook.controllers.LabelWriter;
import io.meshinjector.webhook.controllers.LeaderElection;
import io.meshinjector.webhook.revisions.RevisionsWatch;
import io.meshinjector.webhook.revisions.TagKeeper;
import io.meshinjector.webhook.settings.ClusterSettings;
import io.meshinjector.webhook.tls.TlsSettings;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code serve} connected to a cluster: the informer-fed view, live reads of namespaces the cache
 * does not hold yet, and one replica, elected on a Lease in the pod's namespace, writing labels:
 * the namespaces' injection label, and the nodes' capability labels when {@code
 * policy.publishLabels} is on.
 */
public final class LiveCluster implements ClusterConnection {
  private static final Logger LOG = LoggerFactory.getLogger(LiveCluster.class);

  private final KubernetesClient client;
  private final KubernetesClient namespaceReader;
  private final String description;
  private final MeshConfig config;
  private final ClusterSettings settings;
  private final String leaseNamespace;
  private final LeaderElection.Timing timing;
  private final InMemoryClusterView cache;
  private final ClusterInformers informers;
  private final LiveNamespaces view;
  private final RevisionsWatch revisions;
  private LabelWriter labels;
  private TagKeeper tags;
  private LeaderElection election;

  /**
   * @param client the cluster's client; closed with this
   * @param description where the client's configuration came from, for the log
   * @param leaseNamespace the pod's namespace, where the publisher's Lease is
   */
  public LiveCluster(
      KubernetesClient client,
      String description,
      MeshConfig config,
      ClusterSettings settings,
      String leaseNamespace,
      LeaderElection.Timing timing) {
    this.client = Objects.requireNonNull(client, "client");
    this.description = Objects.requireNonNull(description, "description");
    this.config = Objects.requireNonNull(config, "config");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.leaseNamespace = Objects.requireNonNull(leaseNamespace, "leaseNamespace");
    this.timing = Objects.requireNonNull(timing, "timing");
    this.cache = new InMemoryClusterView(config.engine().capabilities(), LOG::warn);
    this.informers =
        new ClusterInformers(
            client, cache, config.engine().capabilities().cniDaemonSet(), Clock.systemUTC());
    this.namespaceReader = shortLived(client.getConfiguration(), settings);
    this.revisions = new RevisionsWatch(client);
    this.view = new LiveNamespaces(cache, namespaceReader, revisions);
  }

  /** A client for the admission path: one try, no longer than the configured timeout. */
  private static KubernetesClient shortLived(Config base, ClusterSettings settings) {
    int millis = (int) Math.max(1, settings.namespaceReadTimeout().toMillis());
    return ClusterClients.builder()
        .withConfig(
            new ConfigBuilder(base)
                .withRequestTimeout(millis)
                .withConnectionTimeout(millis)
                .withRequestRetryBackoffLimit(0)
                .build())
        .build();
  }

  @Override
  public ClusterView view() {
    return view;
  }

  @Override
  public Map<String, Instant> probeReportTimes() {
    return cache.probeReportTimes();
  }

  @Override
  public ViewHealth health() {
    return informers.health();
  }

  @Override
  public String describe() {
    return "the cluster at "
        + client.getConfiguration().getMasterUrl()
        + " ("
        + description
        + "), through informers";
  }

  /** The informers' caches, as the label writers read them. */
  public InformerCaches caches() {
    return informers.caches();
  }

  /**
   * Asks for the first list of Nodes before the server is built: {@code serve} calls this as soon
   * as it has the client, so that a large cluster's list (hundreds of megabytes at 20,000 Nodes,
   * seconds of the API server's time before its first byte) is under way while Spring starts. Only
   * the list: the informers, their logging and every write start with {@link #start}.
   */
  public void listNodesNow() {
    informers.listNodesNow();
  }

  @Override
  public synchronized void start(MeterRegistry registry) {
    informers.start();
    revisions.start();
    RevisionConfig revision = RevisionConfig.from(config);
    List<LabelSubject> subjects = new ArrayList<>();
    if (revision.namespaceLabels()) {
      subjects.add(new InjectionLabels(client, caches(), config.engine().injection(), revisions));
    } else {
      LOG.info(
          "labels: revisions.namespaceLabels is off: the namespaces' routing labels are another"
              + " release's to write");
    }
    if (config.engine().policy().publishLabels()) {
      subjects.add(
          new CapabilityLabels(
              client,
              cache,
              caches(),
              settings.labelPatchesPerSecond(),
              Clock.systemUTC(),
              registry));
    } else {
      LOG.info(
          "labels: policy.publishLabels is off: no capability label is written, and"
              + " policy.mixedNodes constrain acts as reject");
    }
    labels =
        new LabelWriter(client, subjects, settings.labelResyncPeriod(), LabelWriter.Ticker.SYSTEM);
    tags =
        new TagKeeper(
            client, revisions, revision, TlsSettings.from(config).webhookConfigurationName());
    // one leader writes every label: the namespaces' routing label when this release is the one
    // that writes them, the nodes' capability labels when publishing is on; and it keeps the tags
    // that point at this revision
    election =
        new LeaderElection(
            "labels",
            client,
            leaseNamespace,
            settings.labelLeaseName(),
            LeaderElection.podIdentity(),
            timing,
            () -> {
              tags.startLeading();
              labels.startLeading();
            },
            () -> {
              labels.stopLeading();
              tags.stopLeading();
            });
    election.start();
    LOG.info(
        "labels: standing for lease {}/{} as {}",
        leaseNamespace,
        settings.labelLeaseName(),
        election.identity());
  }

  @Override
  public synchronized void close() {
    // the writer stops before the lease is handed over
    if (labels != null) {
      labels.close();
    }
    if (tags != null) {
      tags.close();
    }
    if (election != null) {
      election.close();
    }
    informers.close();
    revisions.close();
    namespaceReader.close();
    client.close();
  }
}
