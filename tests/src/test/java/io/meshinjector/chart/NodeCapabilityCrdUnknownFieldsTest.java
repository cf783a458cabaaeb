package io.meshinjector.chart;

import static io.meshinjector.chart.Charts.find;
import static io.meshinjector.chart.Charts.render;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * The NodeCapability CRD stores what a newer release's probe writes: two releases of different
 * versions can probe one node, and the CRD in the cluster may be the older one's. A status field,
 * capability key or source it does not name is kept, not pruned; a fact is any string already.
 */
class NodeCapabilityCrdUnknownFieldsTest {

  @Test
  void theStatusKeepsWhatANewerProbeWrites() throws IOException {
    JsonNode schema =
        find(render(t -> t), "CustomResourceDefinition", "nodecapabilities.mesh-injector.io")
            .at("/spec/versions/0/schema/openAPIV3Schema/properties/status");

    assertThat(schema.path("x-kubernetes-preserve-unknown-fields").asBoolean()).isTrue();
    for (String map : new String[] {"capabilities", "sources"}) {
      assertThat(
              schema.at("/properties/" + map + "/x-kubernetes-preserve-unknown-fields").asBoolean())
          .as(map)
          .isTrue();
    }
    assertThat(schema.at("/properties/facts/additionalProperties/type").asText())
        .isEqualTo("string");
  }
}
