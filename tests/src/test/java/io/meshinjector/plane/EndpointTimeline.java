package io.meshinjector.plane;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/**
 * Every change to a Service's EndpointSlices as the endpoints controller wrote it, with the time it
 * arrived: beside a failed creation's time, it shows what kube-proxy was told to route to then.
 */
public final class EndpointTimeline implements AutoCloseable {
  private final List<String> entries = new CopyOnWriteArrayList<>();
  private final List<String> withoutReady = new CopyOnWriteArrayList<>();
  private final java.util.Map<String, Instant> terminatingSince =
      new java.util.concurrent.ConcurrentHashMap<>();
  private final java.util.Map<String, Duration> servingWhileTerminating =
      new java.util.concurrent.ConcurrentHashMap<>();
  private final Watch watch;

  public EndpointTimeline(KubernetesClient admin, String namespace, String service) {
    watch =
        admin
            .discovery()
            .v1()
            .endpointSlices()
            .inNamespace(namespace)
            .withLabel("kubernetes.io/service-name", service)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, EndpointSlice slice) {
                    String entry = Instant.now() + " " + action + " " + describe(slice);
                    entries.add(entry);
                    if (action != Action.DELETED && ready(slice) == 0) {
                      withoutReady.add(entry);
                    }
                    track(slice);
                  }

                  @Override
                  public void onClose(WatcherException cause) {
                    entries.add(Instant.now() + " watch closed: " + cause);
                  }
                });
  }

  static String describe(EndpointSlice slice) {
    if (slice.getEndpoints() == null) {
      return "[]";
    }
    return slice.getEndpoints().stream()
        .map(EndpointTimeline::describe)
        .collect(Collectors.joining(", ", "[", "]"));
  }

  static String describe(Endpoint e) {
    var c = e.getConditions();
    return e.getAddresses()
        + (Boolean.TRUE.equals(c.getReady()) ? " ready" : " not-ready")
        + (Boolean.TRUE.equals(c.getServing()) ? " serving" : "")
        + (Boolean.TRUE.equals(c.getTerminating()) ? " terminating" : "");
  }

  /** For each terminating endpoint: how long it was still marked serving. */
  private void track(EndpointSlice slice) {
    Instant now = Instant.now();
    java.util.Set<String> present = new java.util.HashSet<>();
    for (Endpoint e : slice.getEndpoints() == null ? List.<Endpoint>of() : slice.getEndpoints()) {
      String address = String.join(",", e.getAddresses());
      present.add(address);
      var c = e.getConditions();
      if (Boolean.TRUE.equals(c.getTerminating())) {
        terminatingSince.putIfAbsent(address, now);
        if (!Boolean.TRUE.equals(c.getServing())) {
          servingWhileTerminating.putIfAbsent(
              address, Duration.between(terminatingSince.get(address), now));
        }
      }
    }
    // an endpoint removed while still serving counts until its removal
    for (String address : terminatingSince.keySet()) {
      if (!present.contains(address)) {
        servingWhileTerminating.putIfAbsent(
            address, Duration.between(terminatingSince.get(address), now));
      }
    }
  }

  /**
   * For each endpoint that terminated: how long after it was first marked terminating it was still
   * marked {@code serving}, the condition kube-proxy's fallback reads.
   */
  public java.util.Map<String, Duration> servingWhileTerminating() {
    return java.util.Map.copyOf(servingWhileTerminating);
  }

  static long ready(EndpointSlice slice) {
    return slice.getEndpoints() == null
        ? 0
        : slice.getEndpoints().stream()
            .filter(e -> Boolean.TRUE.equals(e.getConditions().getReady()))
            .count();
  }

  /**
   * The states in which the Service had no ready endpoint: kube-proxy then rejects new connections
   * (connection refused), or falls back to terminating endpoints still marked serving.
   */
  public List<String> withoutReadyEndpoints() {
    return List.copyOf(withoutReady);
  }

  public List<String> entries() {
    return List.copyOf(entries);
  }

  @Override
  public void close() {
    watch.close();
  }
}
