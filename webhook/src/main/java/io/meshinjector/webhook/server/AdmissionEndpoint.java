package io.meshinjector.webhook.server;

import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.webhook.admission.AdmissionCodec;
import io.meshinjector.webhook.admission.AdmissionReply;
import io.meshinjector.webhook.admission.AdmissionRequest;
import io.meshinjector.webhook.admission.BadRequest;
import io.meshinjector.webhook.admission.Entry;
import io.meshinjector.webhook.admission.PodAdmission;
import io.meshinjector.webhook.admission.Problems;
import io.meshinjector.webhook.admission.Staleness;
import io.meshinjector.webhook.logging.RequestContext;
import io.meshinjector.webhook.metrics.AdmissionMetrics;
import io.meshinjector.webhook.settings.WebhookSettings;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.helpers.NOPLogger;

/**
 * What {@code POST /mutate} does with a body once the server has read it: the content type, the
 * size, the decode, the {@link PodAdmission}, and the encoded answer. Blocking-free and without
 * Reactor, so {@link AdmissionHttpHandler} only moves bytes, and the warm-up and the tests run the
 * same steps in-process. Never throws from {@link #answer}.
 */
public final class AdmissionEndpoint {
  private static final Logger LOG = LoggerFactory.getLogger(AdmissionEndpoint.class);

  private final AdmissionCodec codec;
  private final PodAdmission admission;
  private final AdmissionMetrics metrics;
  private final int maxRequestBytes;
  private final Logger log;

  /** Reads and writes with {@code admission}'s codec and counts in its metrics. */
  AdmissionEndpoint(PodAdmission admission, int maxRequestBytes) {
    this(admission, maxRequestBytes, LOG);
  }

  private AdmissionEndpoint(PodAdmission admission, int maxRequestBytes, Logger log) {
    this.log = log;
    this.admission = Objects.requireNonNull(admission, "admission");
    this.codec = admission.codec();
    this.metrics = admission.metrics();
    this.maxRequestBytes = maxRequestBytes;
  }

  /**
   * The endpoint of {@code config}: its {@link PodAdmission#from admission} and its request limit.
   * The one place both are put together, for {@code serve}, the tests and the benchmark's peer.
   */
  public static AdmissionEndpoint from(
      MeshConfig config,
      Clock clock,
      Supplier<ClusterView> view,
      AdmissionMetrics metrics,
      Staleness staleness) {
    return new AdmissionEndpoint(
        PodAdmission.from(config, clock, view, metrics, staleness),
        WebhookSettings.from(config).maxRequestBytes());
  }

  /**
   * The same steps over {@code view}, counted in {@code metrics} and logging nothing: for
   * admissions that are no one's requests, such as the warm-up's.
   */
  public AdmissionEndpoint unrecorded(Supplier<ClusterView> view, AdmissionMetrics metrics) {
    return new AdmissionEndpoint(
        admission.unrecorded(view, metrics), maxRequestBytes, NOPLogger.NOP_LOGGER);
  }

  /** The largest body accepted; the server reads no more than one byte past it. */
  public int maxRequestBytes() {
    return maxRequestBytes;
  }

  /** The answer to a body the server has read (or failed to) through a route's own entry. */
  public AdmissionReply answer(String contentType, RequestBody body) {
    return answer(contentType, body, Entry.ROUTED);
  }

  /** The answer to a body the server has read (or failed to) through {@code entry}. */
  public AdmissionReply answer(String contentType, RequestBody body, Entry entry) {
    long start = System.nanoTime();
    AdmissionReply reply;
    try (RequestContext ctx = RequestContext.open()) {
      reply = reply(contentType, body, entry);
      metrics.latency(result(reply), Duration.ofNanos(System.nanoTime() - start));
      if (reply instanceof AdmissionReply.Failed f) {
        log.info("answered {}: {}", f.httpStatus(), f.message());
      }
    }
    return reply;
  }

  /**
   * The HTTP body of {@code reply} in this thread's buffer, valid until the thread encodes again.
   */
  public AdmissionCodec.Encoded encode(AdmissionReply reply) {
    return codec.encode(reply);
  }

  private AdmissionReply reply(String contentType, RequestBody body, Entry entry) {
    if (!isJson(contentType)) {
      metrics.error("unsupported-media-type");
      return AdmissionReply.unsupportedMediaType(contentType == null ? "" : contentType);
    }
    if (body instanceof RequestBody.Unreadable unreadable) {
      // the server's wording is for the log; the caller learns only that the read failed
      log.info("cannot read a request body: {}", unreadable.reason());
      metrics.error("bad-request");
      return AdmissionReply.badRequest(Problems.UNREADABLE_BODY);
    }
    if (!(body instanceof RequestBody.Read read) || read.bytes().length > maxRequestBytes) {
      metrics.error("too-large");
      return AdmissionReply.tooLarge(maxRequestBytes);
    }
    AdmissionRequest request;
    try {
      request = codec.read(read.bytes());
    } catch (BadRequest e) {
      metrics.error("bad-request");
      return AdmissionReply.badRequest(e.getMessage());
    } catch (RuntimeException e) {
      metrics.error("internal");
      log.error("cannot decode a request body", e);
      return AdmissionReply.errored(null);
    }
    return admission.admit(request, entry);
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
}
