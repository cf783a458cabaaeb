package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.introspect.AnnotatedMember;
import com.fasterxml.jackson.databind.introspect.JacksonAnnotationIntrospector;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.decision.ConfigOverrides;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.NodeConstraint;
import io.meshinjector.engine.decision.Outcome;
import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.decision.Plan;
import io.meshinjector.engine.decision.ProxyPlacement;
import io.meshinjector.engine.decision.SkipReason;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Fixture loading, decisions built directly, and golden-file comparison. */
final class Fixtures {
  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /**
   * Reads fabric8's model refusing every field it does not know. FAIL_ON_UNKNOWN_PROPERTIES alone
   * is not enough: each model class has a {@code @JsonAnySetter} that collects unknown fields into
   * its additionalProperties, so a typo anywhere in a pod would pass. Only FieldsV1 (the content of
   * managedFields) is free-form by design and keeps its any-setter.
   */
  static final ObjectMapper STRICT =
      new ObjectMapper()
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .setAnnotationIntrospector(
              new JacksonAnnotationIntrospector() {
                private static final long serialVersionUID = 1L;

                @Override
                public Boolean hasAnySetter(Annotated a) {
                  if (a instanceof AnnotatedMember m && m.getDeclaringClass() == FieldsV1.class) {
                    return super.hasAnySetter(a);
                  }
                  return Boolean.FALSE;
                }
              });

  static final ObjectMapper YAML_IN = new ObjectMapper(new YAMLFactory());
  static final YAMLMapper YAML_OUT =
      YAMLMapper.builder()
          .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
          .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
          .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
          .build();

  static final boolean UPDATE = Boolean.getBoolean("golden.update");
  static final Path GOLDEN_DIR = Path.of("src/test/resources/golden");

  /** The proxy container of the Linkerd templates (proxy.yaml). */
  static final String PROXY = "linkerd-proxy";

  /** The config of Linkerd's own goldens: their image version and trust anchors. */
  static final String LINKERD_TEST_CONFIG;

  static {
    String pem = linkerdTrustAnchors();
    StringBuilder b = new StringBuilder("proxy:\n  version: test-inject-proxy-version\n");
    b.append("  trustAnchorsPEM: |\n");
    for (String line : pem.split("\n")) {
      b.append("    ").append(line).append('\n');
    }
    LINKERD_TEST_CONFIG = b.toString();
  }

  private Fixtures() {}

  /**
   * Two RHEL 8 nodes with kubelet 1.31, beside {@code ns}: init/nft works and native sidecars run
   * on both, as Linkerd's chart defaults to at b24cd40.
   */
  static java.util.List<io.fabric8.kubernetes.api.model.HasMetadata> rhel8Cluster(
      io.fabric8.kubernetes.api.model.Namespace ns) {
    java.util.List<io.fabric8.kubernetes.api.model.HasMetadata> out = new ArrayList<>();
    out.add(ns);
    for (String n : List.of("rhel-1", "rhel-2")) {
      out.add(
          new io.fabric8.kubernetes.api.model.NodeBuilder()
              .withNewMetadata()
              .withName(n)
              .addToLabels("kubernetes.io/hostname", n)
              .endMetadata()
              .withNewStatus()
              .withNewNodeInfo()
              .withOsImage("Red Hat Enterprise Linux 8.10 (Ootpa)")
              .withKubeletVersion("v1.31.0")
              .endNodeInfo()
              .endStatus()
              .build());
    }
    return out;
  }

  static TemplateConfig linkerdTestConfig() {
    return TemplateConfig.from(ConfigLoader.fromYaml(LINKERD_TEST_CONFIG));
  }

  static PodInjector injector() {
    return new PodInjector(linkerdTestConfig());
  }

  static String resource(String name) {
    try (InputStream in = Fixtures.class.getResourceAsStream("/" + name)) {
      if (in == null) {
        throw new IllegalArgumentException("no test resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every document of a multi-document YAML resource, as trees. */
  static List<JsonNode> loadTrees(String name) {
    List<JsonNode> out = new ArrayList<>();
    try (MappingIterator<JsonNode> it =
        YAML_IN.readerFor(JsonNode.class).readValues(resource(name))) {
      while (it.hasNext()) {
        JsonNode n = it.next();
        if (n != null && !n.isNull() && !n.isMissingNode()) {
          out.add(n);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  static Decision inject(String workload, PathOption path, ProxyPlacement proxy, boolean await) {
    return inject(workload, new Plan(path, proxy, await, false, null));
  }

  static Decision inject(String workload, Plan plan) {
    return decision(workload, new Outcome.Inject(plan));
  }

  static Decision skip(String workload) {
    return decision(workload, new Outcome.Skip(SkipReason.values()[0], "not injected"));
  }

  /** {@code outcome} for a pod with no candidate nodes, warnings, trace or overrides. */
  static Decision decision(String workload, Outcome outcome) {
    return new Decision(
        workload,
        outcome,
        List.of(),
        0,
        List.of(),
        List.of(),
        List.of(),
        null,
        ConfigOverrides.NONE);
  }

  static Plan plan(PathOption path, ProxyPlacement proxy, boolean await, NodeConstraint c) {
    return new Plan(path, proxy, await, false, c);
  }

  /** The injector's patch for {@code pod}, against the pod's own tree. */
  static PatchResult patch(PodInjector injector, Pod pod, Decision decision) {
    return injector.patch(JSON.valueToTree(pod), pod, decision);
  }

  static String yaml(Object value) {
    try {
      return YAML_OUT.writeValueAsString(JSON.valueToTree(value));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Compares with, or with {@code -Dgolden.update=true} rewrites, a golden file. */
  static void golden(String file, String actual) {
    Path path = GOLDEN_DIR.resolve(file);
    try {
      if (UPDATE || !Files.exists(path)) {
        Files.createDirectories(path.getParent());
        Files.writeString(path, actual);
        if (!UPDATE) {
          throw new AssertionError("golden file " + path + " was missing and has been written");
        }
        return;
      }
      assertThat(actual)
          .as("golden %s (run with -Dgolden.update=true to accept)", path)
          .isEqualTo(Files.readString(path));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Checks a pod (or a pod template's metadata and spec) as the API server would before it admits
   * it: strictly typed, and no two containers of one name across containers, init containers and
   * ephemeral containers.
   *
   * @return the typed pod
   */
  static Pod assertValidPod(JsonNode tree, String what) {
    Pod pod;
    try {
      pod = STRICT.treeToValue(tree, Pod.class);
    } catch (JsonProcessingException e) {
      throw new AssertionError(what + ": not a valid Pod: " + e.getOriginalMessage(), e);
    }
    List<String> names = new ArrayList<>();
    PodSpec spec = pod.getSpec();
    if (spec != null) {
      orEmpty(spec.getContainers()).forEach(c -> names.add(c.getName()));
      orEmpty(spec.getInitContainers()).forEach(c -> names.add(c.getName()));
      orEmpty(spec.getEphemeralContainers()).forEach(c -> names.add(c.getName()));
    }
    assertThat(names).as("%s: container names", what).doesNotHaveDuplicates();
    return pod;
  }

  private static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }

  private static String linkerdTrustAnchors() {
    JsonNode golden = loadTrees("linkerd-golden/native-init.golden.yaml").get(0);
    for (JsonNode c : golden.at("/spec/template/spec/initContainers")) {
      for (JsonNode e : c.path("env")) {
        if (e.path("name").asText().equals("LINKERD2_PROXY_IDENTITY_TRUST_ANCHORS")) {
          return e.path("value").asText();
        }
      }
    }
    throw new IllegalStateException("no trust anchors in the Linkerd golden");
  }
}
