package io.meshinjector.plane;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/**
 * A Service's endpoints as the endpoints controller publishes them (its EndpointSlices, read every
 * 200 ms), each change with the time it was seen: beside a failed creation's time, it shows what
 * kube-proxy was told to route to then.
 */
public final class EndpointTimeline implements AutoCloseable {
  private final KubernetesClient admin;
  private final String namespace;
  private final String service;
  private final List<String> entries = new CopyOnWriteArrayList<>();
  private final List<String> withoutReady = new CopyOnWriteArrayList<>();
  private final Map<String, Instant> terminatingSince = new ConcurrentHashMap<>();
  private final Map<String, Duration> servingWhileTerminating = new ConcurrentHashMap<>();
  private final Thread reader;
  private volatile boolean open = true;

  public EndpointTimeline(KubernetesClient admin, String namespace, String service) {
    this.admin = admin;
    this.namespace = namespace;
    this.service = service;
    reader = new Thread(this::read, "endpoints-" + service);
    reader.setDaemon(true);
    reader.start();
  }

  private void read() {
    String last = null;
    while (open) {
      try {
        List<Endpoint> endpoints =
            admin
                .discovery()
                .v1()
                .endpointSlices()
                .inNamespace(namespace)
                .withLabel("kubernetes.io/service-name", service)
                .list()
                .getItems()
                .stream()
                .map(EndpointSlice::getEndpoints)
                .filter(java.util.Objects::nonNull)
                .flatMap(List::stream)
                .toList();
        String state =
            endpoints.stream()
                .map(EndpointTimeline::describe)
                .sorted()
                .collect(Collectors.joining(", ", "[", "]"));
        if (!state.equals(last)) {
          Instant now = Instant.now();
          String entry = now + " " + state;
          entries.add(entry);
          if (endpoints.stream()
              .noneMatch(e -> Boolean.TRUE.equals(e.getConditions().getReady()))) {
            withoutReady.add(entry);
          }
          track(endpoints, now);
          last = state;
        }
        Thread.sleep(200);
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        entries.add(Instant.now() + " cannot read the EndpointSlices: " + e);
      }
    }
  }

  static String describe(Endpoint e) {
    var c = e.getConditions();
    return e.getAddresses()
        + (Boolean.TRUE.equals(c.getReady()) ? " ready" : " not-ready")
        + (Boolean.TRUE.equals(c.getServing()) ? " serving" : "")
        + (Boolean.TRUE.equals(c.getTerminating()) ? " terminating" : "");
  }

  /** For each terminating endpoint: how long it was still marked serving. */
  private void track(List<Endpoint> endpoints, Instant now) {
    Set<String> present = new HashSet<>();
    for (Endpoint e : endpoints) {
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
    for (Map.Entry<String, Instant> t : terminatingSince.entrySet()) {
      if (!present.contains(t.getKey())) {
        servingWhileTerminating.putIfAbsent(t.getKey(), Duration.between(t.getValue(), now));
      }
    }
  }

  /**
   * For each endpoint that terminated: how long after it was first seen terminating it was still
   * marked {@code serving}, the condition kube-proxy's fallback reads.
   */
  public Map<String, Duration> servingWhileTerminating() {
    return Map.copyOf(servingWhileTerminating);
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
  public void close() throws InterruptedException {
    open = false;
    reader.interrupt();
    reader.join(5000);
  }
}
