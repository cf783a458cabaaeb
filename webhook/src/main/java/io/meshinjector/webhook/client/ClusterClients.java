package io.meshinjector.webhook.client;

import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.meshinjector.webhook.lists.SkippingDecoder;

/**
 * Kubernetes clients for reading the cluster: every one that lists Nodes (serve's informers, the
 * CLI's one-time read) is built here, with the decoding that skips a Node's bulk ({@link
 * SkippingDecoder}) and, where it loads, BoringSSL ({@link NativeTlsHttpClientFactory}).
 */
public final class ClusterClients {
  private ClusterClients() {}

  /** A client builder whose decoding skips the bulk, on BoringSSL where it loads. */
  public static KubernetesClientBuilder builder() {
    return new KubernetesClientBuilder()
        .withKubernetesSerialization(SkippingDecoder.serialization())
        .withHttpClientFactory(new NativeTlsHttpClientFactory());
  }
}
