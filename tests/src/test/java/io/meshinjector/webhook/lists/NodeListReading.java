package io.meshinjector.webhook.lists;

import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.Node;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.Consumer;

/**
 * The two ways serve reads a list of Nodes, from a body in hand rather than a response: for {@code
 * NodeListBenchmark}, in this package because the readers are package-private (as the webhook's own
 * tests of them are).
 */
public final class NodeListReading {
  private NodeListReading() {}

  /** A protobuf NodeList ({@link ProtobufList}), each Node as {@link Trimmed#node} keeps it. */
  public static ListMeta protobuf(InputStream body, Consumer<Node> each) throws IOException {
    return ProtobufList.decode(body, ProtobufNodeReader::read, each);
  }

  /** A JSON NodeList ({@link StreamedList#decode}, {@link TrimmedNodeReader}), the same way. */
  public static ListMeta json(InputStream body, Consumer<Node> each) throws IOException {
    return StreamedList.decode(
        SkippingDecoder.mapper(), body, StreamedList.ItemReader.trimmedNodes(), each);
  }
}
