package bench.peer;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.javaoperatorsdk.webhook.admission.AdmissionController;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A minimal mutating webhook as the Java Operator SDK's admission framework shows it: the review
 * read by fabric8's Jackson 2 model, one label added by a Mutator, the patch made by the framework.
 *
 * <p>With {@code --peer.inject=true} it also adds, to every pod, the parts mesh-injector adds to
 * the README's checkout pod (two init containers, three volumes, its labels and annotations; taken
 * once from {@code bin/mesh-injector inject -f examples/deployment.yaml --cluster
 * examples/cluster.yaml} into {@code injected-parts.json}), without deciding anything: the API
 * server then applies a patch of the same size as mesh-injector's, and its webhook figure counts
 * that work for both.
 */
@SpringBootApplication
@RestController
public class PeerApplication {
  private final ObjectMapper mapper =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private final InjectedParts parts;
  private final AdmissionController<HasMetadata> controller;

  public PeerApplication(@Value("${peer.inject:false}") boolean inject) throws IOException {
    this.parts = inject ? readParts() : null;
    this.controller =
        new AdmissionController<>(
            (resource, operation) -> {
              Map<String, String> labels =
                  resource.getMetadata().getLabels() == null
                      ? new HashMap<>()
                      : new HashMap<>(resource.getMetadata().getLabels());
              labels.put("mutated-by", "josdk-peer");
              resource.getMetadata().setLabels(labels);
              if (parts != null && resource instanceof Pod pod) {
                parts.addTo(pod);
              }
              return resource;
            });
  }

  /** What mesh-injector adds to a pod, as lists and maps of the fabric8 model. */
  record InjectedParts(
      Map<String, String> labels,
      Map<String, String> annotations,
      List<Container> initContainers,
      List<Volume> volumes) {
    void addTo(Pod pod) {
      List<String> names = new ArrayList<>();
      initContainers.forEach(c -> names.add(c.getName()));
      if (pod.getSpec().getInitContainers() != null) {
        pod.getSpec().getInitContainers().forEach(c -> names.add(c.getName()));
      }
      if (names.stream().distinct().count() < names.size()) {
        return; // added already: a reinvocation
      }
      pod.getSpec().getContainers().forEach(c -> names.add(c.getName()));
      pod.getMetadata().getLabels().putAll(labels);
      Map<String, String> podAnnotations =
          pod.getMetadata().getAnnotations() == null
              ? new HashMap<>()
              : new HashMap<>(pod.getMetadata().getAnnotations());
      podAnnotations.putAll(annotations);
      // as mesh-injector lists them, so the chart's matchCondition skips the reinvocation
      podAnnotations.put("mesh-injector.io/injected-containers", String.join(",", names));
      pod.getMetadata().setAnnotations(podAnnotations);
      List<Container> init = new ArrayList<>(initContainers);
      if (pod.getSpec().getInitContainers() != null) {
        init.addAll(pod.getSpec().getInitContainers());
      }
      pod.getSpec().setInitContainers(init);
      List<Volume> all =
          pod.getSpec().getVolumes() == null
              ? new ArrayList<>()
              : new ArrayList<>(pod.getSpec().getVolumes());
      all.addAll(volumes);
      pod.getSpec().setVolumes(all);
    }
  }

  private InjectedParts readParts() throws IOException {
    try (InputStream in = PeerApplication.class.getResourceAsStream("/injected-parts.json")) {
      return mapper.readValue(in, InjectedParts.class);
    }
  }

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
