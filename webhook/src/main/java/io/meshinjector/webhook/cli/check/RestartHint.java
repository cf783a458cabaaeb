package io.meshinjector.webhook.cli.check;

import io.meshinjector.engine.check.ProxyDrift.Workload;
import java.util.Locale;

/** How to recreate a workload's pods, so that the webhook admits them again. */
final class RestartHint {
  private RestartHint() {}

  static String of(String namespace, Workload w) {
    return switch (w.kind()) {
      case "Deployment", "StatefulSet", "DaemonSet" ->
          "kubectl -n "
              + namespace
              + " rollout restart "
              + w.kind().toLowerCase(Locale.ROOT)
              + "/"
              + w.name();
      // kubectl rolls out Deployments, StatefulSets and DaemonSets only
      case "ReplicaSet" ->
          "kubectl -n "
              + namespace
              + " delete pods of replicaset/"
              + w.name()
              + " one at a time (it belongs to no Deployment, and recreates each)";
      case "Job" ->
          "a Job's pods are not restarted: its next run is admitted anew (kubectl -n "
              + namespace
              + " delete job/"
              + w.name()
              + " and create it again to re-run it now)";
      case "Pod" ->
          "kubectl -n "
              + namespace
              + " delete pod/"
              + w.name()
              + " and create it again (it has no controller)";
      default ->
          "restart "
              + w.ref()
              + " as its controller does, or kubectl -n "
              + namespace
              + " delete its pods one at a time";
    };
  }
}
