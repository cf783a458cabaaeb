package io.meshinjector.webhook.probe;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.meshinjector.engine.repair.Breakage;
import io.meshinjector.engine.repair.BrokenRedirect;
import io.meshinjector.engine.repair.RepairAction;
import io.meshinjector.engine.repair.RepairLedger;
import io.meshinjector.engine.repair.RepairOutcome;
import io.meshinjector.engine.repair.RepairSettings;
import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The per-node repair (docs/operations.md, "Repair"): watches the pods bound to this node only (a
 * field selector on {@code spec.nodeName}, so one probe's cache and traffic follow its node's pod
 * count, never the cluster's), finds injected pods whose redirect step failed ({@link
 * BrokenRedirect}), and replaces or reports them as the {@link RepairLedger} decides: a delete with
 * a UID precondition, an Event on the pod, and {@code mesh_injector_repairs_total}.
 *
 * <p>The API server, not this class, keeps the delete to this node: the chart's
 * ValidatingAdmissionPolicy refuses a delete by the probe's ServiceAccount of a pod whose {@code
 * spec.nodeName} is not the node in the probe's pod-bound token.
 */
public final class PodRepair implements AutoCloseable {
  /** The Event's reporting component. */
  public static final String COMPONENT = "mesh-injector-repair";

  private final KubernetesClient client;
  private final String node;
  private final RepairSettings settings;
  private final RepairMetrics metrics;
  private final Clock clock;
  private final PrintWriter log;

  /**
   * How often the informer hands every cached pod back: a rate-limited or backed-off pod whose
   * status does not change is looked at again within this long ({@code --repair-resync}).
   */
  private final Duration resync;

  private final AtomicLong received = new AtomicLong();
  private RepairLedger ledger = RepairLedger.empty();
  private SharedIndexInformer<Pod> informer;

  public PodRepair(
      KubernetesClient client,
      String node,
      RepairSettings settings,
      RepairMetrics metrics,
      Clock clock,
      PrintWriter log,
      Duration resync) {
    this.client = Objects.requireNonNull(client, "client");
    this.node = Objects.requireNonNull(node, "node");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.log = Objects.requireNonNull(log, "log");
    this.resync = Objects.requireNonNull(resync, "resync");
    if (resync.isNegative() || resync.isZero()) {
      throw new IllegalArgumentException("the repair's resync must be positive, not " + resync);
    }
  }

  /** Starts the watch of this node's pods; returns at once (the informer syncs in background). */
  public PodRepair start() {
    informer =
        client
            .pods()
            .inAnyNamespace()
            .withField("spec.nodeName", node)
            .runnableInformer(resync.toMillis());
    informer.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod pod) {
            received.incrementAndGet();
            consider(pod);
          }

          @Override
          public void onUpdate(Pod before, Pod pod) {
            // the informer's resyncs hand back the same object: not received from the server
            if (before != pod) {
              received.incrementAndGet();
            }
            consider(pod);
          }

          @Override
          public void onDelete(Pod pod, boolean finalStateUnknown) {
            received.incrementAndGet();
            forget(pod);
          }
        });
    // a refused list (RBAC not matching the mode, an API server away) is named and retried: the
    // probe's NodeCapability loop goes on meanwhile
    informer.exceptionHandler(
        (started, t) -> {
          log(
              "the watch of node "
                  + node
                  + "'s pods failed, retrying: "
                  + (t instanceof KubernetesClientException k && k.getCode() == 403
                      ? "forbidden (does the chart's probe.repair.mode match --repair?): "
                      : "")
                  + t.getMessage());
          return true;
        });
    metrics.watch(this::watched, received::get);
    informer.start();
    log("watching the pods of node " + node + " (repair mode " + settings.mode().id() + ")");
    return this;
  }

  /** How many pods the watch holds: its node's, whatever the cluster's count. */
  public int watched() {
    return informer == null ? 0 : informer.getStore().list().size();
  }

  synchronized void consider(Pod pod) {
    Optional<Breakage> broken = BrokenRedirect.find(pod);
    if (broken.isEmpty()) {
      return;
    }
    Instant now = clock.instant();
    RepairLedger.Step step = ledger.decide(broken.get(), settings, now);
    ledger = step.ledger();
    if (step.action() instanceof RepairAction.Report r) {
      log(r.breakage(), r.outcome().id() + ": " + r.event());
      event(r.breakage(), r.outcome(), r.event(), now);
      metrics.count(r.breakage().flavour(), r.outcome());
    } else if (step.action() instanceof RepairAction.Replace r) {
      replace(r, now);
    }
  }

  private void replace(RepairAction.Replace r, Instant now) {
    Breakage b = r.breakage();
    RepairOutcome outcome;
    String event = r.event();
    try {
      outcome = delete(b) ? RepairOutcome.REPLACED : RepairOutcome.GONE;
    } catch (KubernetesClientException e) {
      outcome = RepairOutcome.FAILED;
      ledger = ledger.failed(b);
      event =
          b.what()
              + " on node "
              + node
              + ": the pod's traffic redirect is not in place, and deleting it failed (HTTP "
              + e.getCode()
              + "): "
              + e.getMessage();
    }
    log(b, outcome.id() + ": " + event);
    if (outcome != RepairOutcome.GONE) {
      event(b, outcome, event, now);
    }
    metrics.count(b.flavour(), outcome);
  }

  /**
   * DELETE with {@code preconditions.uid}: the pod this probe judged, never a pod of the same name
   * created since (a StatefulSet's). fabric8's delete DSL sends a resourceVersion precondition at
   * most, so the DeleteOptions body is written here. The pod's own grace period applies: none of
   * its app containers ran, and a StatefulSet pod must be gone before its successor starts.
   *
   * @return true when deleted, false when it was gone or its UID no longer matched
   * @throws KubernetesClientException when the API server refused the delete (the policy, RBAC)
   */
  boolean delete(Breakage b) {
    String url =
        client.getMasterUrl().toString().replaceAll("/+$", "")
            + "/api/v1/namespaces/"
            + URLEncoder.encode(b.namespace(), StandardCharsets.UTF_8)
            + "/pods/"
            + URLEncoder.encode(b.pod(), StandardCharsets.UTF_8);
    String body =
        "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"preconditions\":{\"uid\":\""
            + b.podUid()
            + "\"}}";
    HttpRequest request =
        client
            .getHttpClient()
            .newHttpRequestBuilder()
            .uri(url)
            .header("Accept", "application/json")
            .delete("application/json", body)
            .build();
    HttpResponse<String> response;
    try {
      response = client.getHttpClient().sendAsync(request, String.class).get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KubernetesClientException("interrupted while deleting " + b.pod());
    } catch (Exception e) {
      throw new KubernetesClientException("deleting " + b.pod() + ": " + e.getMessage(), e);
    }
    if (response.isSuccessful()) {
      return true;
    }
    // 404: gone already; 409: the UID precondition failed, a new pod holds the name
    if (response.code() == 404 || response.code() == 409) {
      return false;
    }
    throw new KubernetesClientException(statusMessage(response.body()), response.code(), null);
  }

  private static String statusMessage(String body) {
    try {
      var status =
          io.fabric8.kubernetes.client.utils.Serialization.unmarshal(
              body, io.fabric8.kubernetes.api.model.Status.class);
      return status.getMessage() == null ? body : status.getMessage();
    } catch (RuntimeException e) {
      return body;
    }
  }

  private void event(Breakage b, RepairOutcome outcome, String message, Instant now) {
    String time =
        DateTimeFormatter.ISO_INSTANT.format(
            now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
    Event e =
        new EventBuilder()
            .withNewMetadata()
            .withGenerateName(b.pod() + ".")
            .withNamespace(b.namespace())
            .endMetadata()
            .withNewInvolvedObject()
            .withApiVersion("v1")
            .withKind("Pod")
            .withNamespace(b.namespace())
            .withName(b.pod())
            .withUid(b.podUid())
            .endInvolvedObject()
            .withType("Warning")
            .withReason(outcome.reason())
            .withMessage(message.length() > 1000 ? message.substring(0, 999) + "…" : message)
            .withNewSource()
            .withComponent(COMPONENT)
            .withHost(node)
            .endSource()
            .withReportingComponent(COMPONENT)
            .withReportingInstance(node)
            .withAction(outcome == RepairOutcome.REPLACED ? "Delete" : "Report")
            .withFirstTimestamp(time)
            .withLastTimestamp(time)
            .withCount(1)
            .build();
    try {
      client.v1().events().inNamespace(b.namespace()).resource(e).create();
    } catch (KubernetesClientException ex) {
      // the Event is the report, but a refused one must not stop the repair
      log(b, "could not record the Event (" + ex.getCode() + "): " + ex.getMessage());
    }
  }

  private synchronized void forget(Pod pod) {
    if (pod.getMetadata() != null && pod.getMetadata().getUid() != null) {
      ledger = ledger.forget(pod.getMetadata().getUid());
    }
  }

  private void log(Breakage b, String line) {
    log.println(
        "repair node="
            + node
            + " namespace="
            + b.namespace()
            + " pod="
            + b.pod()
            + " uid="
            + b.podUid()
            + ": "
            + line);
    log.flush();
  }

  private void log(String line) {
    log.println("repair node=" + node + ": " + line);
    log.flush();
  }

  @Override
  public void close() {
    if (informer != null) {
      informer.close();
    }
  }
}
