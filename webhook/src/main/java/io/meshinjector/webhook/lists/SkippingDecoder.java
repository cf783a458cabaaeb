package io.meshinjector.webhook.lists;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * The JSON decoding of every client that lists Nodes, and of the streamed lists: it skips, as it
 * parses, what nothing here reads and what makes a Node large: the container images in {@code
 * status.images} (often 50 entries, each with digests, the bulk of a Node's bytes), the attached
 * volumes, and {@code metadata.managedFields} of every object. A page of 250 such Nodes is then
 * bound at a fraction of its size, so the peak heap while a large cluster is listed stays small;
 * {@link Trimmed} keeps less still once a Node is in the cache.
 *
 * <p>Nothing written through clients with this decoding loses anything: labels are written as merge
 * patches built from maps, and an update without managedFields keeps the server's.
 */
public final class SkippingDecoder {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** fabric8 configures {@link #MAPPER} (its modules, its features) as it builds this. */
  private static final KubernetesSerialization SERIALIZATION = serialization(MAPPER);

  private SkippingDecoder() {}

  /** For a client builder: fabric8's serialization on the skipping mapper. */
  public static KubernetesSerialization serialization() {
    return SERIALIZATION;
  }

  /** The mapper itself, as fabric8 configured it, for the streamed lists. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  private static KubernetesSerialization serialization(ObjectMapper mapper) {
    mapper.addMixIn(NodeStatus.class, NodeStatusWithoutBulk.class);
    mapper.addMixIn(ObjectMeta.class, ObjectMetaWithoutManagedFields.class);
    return new KubernetesSerialization(mapper, true);
  }

  @JsonIgnoreProperties({"images", "volumesAttached", "volumesInUse"})
  private abstract static class NodeStatusWithoutBulk {}

  @JsonIgnoreProperties({"managedFields"})
  private abstract static class ObjectMetaWithoutManagedFields {}
}
