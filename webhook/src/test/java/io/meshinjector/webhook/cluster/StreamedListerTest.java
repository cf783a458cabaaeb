package io.meshinjector.webhook.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.impl.ListerWatcher;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.meshinjector.webhook.lists.Trimmed;
import org.junit.jupiter.api.Test;

/** The lister an informer lists through: which list it asks the API server for, and when. */
@EnableKubernetesMockClient(crud = true)
class StreamedListerTest {
  KubernetesMockServer server;
  KubernetesClient client;

  @Test
  @SuppressWarnings("unchecked")
  void anInformersFirstListMayComeFromTheWatchCacheButNotARelist() throws Exception {
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().build())
        .create();
    StreamedLister<Node> lister =
        new StreamedLister<>(
            client,
            "api/v1/nodes",
            StreamedLister.bound(Node.class, Trimmed::node),
            Trimmed::node,
            (ListerWatcher<Node, ?>) client.nodes(),
            Runnable::run,
            StreamedLister.Packer.none());

    StreamedLister.Items<Node> first = lister.submitList(new ListOptions()).get();
    String firstPath = server.getLastRequest().getPath();
    lister.submitList(new ListOptions()).get();
    String relistPath = server.getLastRequest().getPath();

    assertThat(first.getItems()).extracting(n -> n.getMetadata().getName()).containsExactly("n1");
    assertThat(firstPath).isEqualTo("/api/v1/nodes?resourceVersion=0");
    assertThat(relistPath).isEqualTo("/api/v1/nodes");
  }
}
