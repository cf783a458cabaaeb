package io.meshinjector.webhook.cli;

import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.webhook.cli.snapshot.ClusterDetection;
import io.meshinjector.webhook.cli.snapshot.KubeconfigCluster;
import io.meshinjector.webhook.cli.snapshot.WithRevisions;
import java.io.PrintWriter;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --kubeconfig}, for inject and explain: where the live cluster is, when no file says. */
public final class KubeconfigOptions {
  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description =
          "Read the cluster view (and, for explain -n, the workloads) from the cluster this"
              + " kubeconfig names. Without it and without --cluster: the in-cluster service"
              + " account, then KUBECONFIG, then ~/.kube/config, as kubectl finds them.")
  Path kubeconfig;

  KubeconfigCluster connect() {
    return KubeconfigCluster.connect(kubeconfig, ClusterDetection.Environment.system());
  }

  /**
   * The view inject and explain decide on: the {@code --cluster} files, else the live cluster, read
   * once (its notes to {@code err}).
   */
  ClusterView view(SourceOptions sources, MeshConfig config, PrintWriter err) {
    if (!sources.clusterFiles().isEmpty()) {
      return sources.view(config);
    }
    try (KubeconfigCluster live = connect()) {
      return view(sources, config, err, live);
    }
  }

  /** As {@link #view(SourceOptions, MeshConfig, PrintWriter)}, on a cluster already connected. */
  ClusterView view(
      SourceOptions sources, MeshConfig config, PrintWriter err, KubeconfigCluster live) {
    if (!sources.clusterFiles().isEmpty()) {
      return sources.view(config);
    }
    return live.view(config.engine().capabilities(), err);
  }

  /**
   * As {@link #view(SourceOptions, MeshConfig, PrintWriter)}, with the cluster's revisions and tags
   * when it is the live cluster, for explain's route; the {@code --cluster} files hold none.
   */
  ClusterView viewWithRevisions(SourceOptions sources, MeshConfig config, PrintWriter err) {
    if (!sources.clusterFiles().isEmpty()) {
      return sources.view(config);
    }
    try (KubeconfigCluster live = connect()) {
      return viewWithRevisions(sources, config, err, live);
    }
  }

  /** As above, on a cluster already connected. */
  ClusterView viewWithRevisions(
      SourceOptions sources, MeshConfig config, PrintWriter err, KubeconfigCluster live) {
    if (!sources.clusterFiles().isEmpty()) {
      return sources.view(config);
    }
    return new WithRevisions(live.view(config.engine().capabilities(), err), live.revisions(err));
  }
}
