package io.meshinjector.engine.check;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.decision.Annotations;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Running injected pods whose proxy version or injected config differs from what the installed
 * release would give them now: after a {@code helm upgrade} they keep the old proxy until they are
 * recreated. Counted per namespace and workload, with the command that recreates them.
 *
 * <p>A pod's own pins are compared with what they ask, not with the release's default: a proxy
 * version pinned on the pod or its namespace ({@code config.linkerd.io/proxy-version}), an image
 * pinned on the pod that carries its own tag (Istio's {@code sidecar.istio.io/proxyImage}). A pod
 * without a recorded config digest (injected before it was recorded) counts as unknown, not as
 * drift.
 */
public final class ProxyDrift {
  public static final String GROUP = "data plane";

  /**
   * What the installed release gives a pod with no pins.
   *
   * @param proxyVersion the config's {@code proxy.version}
   * @param configDigest the digest of its injection config, as the replicas write it
   * @param proxyContainer the proxy container's name, where an image pin is compared
   * @param versionPins annotations that pin the proxy version, read on the pod, then its namespace
   * @param imagePins annotations on the pod that pin the proxy's whole image, tag included
   */
  public record Baseline(
      String proxyVersion,
      String configDigest,
      String proxyContainer,
      List<String> versionPins,
      List<String> imagePins) {
    public Baseline {
      Objects.requireNonNull(proxyVersion, "proxyVersion");
      Objects.requireNonNull(configDigest, "configDigest");
      Objects.requireNonNull(proxyContainer, "proxyContainer");
      versionPins = List.copyOf(versionPins);
      imagePins = List.copyOf(imagePins);
    }
  }

  /** The workload that recreates a pod, as {@code kubectl rollout restart} names it. */
  public record Workload(String kind, String name) {
    public String ref() {
      return kind + "/" + name;
    }
  }

  /**
   * What the check keeps of one running injected pod: a few strings, so that a cluster's pods are
   * not held.
   *
   * @param recordedVersion the proxy version the pod recorded at admission; null if none
   * @param recordedDigest the config digest it recorded; null when injected before digests
   * @param versionPin the version its own annotations pin; null when none
   * @param imagePin the image its own annotation pins; null when none
   * @param proxyImage the image its proxy container runs; null when it has none by that name
   */
  public record DataPlanePod(
      String namespace,
      Workload workload,
      String recordedVersion,
      String recordedDigest,
      String versionPin,
      String imagePin,
      String proxyImage) {}

  /**
   * One workload's pods that differ, and how.
   *
   * @param versions the recorded proxy versions that differ from what the release gives, sorted
   * @param expectedVersion what the release (or the pods' pin) gives; null when no version differs
   * @param config whether a pod recorded another config digest
   * @param imagesNotAsked images that differ from the image a pod's annotation pins, sorted
   */
  public record Drifted(
      String namespace,
      Workload workload,
      int pods,
      List<String> versions,
      String expectedVersion,
      boolean config,
      List<String> imagesNotAsked) {
    public Drifted {
      versions = List.copyOf(versions);
      imagesNotAsked = List.copyOf(imagesNotAsked);
    }
  }

  /** One workload's counts while the pods are read. */
  private static final class Tally {
    int pods;
    final TreeSet<String> versions = new TreeSet<>();
    final TreeSet<String> images = new TreeSet<>();
    String expected;
    boolean config;

    Drifted done(String namespace, Workload workload) {
      return new Drifted(
          namespace,
          workload,
          pods,
          new ArrayList<>(versions),
          expected,
          config,
          new ArrayList<>(images));
    }
  }

  /**
   * @param drifted per namespace and workload, in that order
   * @param unknown pods whose config digest is not recorded and whose version matches (or is not
   *     recorded either)
   */
  public record Report(int pods, List<Drifted> drifted, int unknown, int pinned) {}

  private ProxyDrift() {}

  /**
   * The parts of {@code pod} the check needs; empty when it was not injected, or is being deleted
   * (a rollout already replaces it: a terminating pod keeps its phase until its containers stop).
   */
  public static Optional<DataPlanePod> of(Pod pod, Baseline baseline) {
    Map<String, String> a = orEmpty(pod.getMetadata().getAnnotations());
    if (a.get(Annotations.DECISION) == null || pod.getMetadata().getDeletionTimestamp() != null) {
      return Optional.empty();
    }
    String recorded =
        a.getOrDefault(Annotations.PROXY_VERSION, a.get(Annotations.LINKERD_PROXY_VERSION));
    String versionPin = first(a, baseline.versionPins());
    String imagePin = first(a, baseline.imagePins());
    return Optional.of(
        new DataPlanePod(
            pod.getMetadata().getNamespace(),
            workload(pod),
            recorded,
            a.get(Annotations.CONFIG_DIGEST),
            versionPin,
            imagePin,
            proxyImage(pod, baseline.proxyContainer())));
  }

  /**
   * The workload that owns {@code pod}: a ReplicaSet's Deployment is read from the pod's {@code
   * pod-template-hash} label (the ReplicaSet is named {@code <deployment>-<hash>}), so no
   * ReplicaSet is listed; a ReplicaSet without that suffix is its own workload; a pod without a
   * controller is its own.
   */
  public static Workload workload(Pod pod) {
    List<OwnerReference> owners = pod.getMetadata().getOwnerReferences();
    OwnerReference controller = null;
    if (owners != null) {
      for (OwnerReference o : owners) {
        if (o != null && Boolean.TRUE.equals(o.getController())) {
          controller = o;
        }
      }
    }
    if (controller == null) {
      return new Workload("Pod", pod.getMetadata().getName());
    }
    String hash = orEmpty(pod.getMetadata().getLabels()).get("pod-template-hash");
    if ("ReplicaSet".equals(controller.getKind())
        && hash != null
        && controller.getName().endsWith("-" + hash)) {
      return new Workload(
          "Deployment",
          controller.getName().substring(0, controller.getName().length() - hash.length() - 1));
    }
    return new Workload(controller.getKind(), controller.getName());
  }

  /**
   * @param namespaceAnnotations a namespace's annotations by its name, for pins set there
   */
  public static Report assess(
      List<DataPlanePod> pods,
      Baseline baseline,
      Function<String, Map<String, String>> namespaceAnnotations) {
    Map<String, Map<Workload, Tally>> byNamespace = new TreeMap<>();
    int unknown = 0;
    int pinned = 0;
    for (DataPlanePod p : pods) {
      String nsPin =
          first(orEmpty(namespaceAnnotations.apply(p.namespace())), baseline.versionPins());
      String versionPin = p.versionPin() != null ? p.versionPin() : nsPin;
      boolean versionDrift;
      String expected;
      String imageNotAsked = null;
      if (p.imagePin() != null) {
        // the pin holds the tag: the pod runs what it asks, whatever the release's version
        pinned++;
        expected = null;
        versionDrift = p.proxyImage() != null && !p.proxyImage().equals(p.imagePin());
        if (versionDrift) {
          imageNotAsked = p.proxyImage() + " (its annotation asks " + p.imagePin() + ")";
        }
      } else {
        if (versionPin != null) {
          pinned++;
        }
        expected = versionPin != null ? versionPin : baseline.proxyVersion();
        versionDrift = p.recordedVersion() != null && !p.recordedVersion().equals(expected);
      }
      boolean configDrift =
          p.recordedDigest() != null && !p.recordedDigest().equals(baseline.configDigest());
      if (!versionDrift && !configDrift) {
        if (p.recordedDigest() == null) {
          unknown++;
        }
        continue;
      }
      Tally t =
          byNamespace
              .computeIfAbsent(
                  p.namespace(), n -> new TreeMap<>(Comparator.comparing(Workload::ref)))
              .computeIfAbsent(p.workload(), w -> new Tally());
      t.pods++;
      t.config |= configDrift;
      if (versionDrift && imageNotAsked == null) {
        t.versions.add(p.recordedVersion());
        if (t.expected == null) {
          t.expected = expected;
        }
      }
      if (imageNotAsked != null) {
        t.images.add(imageNotAsked);
      }
    }
    List<Drifted> drifted = new ArrayList<>();
    byNamespace.forEach((ns, workloads) -> workloads.forEach((w, t) -> drifted.add(t.done(ns, w))));
    return new Report(pods.size(), drifted, unknown, pinned);
  }

  /** The check's lines: one per drifted workload (capped), or one pass. */
  public static List<CheckResult> results(Report report, Baseline baseline) {
    List<CheckResult> out = new ArrayList<>();
    String summary =
        report.pods()
            + " running injected pods"
            + (report.pinned() > 0 ? ", " + report.pinned() + " pinning their proxy" : "")
            + (report.unknown() > 0
                ? ", "
                    + report.unknown()
                    + " unknown (injected before the config digest was recorded: their proxy"
                    + " version is compared, their config cannot be)"
                : "");
    if (report.drifted().isEmpty()) {
      out.add(
          CheckResult.pass(
              GROUP,
              "running injected pods have the release's proxy "
                  + baseline.proxyVersion()
                  + " and config",
              summary));
      return out;
    }
    List<Drifted> shown =
        report.drifted().subList(0, Math.min(NodeChecks.MAX_LINES, report.drifted().size()));
    for (Drifted d : shown) {
      List<String> what = new ArrayList<>();
      if (!d.versions().isEmpty()) {
        what.add(
            "proxy "
                + String.join(", ", d.versions())
                + " where the release gives "
                + d.expectedVersion());
      }
      if (!d.imagesNotAsked().isEmpty()) {
        what.add("proxy image " + String.join(", ", d.imagesNotAsked()));
      }
      if (d.config()) {
        what.add(
            "injected with another config than the release's (" + baseline.configDigest() + ")");
      }
      out.add(
          CheckResult.warn(
              GROUP,
              d.pods()
                  + " pods of "
                  + d.workload().ref()
                  + " in namespace "
                  + d.namespace()
                  + " run an outdated proxy",
              String.join("; ", what),
              fix(d.namespace(), d.workload())));
    }
    if (report.drifted().size() > shown.size()) {
      int rest = 0;
      for (Drifted d : report.drifted().subList(shown.size(), report.drifted().size())) {
        rest += d.pods();
      }
      out.add(
          CheckResult.warn(
              GROUP,
              rest
                  + " pods of "
                  + (report.drifted().size() - shown.size())
                  + " more workloads run an outdated proxy",
              "of " + summary,
              "-o json lists every workload; kubectl rollout restart each"));
    }
    return out;
  }

  /** How to recreate the workload's pods so that they are injected again. */
  static String fix(String namespace, Workload w) {
    return switch (w.kind()) {
      case "Deployment", "StatefulSet", "DaemonSet" ->
          "kubectl rollout restart "
              + w.kind().toLowerCase(Locale.ROOT)
              + "/"
              + w.name()
              + " -n "
              + namespace;
      case "Job" ->
          "a Job's pods are not restarted: the next Job gets the release's proxy; to re-run this"
              + " one now, kubectl delete job/"
              + w.name()
              + " -n "
              + namespace
              + " and create it again";
      case "Pod" ->
          "a pod without a controller: delete it and create it again (kubectl delete pod/"
              + w.name()
              + " -n "
              + namespace
              + ")";
      default ->
          "delete its pods so that "
              + w.ref()
              + " recreates them: kubectl delete pods -n "
              + namespace
              + " -l <its selector>";
    };
  }

  static String proxyImage(Pod pod, String proxyContainer) {
    if (pod.getSpec() == null) {
      return null;
    }
    for (List<Container> list :
        java.util.Arrays.asList(pod.getSpec().getInitContainers(), pod.getSpec().getContainers())) {
      for (Container c : list == null ? List.<Container>of() : list) {
        if (c != null && proxyContainer.equals(c.getName())) {
          return c.getImage();
        }
      }
    }
    return null;
  }

  private static String first(Map<String, String> annotations, List<String> keys) {
    for (String k : keys) {
      String v = annotations.get(k);
      if (v != null && !v.isBlank()) {
        return v;
      }
    }
    return null;
  }

  private static Map<String, String> orEmpty(Map<String, String> m) {
    return m == null ? Map.of() : m;
  }
}
