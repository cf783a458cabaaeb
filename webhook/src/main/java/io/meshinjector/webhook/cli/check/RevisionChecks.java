package io.meshinjector.webhook.cli.check;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshinjector.engine.check.CheckResult;
import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.revisions.RevisionConfig;
import io.meshinjector.engine.revisions.Revisions;
import io.meshinjector.webhook.cli.snapshot.ClusterReadException;
import io.meshinjector.webhook.cli.snapshot.ClusterSnapshot;
import io.meshinjector.webhook.cli.snapshot.InjectorConfigurations;
import io.meshinjector.webhook.lists.Trimmed;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@value #GROUP} group of {@code check}: the cluster's revisions and tags read from their
 * webhook configurations, judged against its namespaces, workloads and running pods ({@link
 * RevisionIntegrity}, {@link NamespaceRevisions}), and {@code check --retire} ({@link
 * RetireVerdict}).
 */
final class RevisionChecks {
  static final String GROUP = "revisions";

  private final KubernetesClient client;

  RevisionChecks(KubernetesClient client) {
    this.client = client;
  }

  /**
   * What check keeps of the running pods it lists for the node checks, for this group.
   *
   * @param namespaces the namespaces as read
   */
  static RunningPods runningPods(MeshConfig config, List<Namespace> namespaces) {
    Map<String, Namespace> byName = new HashMap<>();
    namespaces.forEach(n -> byName.put(n.getMetadata().getName(), n));
    return new RunningPods(config.engine().injection(), n -> Optional.ofNullable(byName.get(n)));
  }

  /**
   * After install.
   *
   * @param namespaces the namespaces as read; empty with {@code namespacesRead} false when they
   *     could not be (a failure the node checks report)
   * @param running the running pods, {@link RunningPods#wasListed() listed} or not
   */
  List<CheckResult> installed(
      MeshConfig config, List<Namespace> namespaces, boolean namespacesRead, RunningPods running) {
    List<CheckResult> out = new ArrayList<>();
    Optional<InjectorConfigurations> configurations = configurations(out);
    if (configurations.isEmpty()) {
      return out;
    }
    PodTemplates templates = PodTemplates.read(client);
    Routing routing = routing(config, configurations.get(), namespaces);
    out.addAll(RevisionIntegrity.results(routing, configurations.get(), templates));
    if (!namespacesRead) {
      return out;
    }
    if (!running.wasListed()) {
      out.add(
          CheckResult.warn(
              GROUP,
              "the running pods' revisions",
              "the running pods were not read (see the pods group)",
              "the revisions they carry and the pods without a proxy are not checked"));
    }
    out.addAll(NamespaceRevisions.results(routing, running, templates));
    return out;
  }

  /** {@code check --retire REV}: one line, passed only when nothing reaches or runs REV. */
  List<CheckResult> retire(String revision, MeshConfig config) {
    List<CheckResult> out = new ArrayList<>();
    String name = "revision " + revision + " may be retired";
    Optional<InjectorConfigurations> configurations = configurations(out);
    if (configurations.isEmpty()) {
      return out;
    }
    List<Namespace> namespaces = new ArrayList<>();
    RunningPods running;
    try {
      ClusterSnapshot.forEach(
          "namespaces",
          client,
          "api/v1/namespaces",
          Namespace.class,
          ns -> namespaces.add(Trimmed.namespace(ns)));
      running = runningPods(config, namespaces);
      running.listNotFinished(client);
    } catch (ClusterReadException e) {
      out.add(
          CheckResult.fail(
              GROUP,
              name,
              "cannot tell: " + e.getMessage(),
              "the check needs list on namespaces and pods cluster-wide"));
      return out;
    }
    PodTemplates templates = PodTemplates.read(client);
    Routing routing = routing(config, configurations.get(), namespaces);
    out.add(RetireVerdict.of(revision, routing, templates, running));
    return out;
  }

  private Optional<InjectorConfigurations> configurations(List<CheckResult> out) {
    try {
      return Optional.of(InjectorConfigurations.read(client));
    } catch (ClusterReadException e) {
      out.add(
          CheckResult.fail(
              GROUP,
              "can list the revisions' webhook configurations",
              e.getMessage(),
              "grant list on mutatingwebhookconfigurations to the user running check"));
      return Optional.empty();
    }
  }

  private static Routing routing(
      MeshConfig config, InjectorConfigurations configurations, List<Namespace> namespaces) {
    // a cluster whose releases predate revisions has none labelled: each is its own revision
    Revisions revisions =
        configurations.all().isEmpty() ? Revisions.unknown() : configurations.revisions();
    return new Routing(revisions, self(config), config.engine().injection(), namespaces);
  }

  private static String self(MeshConfig config) {
    try {
      return RevisionConfig.from(config).name();
    } catch (ConfigException e) {
      return RevisionConfig.SINGLE.name();
    }
  }
}
