package io.meshinjector.webhook.kube;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * Kubernetes clients for reading the cluster: every one that lists Nodes (serve's informers, the
 * CLI's one-time read) is built here.
 *
 * <p>Their JSON decoding skips, as it parses, what nothing here reads and what makes a Node large:
 * the container images in {@code status.images} (often 50 entries, each with digests, the bulk of a
 * Node's bytes), the attached volumes, and {@code metadata.managedFields} of every object. A page
 * of 250 such Nodes is then bound at a fraction of its size, so the peak heap while a large cluster
 * is listed stays small; {@link Trimmed} keeps less still once a Node is in the cache.
 *
 * <p>Nothing written through these clients loses anything: labels are written as merge patches
 * built from maps, and an update without managedFields keeps the server's.
 */
public final class ClusterClients {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final KubernetesSerialization SERIALIZATION = serialization(MAPPER);

  private ClusterClients() {}

  /** A client builder whose decoding skips the bulk above, on BoringSSL where it loads. */
  public static KubernetesClientBuilder builder() {
    return new KubernetesClientBuilder()
        .withKubernetesSerialization(SERIALIZATION)
        .withHttpClientFactory(new NativeTlsHttpClientFactory());
  }

  /** The clients' decoder, configured by fabric8 and skipping the bulk, for streamed lists. */
  static ObjectMapper mapper() {
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
