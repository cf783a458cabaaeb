package io.meshinjector.webhook.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.meshinjector.templates.WorkloadTemplates;
import io.meshinjector.webhook.manifest.Manifests;
import io.meshinjector.webhook.support.Cli;
import io.meshinjector.webhook.support.Reviews;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Manifests nobody here wrote go through {@code inject} without an error, come out as valid objects
 * of the same kinds with only their pod templates changed, and come out unchanged when injected
 * again. Runs this module's copies always, and the whole shared corpus when it is beside the
 * project.
 */
class CorpusTest {
  private static final Map<String, Class<?>> TYPES =
      Map.<String, Class<?>>of(
          "Pod", Pod.class,
          "Deployment", Deployment.class,
          "StatefulSet", StatefulSet.class,
          "DaemonSet", DaemonSet.class,
          "ReplicaSet", ReplicaSet.class,
          "ReplicationController", ReplicationController.class,
          "Job", Job.class,
          "CronJob", CronJob.class,
          "List", KubernetesList.class);

  @TestFactory
  Stream<DynamicTest> copiesInThisModule() throws IOException, URISyntaxException {
    Path dir = Path.of(CorpusTest.class.getResource("/corpus").toURI());
    return tests(dir);
  }

  @TestFactory
  Stream<DynamicTest> sharedCorpus() throws IOException {
    Path dir = Path.of("..", "..", "shared", "corpus").toAbsolutePath().normalize();
    assumeTrue(Files.isDirectory(dir), "no shared corpus at " + dir);
    return tests(dir);
  }

  private static Stream<DynamicTest> tests(Path dir) throws IOException {
    List<Path> files;
    try (Stream<Path> walk = Files.walk(dir)) {
      files =
          walk.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml"))
              .sorted()
              .toList();
    }
    assertThat(files).isNotEmpty();
    return files.stream()
        .map(f -> DynamicTest.dynamicTest(dir.relativize(f).toString(), () -> roundTrip(f)));
  }

  static void roundTrip(Path file) throws Exception {
    String cluster = Reviews.example("cluster.yaml").toString();
    Cli.Run first = Cli.run("inject", "-f", file.toString(), "--cluster", cluster);
    assertThat(first.code()).as(first.err()).isZero();
    assertThat(first.err()).doesNotContain("error:");

    List<JsonNode> in = Manifests.read(file);
    List<JsonNode> out = Manifests.parse(first.out(), "output");
    assertThat(out).hasSameSizeAs(in);
    for (int i = 0; i < in.size(); i++) {
      String kind = in.get(i).path("kind").asText();
      assertThat(out.get(i).path("kind").asText()).isEqualTo(kind);
      assertThat(withoutTemplates(out.get(i)))
          .as("document %d outside its pod templates", i + 1)
          .isEqualTo(withoutTemplates(in.get(i)));
      if (TYPES.containsKey(kind)) {
        // a valid object of its kind: the typed model reads it
        assertThat(Manifests.json().treeToValue(out.get(i), TYPES.get(kind))).isNotNull();
      }
    }

    Path again = Files.createTempFile("injected", ".yaml");
    try {
      Files.writeString(again, first.out());
      Cli.Run second = Cli.run("inject", "-f", again.toString(), "--cluster", cluster);
      assertThat(second.code()).as(second.err()).isZero();
      assertThat(second.out()).isEqualTo(first.out());
    } finally {
      Files.delete(again);
    }
  }

  /** The document with each pod template replaced by a marker. */
  static JsonNode withoutTemplates(JsonNode doc) {
    JsonNode copy = doc.deepCopy();
    for (WorkloadTemplates.PodTemplateRef t : WorkloadTemplates.podTemplates(copy, "")) {
      ObjectNode template = t.template();
      if (template == copy) {
        return Manifests.json().createObjectNode().put("pod", "template");
      }
      template.removeAll();
      template.put("pod", "template");
    }
    return copy;
  }
}
