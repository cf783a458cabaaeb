package io.meshinjector.webhook.http;

import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /mutate}. Takes the raw body rather than a bound object: the body is decoded by the
 * one fabric8-aware mapper, under the configured size and read limits.
 */
@RestController
public class AdmissionController {
  private static final Logger LOG = LoggerFactory.getLogger(AdmissionController.class);
  private static final byte[] LAST_RESORT =
      ("{\"apiVersion\":\"v1\",\"kind\":\"Status\",\"status\":\"Failure\","
              + "\"reason\":\"InternalError\",\"code\":500}")
          .getBytes(StandardCharsets.UTF_8);

  private final AdmissionService service;

  public AdmissionController(AdmissionService service) {
    this.service = Objects.requireNonNull(service, "service");
  }

  @PostMapping("/mutate")
  public ResponseEntity<byte[]> mutate(HttpServletRequest request) {
    try (InputStream body = request.getInputStream()) {
      AdmissionReply reply =
          service.handle(request.getContentType(), request.getContentLengthLong(), body);
      return ResponseEntity.status(reply.httpStatus())
          .contentType(MediaType.APPLICATION_JSON)
          .body(service.codec().write(reply));
    } catch (IOException | RuntimeException e) {
      // the service answers everything; this is only reached when the connection itself fails
      LOG.warn("cannot answer a request: {}", e.toString());
      return ResponseEntity.status(500).contentType(MediaType.APPLICATION_JSON).body(LAST_RESORT);
    }
  }
}
