package io.meshinjector.webhook.lists;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.CodedInputStream;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

/**
 * One list of a kind in one response, decoded an object at a time as the bytes arrive.
 *
 * <p>Why not fabric8's {@code list()} in pages: a page is buffered whole before it is bound, and a
 * paginated list is read from etcd, page after page, each waiting for the last. At 5,000 EKS-shaped
 * Nodes (112 MB of JSON) the API server answered the paginated list in 4 to 6 s and {@code
 * resourceVersion=0}, which it serves from its watch cache, in 1.7 s. The watch cache ignores the
 * page size, so that answer is the whole cluster in one body; decoded from the stream, one object
 * at a time through {@link SkippingDecoder}, the client still holds no more than one full object
 * before it is handed on.
 *
 * <p>{@code resourceVersion=0} allows an answer as old as the cache, as client-go's informers allow
 * for their first list: fine for a reading that a watch, or the next run, brings up to date.
 *
 * <p>Nodes are asked for in protobuf ({@link ProtobufList}), as client-go's informers ask for
 * built-in kinds: at 20,000 EKS-shaped Nodes the API server took 13 to 15 s to start answering in
 * JSON and under a second in protobuf, on the same plane.
 */
public final class StreamedList {
  /** How much of an error body is read for its message. */
  private static final int ERROR_BODY_LIMIT = 64 * 1024;

  /** How far the connection reads ahead of the decoder: see {@link PrefetchedBody}. */
  private static final long READ_AHEAD_BYTES = 1024 * 1024;

  private StreamedList() {}

  /** How each item is read, from the parser at its {@code START_OBJECT} to its end. */
  @FunctionalInterface
  public interface ItemReader<T> {
    T read(JsonParser parser) throws IOException;

    /** Bound by the clients' decoder ({@link SkippingDecoder}) as {@code type}. */
    static <T> ItemReader<T> bound(Class<T> type) {
      return parser -> SkippingDecoder.mapper().readValue(parser, type);
    }

    /**
     * Nodes as {@link Trimmed#node} keeps them, read straight from the JSON without binding the
     * rest ({@link TrimmedNodeReader}).
     */
    static ItemReader<Node> trimmedNodes() {
      return new TrimmedNodes();
    }
  }

  /**
   * Nodes read as {@link Trimmed#node} keeps them, from JSON or, when the API server answers so,
   * from protobuf, which it encodes far faster ({@link ProtobufNodeReader}).
   */
  private static final class TrimmedNodes
      implements ItemReader<Node>, ProtobufList.ItemReader<Node> {
    @Override
    public Node read(JsonParser parser) throws IOException {
      return TrimmedNodeReader.read(parser);
    }

    @Override
    public Node read(CodedInputStream item) throws IOException {
      return ProtobufNodeReader.read(item);
    }
  }

  /**
   * What a list was: its metadata (its resourceVersion, for a watch that follows), and how many
   * items and bytes came in which encoding, for the line that says how long the list took.
   *
   * @param encoding "protobuf" or "JSON"
   */
  public record Listed(ListMeta metadata, int items, long bytes, String encoding) {}

  /**
   * Reads the list at {@code path} (for example {@code api/v1/nodes}) and hands each item, decoded
   * as {@code type}, to {@code each} before the next is read.
   *
   * @param query extra query parameters, for example a field selector
   * @return the list's metadata and size
   * @throws KubernetesClientException when the server refuses the list (with its HTTP code and
   *     Status), or the connection or the body fails
   */
  public static <T> Listed forEach(
      KubernetesClient client,
      String path,
      Map<String, String> query,
      Class<T> type,
      Consumer<? super T> each) {
    return forEach(client, path, query, ItemReader.bound(type), each);
  }

  /**
   * As above, each item read by {@code reader}. A reader that can also read the items' protobuf
   * ({@link ItemReader#trimmedNodes}) asks for it first, and reads the JSON a server that has no
   * protobuf for the kind answers instead.
   */
  @SuppressWarnings("unchecked")
  public static <T> Listed forEach(
      KubernetesClient client,
      String path,
      Map<String, String> query,
      ItemReader<T> reader,
      Consumer<? super T> each) {
    ProtobufList.ItemReader<T> protobuf =
        reader instanceof ProtobufList.ItemReader<?> p ? (ProtobufList.ItemReader<T>) p : null;
    HttpRequest request =
        client
            .getHttpClient()
            .newHttpRequestBuilder()
            .uri(url(client, path, query))
            .header(
                "Accept",
                protobuf == null
                    ? "application/json"
                    : ProtobufList.CONTENT_TYPE + ", application/json")
            .build();
    PrefetchedBody prefetched = new PrefetchedBody(READ_AHEAD_BYTES);
    HttpResponse<AsyncBody> response =
        await(client.getHttpClient().consumeBytes(request, prefetched));
    prefetched.start(response.body());
    String type = response.header("Content-Type");
    boolean isProtobuf = type != null && type.startsWith(ProtobufList.CONTENT_TYPE);
    try (CountingStream body = new CountingStream(prefetched)) {
      if (!response.isSuccessful()) {
        throw refused(response.code(), body);
      }
      int[] items = {0};
      Consumer<T> counted =
          item -> {
            items[0]++;
            each.accept(item);
          };
      ListMeta meta;
      if (!isProtobuf) {
        meta = decode(SkippingDecoder.mapper(), body, reader, counted);
      } else if (protobuf != null) {
        meta = ProtobufList.decode(body, protobuf, counted);
      } else {
        throw new IOException("the API server answered " + type + ", which was not asked for");
      }
      return new Listed(meta, items[0], body.count(), isProtobuf ? "protobuf" : "JSON");
    } catch (IOException e) {
      throw new KubernetesClientException("reading " + path + ": " + e.getMessage(), e);
    }
  }

  /**
   * The list's URL: {@code resourceVersion=0} unless {@code query} gives another (an empty one
   * reads from etcd), then {@code query}'s parameters.
   */
  static String url(KubernetesClient client, String path, Map<String, String> query) {
    Map<String, String> parameters = new LinkedHashMap<>();
    parameters.put("resourceVersion", "0");
    parameters.putAll(query);
    StringBuilder url = new StringBuilder(client.getMasterUrl().toString());
    if (url.charAt(url.length() - 1) != '/') {
      url.append('/');
    }
    url.append(path);
    char separator = '?';
    for (Map.Entry<String, String> p : parameters.entrySet()) {
      if (p.getValue().isEmpty()) {
        continue;
      }
      url.append(separator)
          .append(p.getKey())
          .append('=')
          .append(URLEncoder.encode(p.getValue(), StandardCharsets.UTF_8));
      separator = '&';
    }
    return url.toString();
  }

  /** Decodes a list's body: its metadata, and each of its items in turn. */
  static <T> ListMeta decode(
      ObjectMapper mapper, InputStream body, ItemReader<T> reader, Consumer<? super T> each)
      throws IOException {
    ListMeta meta = new ListMeta();
    try (JsonParser parser = mapper.getFactory().createParser(body)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException("the list is not a JSON object");
      }
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        JsonToken value = parser.nextToken();
        if ("metadata".equals(field) && value == JsonToken.START_OBJECT) {
          meta = mapper.readValue(parser, ListMeta.class);
        } else if ("items".equals(field) && value == JsonToken.START_ARRAY) {
          while (parser.nextToken() == JsonToken.START_OBJECT) {
            each.accept(reader.read(parser));
          }
        } else {
          parser.skipChildren();
        }
      }
    }
    return meta;
  }

  private static KubernetesClientException refused(int code, InputStream body) throws IOException {
    byte[] bytes = body.readNBytes(ERROR_BODY_LIMIT);
    Status status = ProtobufList.status(bytes);
    if (status == null) {
      try {
        status = SkippingDecoder.mapper().readValue(bytes, Status.class);
      } catch (IOException notAStatus) {
        status = new Status();
        status.setMessage(new String(bytes, StandardCharsets.UTF_8).strip());
      }
    }
    status.setCode(code);
    return new KubernetesClientException(status);
  }

  /** The body, with the count of bytes read from it. */
  private static final class CountingStream extends java.io.FilterInputStream {
    private long count;

    CountingStream(InputStream in) {
      super(in);
    }

    long count() {
      return count;
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        count++;
      }
      return b;
    }

    @Override
    public int read(byte[] into, int offset, int length) throws IOException {
      int n = super.read(into, offset, length);
      if (n > 0) {
        count += n;
      }
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      long skipped = super.skip(n);
      count += skipped;
      return skipped;
    }
  }

  private static <R> R await(CompletableFuture<R> future) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KubernetesClientException("interrupted while listing", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof KubernetesClientException k) {
        throw k;
      }
      throw new KubernetesClientException(cause.getMessage(), cause);
    }
  }
}
