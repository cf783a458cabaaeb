package io.meshinjector.plane;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;

/** Tokens of the chart's ServiceAccounts, as the kubelet would mount them into a pod. */
public final class ServiceAccounts {
  private ServiceAccounts() {}

  /** A kubeconfig with a one-hour token of {@code namespace/name}. */
  public static Path kubeconfig(KubePlane plane, String namespace, String name) throws IOException {
    return plane.kubeconfig(namespace + "-" + name, token(plane.admin(), namespace, name, null));
  }

  /**
   * A kubeconfig with a token bound to {@code pod}: the API server adds the pod's node to the
   * token's claims, which the chart's admission policy for the probe reads.
   */
  public static Path kubeconfigBoundTo(KubePlane plane, String namespace, String name, Pod pod)
      throws IOException {
    return plane.kubeconfig(
        namespace + "-" + name + "-" + pod.getMetadata().getName(),
        token(plane.admin(), namespace, name, pod));
  }

  static String token(KubernetesClient admin, String namespace, String name, Pod pod) {
    TokenRequestBuilder request =
        new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec();
    if (pod != null) {
      request
          .editSpec()
          .withNewBoundObjectRef()
          .withApiVersion("v1")
          .withKind("Pod")
          .withName(pod.getMetadata().getName())
          .withUid(pod.getMetadata().getUid())
          .endBoundObjectRef()
          .endSpec();
    }
    TokenRequest answer =
        admin.serviceAccounts().inNamespace(namespace).withName(name).tokenRequest(request.build());
    return answer.getStatus().getToken();
  }
}
