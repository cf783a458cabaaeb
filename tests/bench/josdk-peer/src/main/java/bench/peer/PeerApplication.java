package bench.peer;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.javaoperatorsdk.webhook.admission.AdmissionController;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A minimal mutating webhook as the Java Operator SDK's admission framework shows it: the review
 * read by fabric8's Jackson 2 model, one label added by a Mutator, the patch made by the framework.
 */
@SpringBootApplication
@RestController
public class PeerApplication {
  private final ObjectMapper mapper =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private final AdmissionController<HasMetadata> controller =
      new AdmissionController<>(
          (resource, operation) -> {
            Map<String, String> labels =
                resource.getMetadata().getLabels() == null
                    ? new HashMap<>()
                    : new HashMap<>(resource.getMetadata().getLabels());
            labels.put("mutated-by", "josdk-peer");
            resource.getMetadata().setLabels(labels);
            return resource;
          });

  public static void main(String[] args) {
    SpringApplication.run(PeerApplication.class, args);
  }

  @PostMapping(
      value = "/mutate",
      consumes = MediaType.APPLICATION_JSON_VALUE,
      produces = MediaType.APPLICATION_JSON_VALUE)
  public byte[] mutate(HttpServletRequest request) throws IOException {
    AdmissionReview review = mapper.readValue(request.getInputStream(), AdmissionReview.class);
    return mapper.writeValueAsBytes(controller.handle(review));
  }

  @GetMapping("/readyz")
  public String ready() {
    return "ok";
  }
}
