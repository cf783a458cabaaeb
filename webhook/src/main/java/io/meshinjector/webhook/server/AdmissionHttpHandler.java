package io.meshinjector.webhook.server;

import io.meshinjector.webhook.admission.AdmissionCodec;
import io.meshinjector.webhook.admission.AdmissionReply;
import io.meshinjector.webhook.admission.Entry;
import io.meshinjector.webhook.logging.RequestContext;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import reactor.core.publisher.Mono;

/**
 * The HTTPS port: {@code POST /mutate} (a route's own entries), {@code POST /mutate/unrouted} (the
 * catch-all entry, see {@link Entry}), {@code GET /healthz} and {@code GET /readyz}, and nothing
 * else. A plain handler rather than WebFlux's dispatcher: four fixed routes need no mapping,
 * argument resolution or codecs, and each admission runs on the event loop that read it, since it
 * is CPU work of well under a millisecond with no blocking call in it.
 *
 * <p>The body is read whole, and no more of it than {@code maxRequestBytes} plus one byte, before
 * {@link AdmissionEndpoint} sees it; a body that stalls is cut off by the server's read timeout.
 * Nothing escapes as an error: the endpoint answers every request, and what fails after it (the
 * connection) is logged with the request's UID, namespace and pod.
 */
public final class AdmissionHttpHandler implements HttpHandler {
  private static final Logger LOG = LoggerFactory.getLogger(AdmissionHttpHandler.class);

  private final AdmissionEndpoint endpoint;
  private final HealthProbes health;

  public AdmissionHttpHandler(AdmissionEndpoint endpoint, HealthProbes health) {
    this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
    this.health = Objects.requireNonNull(health, "health");
  }

  @Override
  public Mono<Void> handle(ServerHttpRequest request, ServerHttpResponse response) {
    Mono<Void> answered;
    try {
      answered = route(request, response);
    } catch (RuntimeException e) {
      answered = Mono.error(e);
    }
    // the endpoint answers everything; this is a bug's last stop, not a path for bad input
    return answered.onErrorResume(
        e -> {
          LOG.error("cannot answer {} {}", request.getMethod(), request.getPath().value(), e);
          return response.isCommitted()
              ? Mono.empty()
              : text(response, HttpStatus.INTERNAL_SERVER_ERROR, "internal error\n");
        });
  }

  private Mono<Void> route(ServerHttpRequest request, ServerHttpResponse response) {
    String path = request.getPath().pathWithinApplication().value();
    HttpMethod method = request.getMethod();
    switch (path) {
      case "/mutate":
        if (HttpMethod.POST.equals(method)) {
          return mutate(request, response, Entry.ROUTED);
        }
        return notAllowed(response, HttpMethod.POST);
      case "/mutate/unrouted":
        if (HttpMethod.POST.equals(method)) {
          return mutate(request, response, Entry.UNROUTED);
        }
        return notAllowed(response, HttpMethod.POST);
      case "/healthz":
        return probe(response, method, health.liveness());
      case "/readyz":
        return probe(response, method, health.readiness());
      default:
        return text(response, HttpStatus.NOT_FOUND, "not found: " + path + "\n");
    }
  }

  private Mono<Void> mutate(ServerHttpRequest request, ServerHttpResponse response, Entry entry) {
    HttpHeaders headers = request.getHeaders();
    String contentType = headers.getFirst(HttpHeaders.CONTENT_TYPE);
    long declared = headers.getContentLength();
    int maxRequestBytes = endpoint.maxRequestBytes();
    if (declared > maxRequestBytes) {
      // not read at all: the server drops or drains the rest once the 413 is sent
      return answer(response, admit(contentType, RequestBody.TOO_LARGE, entry));
    }
    // one byte past the limit tells "exactly at the limit" from "over it" on a chunked body
    return DataBufferUtils.join(request.getBody(), maxRequestBytes + 1)
        .map(AdmissionHttpHandler::bytes)
        .map(RequestBody::of)
        .defaultIfEmpty(RequestBody.EMPTY)
        .onErrorResume(DataBufferLimitException.class, e -> Mono.just(RequestBody.TOO_LARGE))
        .onErrorResume(e -> Mono.just(RequestBody.unreadable(e)))
        .flatMap(body -> answer(response, admit(contentType, body, entry)));
  }

  /** The reply, and the request's logging context as the endpoint left it, for what fails later. */
  private record Answered(AdmissionReply reply, RequestContext.Snapshot context) {}

  private Answered admit(String contentType, RequestBody body, Entry entry) {
    try (RequestContext ctx = RequestContext.open()) {
      AdmissionReply reply = endpoint.answer(contentType, body, entry);
      return new Answered(reply, ctx.snapshot());
    }
  }

  private static byte[] bytes(DataBuffer buffer) {
    try {
      byte[] bytes = new byte[buffer.readableByteCount()];
      buffer.read(bytes);
      return bytes;
    } finally {
      DataBufferUtils.release(buffer);
    }
  }

  private Mono<Void> answer(ServerHttpResponse response, Answered answered) {
    AdmissionCodec.Encoded body;
    int status;
    try {
      body = endpoint.encode(answered.reply());
      status = answered.reply().httpStatus();
    } catch (RuntimeException e) {
      try (RequestContext ctx = answered.context().reopen()) {
        LOG.error("cannot encode the answer", e);
      }
      body = AdmissionCodec.lastResort();
      status = 500;
    }
    response.setRawStatusCode(status);
    response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
    response.getHeaders().setContentLength(body.length());
    // copied: the codec's array is its thread's buffer, reused by the next answer
    DataBuffer out = response.bufferFactory().allocateBuffer(body.length());
    out.write(body.bytes(), 0, body.length());
    int sent = status;
    return response
        .writeWith(Mono.just(out))
        .onErrorResume(
            e -> {
              try (RequestContext ctx = answered.context().reopen()) {
                LOG.warn("cannot send the answer ({}): {}", sent, e.toString());
              }
              return Mono.empty();
            });
  }

  private static Mono<Void> probe(
      ServerHttpResponse response, HttpMethod method, HealthProbes.Result result) {
    // GET only: without WebFlux's dispatcher nothing would strip the body from a HEAD answer
    if (!HttpMethod.GET.equals(method)) {
      return notAllowed(response, HttpMethod.GET);
    }
    return text(
        response, result.ok() ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE, result.text());
  }

  private static Mono<Void> notAllowed(ServerHttpResponse response, HttpMethod allowed) {
    response.getHeaders().setAllow(Set.of(allowed));
    return text(
        response, HttpStatus.METHOD_NOT_ALLOWED, "method not allowed; use " + allowed + "\n");
  }

  private static Mono<Void> text(ServerHttpResponse response, HttpStatus status, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    response.setStatusCode(status);
    response.getHeaders().setContentType(MediaType.TEXT_PLAIN);
    response.getHeaders().setContentLength(bytes.length);
    return response
        .writeWith(Mono.just(response.bufferFactory().wrap(bytes)))
        .onErrorResume(
            e -> {
              LOG.debug("cannot send a {} answer: {}", status.value(), e.toString());
              return Mono.empty();
            });
  }
}
