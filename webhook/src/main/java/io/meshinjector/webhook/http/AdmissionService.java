package io.meshinjector.webhook.http;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.Outcome;
import io.meshinjector.webhook.logging.RequestContext;
import io.meshinjector.webhook.metrics.AdmissionMetrics;
import io.meshinjector.webhook.mutation.InjectionPipeline;
import io.meshinjector.webhook.mutation.PodShape;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.helpers.NOPLogger;

/**
 * Answers one {@code POST /mutate}: transport checks, decode, decide, render, answer. Never throws:
 * whatever goes wrong becomes an {@link AdmissionReply}, so one bad request cannot take the
 * server's thread or the server down.
 */
public final class AdmissionService {
  private static final Logger LOG = LoggerFactory.getLogger(AdmissionService.class);

  private final AdmissionCodec codec;
  private final InjectionPipeline pipeline;
  private final Supplier<ClusterView> view;
  private final AdmissionMetrics metrics;
  private final int maxRequestBytes;
  private final Staleness staleness;
  private final PodLimits podLimits;
  private final Logger log;

  public AdmissionService(
      AdmissionCodec codec,
      InjectionPipeline pipeline,
      Supplier<ClusterView> view,
      AdmissionMetrics metrics,
      int maxRequestBytes,
      PodLimits podLimits) {
    this(codec, pipeline, view, metrics, maxRequestBytes, podLimits, Staleness.never());
  }

  public AdmissionService(
      AdmissionCodec codec,
      InjectionPipeline pipeline,
      Supplier<ClusterView> view,
      AdmissionMetrics metrics,
      int maxRequestBytes,
      PodLimits podLimits,
      Staleness staleness) {
    this(codec, pipeline, view, metrics, maxRequestBytes, podLimits, staleness, LOG);
  }

  private AdmissionService(
      AdmissionCodec codec,
      InjectionPipeline pipeline,
      Supplier<ClusterView> view,
      AdmissionMetrics metrics,
      int maxRequestBytes,
      PodLimits podLimits,
      Staleness staleness,
      Logger log) {
    this.log = log;
    this.staleness = Objects.requireNonNull(staleness, "staleness");
    this.codec = Objects.requireNonNull(codec, "codec");
    this.pipeline = Objects.requireNonNull(pipeline, "pipeline");
    this.view = Objects.requireNonNull(view, "view");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.maxRequestBytes = maxRequestBytes;
    this.podLimits = Objects.requireNonNull(podLimits, "podLimits");
  }

  /**
   * This service's admission path (codec, limits, pipeline) over {@code view}, counted in {@code
   * metrics} instead of this one's and logging nothing: admissions that are no one's requests, such
   * as the warm-up before readiness, stay out of what an operator reads.
   */
  public AdmissionService unrecorded(Supplier<ClusterView> view, AdmissionMetrics metrics) {
    return new AdmissionService(
        codec,
        pipeline,
        view,
        metrics,
        maxRequestBytes,
        podLimits,
        Staleness.never(),
        NOPLogger.NOP_LOGGER);
  }

  public AdmissionCodec codec() {
    return codec;
  }

  /** The largest body accepted; a server reads no more than one byte past it. */
  public int maxRequestBytes() {
    return maxRequestBytes;
  }

  /**
   * @param declaredLength the Content-Length, or -1 when the body is chunked
   */
  public AdmissionReply handle(String contentType, long declaredLength, InputStream body) {
    return handle(contentType, read(declaredLength, body));
  }

  /** The same, for a body the server has already read (or failed to). */
  public AdmissionReply handle(String contentType, RequestBody body) {
    long start = System.nanoTime();
    AdmissionReply reply;
    try (RequestContext ctx = RequestContext.open()) {
      reply = answer(ctx, contentType, body);
      String result = result(reply);
      metrics.latency(result, Duration.ofNanos(System.nanoTime() - start));
      if (reply instanceof AdmissionReply.Failed f) {
        log.info("answered {}: {}", f.httpStatus(), f.message());
      }
    }
    return reply;
  }

  private AdmissionReply answer(RequestContext ctx, String contentType, RequestBody body) {
    if (!isJson(contentType)) {
      metrics.error("unsupported-media-type");
      return AdmissionReply.unsupportedMediaType(contentType == null ? "" : contentType);
    }
    if (body instanceof RequestBody.Unreadable unreadable) {
      // the server's wording is for the log; the caller learns only that the read failed
      log.info("cannot read a request body: {}", unreadable.reason());
      metrics.error("bad-request");
      return AdmissionReply.badRequest("the body cannot be read");
    }
    if (!(body instanceof RequestBody.Read read) || read.bytes().length > maxRequestBytes) {
      metrics.error("too-large");
      return AdmissionReply.tooLarge(maxRequestBytes);
    }
    byte[] bytes = read.bytes();
    AdmissionRequest request;
    try {
      request = codec.read(bytes);
    } catch (AdmissionCodec.BadRequest e) {
      metrics.error("bad-request");
      return AdmissionReply.badRequest(e.getMessage());
    } catch (RuntimeException e) {
      metrics.error("internal");
      log.error("cannot decode a request body", e);
      return AdmissionReply.errored(null);
    }
    ctx.uid(request.uid()).namespace(request.namespace()).pod(request.name());
    try {
      return admit(ctx, request);
    } catch (AdmissionCodec.BadRequest e) {
      metrics.error("bad-request");
      return AdmissionReply.badRequest(e.getMessage());
    } catch (RuntimeException | Error e) {
      if (e instanceof VirtualMachineError && !(e instanceof StackOverflowError)) {
        throw (Error) e;
      }
      metrics.error("internal");
      log.error("admission failed", e);
      return AdmissionReply.errored(request.uid());
    }
  }

  private AdmissionReply admit(RequestContext ctx, AdmissionRequest request) {
    if (!request.isPodCreate()) {
      log.debug(
          "allowed without a look: {} {} {}", request.operation(), request.kind(), request.name());
      return AdmissionReply.allowed(request);
    }
    if (request.object() == null || !request.object().isObject()) {
      throw new AdmissionCodec.BadRequest("the Pod CREATE request has no object");
    }
    // before the pod is bound or walked: an oversized one costs no more than this count
    Optional<String> overLimit = podLimits.problem(request.object());
    if (overLimit.isPresent()) {
      throw new AdmissionCodec.BadRequest("request.object is over a limit: " + overLimit.get());
    }
    Pod pod = codec.pod(request.object());
    Optional<String> problem = PodShape.problem(request.object());
    if (problem.isPresent()) {
      throw new AdmissionCodec.BadRequest("request.object is not a valid Pod: " + problem.get());
    }
    ObjectMeta meta = pod.getMetadata() == null ? new ObjectMeta() : pod.getMetadata();
    pod.setMetadata(meta);
    if (meta.getNamespace() == null || meta.getNamespace().isEmpty()) {
      // the API server leaves it out of the object when it comes from the request path
      meta.setNamespace(request.namespace());
    }
    if (meta.getNamespace() == null || meta.getNamespace().isEmpty()) {
      throw new AdmissionCodec.BadRequest("the Pod has no namespace, nor has the request");
    }
    String podName = podName(meta, request);
    ctx.namespace(meta.getNamespace()).pod(podName);

    InjectionPipeline.Result result =
        pipeline.run(workload(meta, podName), request.object(), pod, view.get());
    Decision decision = result.decision();
    metrics.decision(decision);
    List<String> warnings = new ArrayList<>(decision.warnings());
    staleness.warning().ifPresent(warnings::add);
    Map<String, String> audit =
        Map.of("decision", decision.summary(), "outcome", decision.outcomeCode());
    if (decision.outcome() instanceof Outcome.Refuse refuse) {
      log.info("refused ({}): {}", refuse.reason().code(), refuse.message());
      return AdmissionReply.refused(
          request, refuse.reason().code(), refuse.message(), warnings, audit);
    }
    if (decision.outcome() instanceof Outcome.Skip skip) {
      if (!result.patch().isEmpty()) {
        log.info(
            "completed containers added after injection ({} patch operations)",
            result.patch().size());
        return AdmissionReply.patched(request, result.patch(), warnings, audit);
      }
      log.info("admitted without injection ({}): {}", skip.reason().code(), skip.message());
      return AdmissionReply.allowed(request, warnings, audit);
    }
    log.info("injected: {} ({} patch operations)", decision.summary(), result.patch().size());
    return AdmissionReply.patched(request, result.patch(), warnings, audit);
  }

  /** The name for logs: a ReplicaSet's pods have only a generateName at admission. */
  private static String podName(ObjectMeta meta, AdmissionRequest request) {
    if (meta.getName() != null && !meta.getName().isEmpty()) {
      return meta.getName();
    }
    if (meta.getGenerateName() != null && !meta.getGenerateName().isEmpty()) {
      return meta.getGenerateName() + "*";
    }
    return request.name().isEmpty() ? "-" : request.name();
  }

  /** {@code namespace/Kind/name} of the controller that made the pod, else of the pod itself. */
  static String workload(ObjectMeta meta, String podName) {
    if (meta.getOwnerReferences() != null) {
      for (OwnerReference owner : meta.getOwnerReferences()) {
        if (Boolean.TRUE.equals(owner.getController())) {
          return meta.getNamespace() + "/" + owner.getKind() + "/" + owner.getName();
        }
      }
    }
    return meta.getNamespace() + "/Pod/" + podName;
  }

  /** Reads a body from a stream under the size limit (the CLI, tests, a blocking server). */
  private RequestBody read(long declaredLength, InputStream body) {
    try {
      return RequestBody.of(readLimited(declaredLength, body));
    } catch (TooLarge e) {
      return RequestBody.TOO_LARGE;
    } catch (IOException e) {
      return RequestBody.unreadable(e);
    }
  }

  private byte[] readLimited(long declaredLength, InputStream body) throws IOException {
    if (declaredLength > maxRequestBytes) {
      drain(body);
      throw new TooLarge();
    }
    if (declaredLength >= 0) {
      // the usual case: one array of the declared size, not a growing one copied at the end
      byte[] bytes = new byte[(int) declaredLength];
      int read = body.readNBytes(bytes, 0, bytes.length);
      if (read < bytes.length) {
        throw new IOException(
            "the body ended after " + read + " of its " + declaredLength + " declared bytes");
      }
      return bytes;
    }
    // one byte past the limit tells "exactly at the limit" from "over it" on a chunked body
    byte[] bytes = body.readNBytes(maxRequestBytes + 1);
    if (bytes.length > maxRequestBytes) {
      drain(body);
      throw new TooLarge();
    }
    return bytes;
  }

  /**
   * Reads and drops what is left of an oversized body, up to a bound, so the client reads the 413
   * instead of a reset connection; past the bound the connection is given up.
   */
  private void drain(InputStream body) {
    try {
      long left = 8L * maxRequestBytes;
      byte[] buffer = new byte[8192];
      int n;
      while (left > 0 && (n = body.read(buffer, 0, (int) Math.min(buffer.length, left))) > 0) {
        left -= n;
      }
    } catch (IOException e) {
      // the client went away; the 413 is still the answer
    }
  }

  private static boolean isJson(String contentType) {
    if (contentType == null) {
      return false;
    }
    String mediaType = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    return mediaType.equals("application/json");
  }

  private static String result(AdmissionReply reply) {
    if (reply instanceof AdmissionReply.Failed) {
      return "failed";
    }
    if (reply instanceof AdmissionReply.Refused) {
      return "refused";
    }
    return reply instanceof AdmissionReply.Patched ? "patched" : "allowed";
  }

  private static final class TooLarge extends IOException {
    TooLarge() {
      super("too large", null);
    }
  }
}
