package io.meshinjector.webhook.http;

import io.meshinjector.webhook.logging.RequestContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /mutate}. Takes the raw body rather than a bound object: the body is decoded by the
 * one fabric8-aware mapper, under the configured size and read limits. Writes the answer itself,
 * inside the request's logging context, so that a failure to read or to answer is logged with the
 * request's UID, namespace and pod.
 */
@RestController
public class AdmissionController {
  private static final Logger LOG = LoggerFactory.getLogger(AdmissionController.class);

  private final AdmissionService service;

  public AdmissionController(AdmissionService service) {
    this.service = Objects.requireNonNull(service, "service");
  }

  @PostMapping("/mutate")
  public void mutate(HttpServletRequest request, HttpServletResponse response) {
    try (RequestContext ctx = RequestContext.open()) {
      int status;
      AdmissionCodec.Encoded body;
      InputStream in = null;
      try {
        in = request.getInputStream();
        AdmissionReply reply =
            service.handle(request.getContentType(), request.getContentLengthLong(), in);
        body = service.codec().encode(reply);
        status = reply.httpStatus();
      } catch (IOException | RuntimeException e) {
        // the service answers everything; this is only reached when the connection itself fails
        LOG.warn("cannot answer a request: {}", e.toString());
        status = 500;
        body = AdmissionCodec.lastResort();
      }
      // apart: the answer is already decided, and a body that fails to close must not turn an
      // admitted pod into a 500 the API server would refuse it for
      close(in);
      send(response, status, body);
    }
  }

  private static void close(InputStream in) {
    if (in == null) {
      return;
    }
    try {
      in.close();
    } catch (IOException | RuntimeException e) {
      LOG.warn("cannot close the request body: {}", e.toString());
    }
  }

  private static void send(HttpServletResponse response, int status, AdmissionCodec.Encoded body) {
    try {
      response.setStatus(status);
      response.setContentType(MediaType.APPLICATION_JSON_VALUE);
      response.setContentLength(body.length());
      OutputStream out = response.getOutputStream();
      out.write(body.bytes(), 0, body.length());
      // flushed here, not by the container after the context is gone, so a failure is logged here
      out.flush();
    } catch (IOException | RuntimeException e) {
      LOG.warn("cannot send the answer ({}): {}", status, e.toString());
    }
  }
}
