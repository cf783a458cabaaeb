package io.meshinjector.webhook.probe;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.meshinjector.engine.capability.NodeCapabilityStatus;
import io.meshinjector.engine.probe.ProbeReport;
import io.meshinjector.webhook.kube.NodeCapabilityResource;
import java.net.HttpURLConnection;
import java.util.Map;
import java.util.Objects;

/**
 * Writes a node's {@code NodeCapability} status.
 *
 * <p>Server-side apply, in two calls: the object itself (so the first run creates it), then the
 * {@code status} subresource. Apply replaces the whole status this field manager owns, so a fact
 * the probe stops reporting disappears, which a merge patch would keep forever.
 *
 * <p>Servers that do not speak apply-patch get the older create-then-replace-status path: fabric8's
 * CRUD mock answers 404 to an apply on a missing object and 415 to one on an existing object. A
 * real API server (>= 1.22) takes that path only when the CRD is missing, and then fails there.
 */
public final class NodeCapabilityWriter {
  public static final String FIELD_MANAGER = "mesh-injector-probe";

  static final ResourceDefinitionContext CONTEXT = NodeCapabilityResource.CONTEXT;

  /** How the last write went; tests and logs read it. */
  public enum Method {
    SERVER_SIDE_APPLY,
    REPLACE
  }

  private final KubernetesClient client;
  private volatile boolean applySupported = true;

  public NodeCapabilityWriter(KubernetesClient client) {
    this.client = Objects.requireNonNull(client, "client");
  }

  /**
   * Writes {@code report} as the status of NodeCapability {@code nodeName}.
   *
   * @throws KubernetesClientException when the API server refuses the write
   */
  public Method write(String nodeName, ProbeReport report) {
    Map<String, Object> status = report.status().toMap();
    if (applySupported) {
      try {
        apply(nodeName, status);
        return Method.SERVER_SIDE_APPLY;
      } catch (KubernetesClientException e) {
        if (e.getCode() == HttpURLConnection.HTTP_UNSUPPORTED_TYPE) {
          applySupported = false;
        } else if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
          throw e;
        }
        // 404 on apply: a real server creates on apply, so the CRD is missing (the replace path
        // then fails with the server's own message) or this is a mock that cannot create by patch
      }
    }
    replace(nodeName, status);
    return Method.REPLACE;
  }

  private void apply(String nodeName, Map<String, Object> status) {
    PatchContext ssa =
        new PatchContext.Builder()
            .withPatchType(PatchType.SERVER_SIDE_APPLY)
            .withFieldManager(FIELD_MANAGER)
            .withForce(true)
            .build();
    GenericKubernetesResource bare = resource(nodeName, null);
    resources().withName(nodeName).patch(ssa, bare);
    resources().withName(nodeName).subresource("status").patch(ssa, resource(nodeName, status));
  }

  private void replace(String nodeName, Map<String, Object> status) {
    GenericKubernetesResource current = resources().withName(nodeName).get();
    if (current == null) {
      try {
        current = resources().resource(resource(nodeName, null)).create();
      } catch (KubernetesClientException e) {
        if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
          throw e;
        }
        current = resources().withName(nodeName).get();
      }
    }
    current.setAdditionalProperty("status", status);
    Resource<GenericKubernetesResource> r = resources().resource(current);
    r.subresource("status").update();
  }

  private NonNamespaceOperation<
          GenericKubernetesResource,
          io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      resources() {
    return client.genericKubernetesResources(CONTEXT);
  }

  static GenericKubernetesResource resource(String nodeName, Map<String, Object> status) {
    GenericKubernetesResource r = new GenericKubernetesResource();
    r.setApiVersion(NodeCapabilityStatus.API_VERSION);
    r.setKind(NodeCapabilityStatus.KIND);
    r.setMetadata(new ObjectMetaBuilder().withName(nodeName).build());
    if (status != null) {
      r.setAdditionalProperty("status", status);
    }
    return r;
  }
}
