package io.meshinjector.webhook.mutation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.meshinjector.webhook.support.Parsson;
import jakarta.json.JsonException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link PatchCheck} against Eclipse Parsson's RFC 6902 implementation: the check says a patch
 * applies exactly when Parsson applies it, and leaves the checked tree as it was.
 */
class PatchCheckTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String POD =
      """
      {"metadata":{"name":"web","labels":{"app":"web","a/b":"1","c~d":"2"}},
       "spec":{"initContainers":[{"name":"setup"}],
               "containers":[{"name":"app","env":[{"name":"A","value":"1"},{"name":"B"}]},
                             {"name":"log"}],
               "volumes":[]}}
      """;

  static Stream<Arguments> cases() {
    return Stream.of(
        c("add a member", "[{'op':'add','path':'/metadata/annotations','value':{'x':'y'}}]"),
        c(
            "add to an existing member replaces it",
            "[{'op':'add','path':'/metadata/name','value':'x'}]"),
        c("add at the end with -", "[{'op':'add','path':'/spec/volumes/-','value':{'name':'v'}}]"),
        c("insert at 0", "[{'op':'add','path':'/spec/initContainers/0','value':{'name':'p'}}]"),
        c("insert at size", "[{'op':'add','path':'/spec/initContainers/1','value':{'name':'p'}}]"),
        c(
            "insert past size",
            "[{'op':'add','path':'/spec/initContainers/2','value':{'name':'p'}}]"),
        c("index that is no number", "[{'op':'replace','path':'/spec/containers/x','value':1}]"),
        c("missing parent", "[{'op':'add','path':'/metadata/annotations/x','value':'y'}]"),
        c("escaped slash", "[{'op':'replace','path':'/metadata/labels/a~1b','value':'2'}]"),
        c("escaped tilde", "[{'op':'remove','path':'/metadata/labels/c~0d'}]"),
        c("bad escape", "[{'op':'remove','path':'/metadata/labels/c~2d'}]"),
        c("remove a missing member", "[{'op':'remove','path':'/metadata/namespace'}]"),
        c("remove past the end", "[{'op':'remove','path':'/spec/containers/2'}]"),
        c("replace a missing member", "[{'op':'replace','path':'/metadata/uid','value':'u'}]"),
        c("through a scalar", "[{'op':'add','path':'/metadata/name/x','value':1}]"),
        c(
            "later ops see earlier ones",
            "[{'op':'add','path':'/spec/initContainers/0','value':{'name':'p','env':[]}},"
                + "{'op':'add','path':'/spec/initContainers/0/env/-','value':{'name':'E'}},"
                + "{'op':'replace','path':'/spec/initContainers/1/name','value':'s2'}]"),
        c(
            "a removed element is gone for later ops",
            "[{'op':'remove','path':'/spec/containers/0'},"
                + "{'op':'replace','path':'/spec/containers/1/name','value':'x'}]"));
  }

  private static Arguments c(String name, String patch) {
    return Arguments.of(name, patch.replace('\'', '"'));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void agreesWithParsson(String name, String patch) throws Exception {
    check(JSON.readTree(POD), (ArrayNode) JSON.readTree(patch));
  }

  /**
   * What a diff of two pods does not make is not passed, and the full diff decides: a patch of the
   * whole document, an op other than add, remove and replace, and an index with a leading zero (RFC
   * 6901 has none; Parsson reads "01" as 1).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("notMadeByADiff")
  void whatADiffDoesNotMakeIsNotPassed(String name, String patch) throws Exception {
    assertThat(PatchCheck.applies((ArrayNode) JSON.readTree(patch), JSON.readTree(POD))).isFalse();
  }

  static Stream<Arguments> notMadeByADiff() {
    return Stream.of(
        c("the root", "[{'op':'replace','path':'','value':{}}]"),
        c("a test op", "[{'op':'test','path':'/metadata/name','value':'web'}]"),
        c("a leading zero", "[{'op':'add','path':'/spec/initContainers/01','value':1}]"));
  }

  @org.junit.jupiter.api.Test
  void aTargetThatIsNoObjectOrArrayIsNotPassed() {
    assertThat(PatchCheck.applies(JSON.createArrayNode(), JSON.getNodeFactory().textNode("x")))
        .isFalse();
  }

  /**
   * Random patches over the pod: valid and invalid paths, in sequences that build on each other.
   */
  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void agreesWithParssonOnRandomPatches(long seed) throws Exception {
    Random random = new Random(seed);
    JsonNode pod = JSON.readTree(POD);
    for (int round = 0; round < 200; round++) {
      ArrayNode patch = JSON.createArrayNode();
      int ops = 1 + random.nextInt(4);
      for (int i = 0; i < ops; i++) {
        patch.add(randomOp(random));
      }
      check(pod, patch);
    }
  }

  static Stream<Long> seeds() {
    return Stream.of(1L, 2L, 3L, 4L, 5L);
  }

  private static void check(JsonNode target, ArrayNode patch) throws Exception {
    String before = target.toString();
    String patchBefore = patch.toString();
    boolean parsson;
    try {
      Parsson.apply(patch, target);
      parsson = true;
    } catch (JsonException e) {
      parsson = false;
    }
    assertThat(PatchCheck.applies(patch, target)).as(patch.toString()).isEqualTo(parsson);
    assertThat(target.toString()).as("the checked tree is left as it was").isEqualTo(before);
    assertThat(patch.toString()).as("the patch is left as it was").isEqualTo(patchBefore);
  }

  private static final List<String> PATHS =
      List.of(
          "/metadata",
          "/metadata/name",
          "/metadata/annotations",
          "/metadata/labels/a~1b",
          "/metadata/labels/new",
          "/spec/initContainers/0",
          "/spec/initContainers/1",
          "/spec/initContainers/-",
          "/spec/initContainers/0/name",
          "/spec/containers/0/env/1",
          "/spec/containers/0/env/-",
          "/spec/containers/1/env",
          "/spec/containers/2",
          "/spec/containers/0/env/0/value",
          "/spec/volumes/0",
          "/spec/volumes/-",
          "/spec/volumes/0/name");

  private static ObjectNode randomOp(Random random) {
    ObjectNode op = JSON.createObjectNode();
    String[] kinds = {"add", "remove", "replace"};
    String kind = kinds[random.nextInt(kinds.length)];
    op.put("op", kind);
    op.put("path", PATHS.get(random.nextInt(PATHS.size())));
    if (!kind.equals("remove")) {
      List<JsonNode> values = new ArrayList<>();
      values.add(JSON.getNodeFactory().textNode("v"));
      values.add(JSON.createObjectNode().put("name", "n"));
      values.add(JSON.createArrayNode().add(JSON.createObjectNode().put("name", "e")));
      op.set("value", values.get(random.nextInt(values.size())));
    }
    return op;
  }
}
