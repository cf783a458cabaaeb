package io.meshinjector.webhook.lists;

import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.Status;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * A list in the API server's protobuf encoding, decoded an item at a time as the bytes arrive (its
 * JSON counterpart is {@link StreamedList#decode}).
 *
 * <p>The answer is Kubernetes' envelope: the four bytes {@code k8s\0}, then a {@code
 * runtime.Unknown} message whose field 2 holds the list's own message ({@code NodeList}: its
 * ListMeta in field 1, each item in field 2). The envelope is read from the stream, so the list,
 * 277 MB at 20,000 Nodes, is never held whole: each item is read into one reused buffer and handed
 * to the item reader before the next is read.
 */
final class ProtobufList {
  /** The media type the API server answers protobuf with, and that a client asks it for. */
  static final String CONTENT_TYPE = "application/vnd.kubernetes.protobuf";

  private static final byte[] MAGIC = {'k', '8', 's', 0};

  /**
   * The largest item read. etcd refuses objects above 1.5 MiB by default and the API server above 3
   * MiB; past this a length is corrupt, and is not allocated.
   */
  private static final int MAX_ITEM_BYTES = 64 * 1024 * 1024;

  private ProtobufList() {}

  /** How an item is read from its message; a reader of JSON items may also be one of these. */
  @FunctionalInterface
  interface ItemReader<T> {
    T read(ProtobufMessage item) throws IOException;
  }

  /** Decodes a list's body: its metadata, and each of its items in turn. */
  static <T> ListMeta decode(InputStream body, ItemReader<T> reader, Consumer<? super T> each)
      throws IOException {
    Input in = new Input(new BufferedInputStream(body, 64 * 1024));
    in.magic();
    ListMeta meta = null;
    // runtime.Unknown: typeMeta 1, raw 2 (the list), contentEncoding 3, contentType 4
    for (long key = in.keyOrEnd(); key >= 0; key = in.keyOrEnd()) {
      if (key == (2 << 3 | ProtobufMessage.LENGTH_DELIMITED)) {
        long length = in.varint();
        meta = list(in, in.position() + length, reader, each);
      } else {
        in.skip(key);
      }
    }
    if (meta == null) {
      throw new IOException("the protobuf answer holds no list");
    }
    return meta;
  }

  /** The list's message: metadata 1, items 2. */
  private static <T> ListMeta list(
      Input in, long end, ItemReader<T> reader, Consumer<? super T> each) throws IOException {
    ListMeta meta = new ListMeta();
    byte[] buffer = new byte[64 * 1024];
    while (in.position() < end) {
      long key = in.varint();
      if (key != (1 << 3 | ProtobufMessage.LENGTH_DELIMITED)
          && key != (2 << 3 | ProtobufMessage.LENGTH_DELIMITED)) {
        in.skip(key);
        continue;
      }
      long length = in.varint();
      if (length > MAX_ITEM_BYTES) {
        throw new IOException(
            "a list item of " + length + " bytes, more than the " + MAX_ITEM_BYTES + " read");
      }
      if (length > buffer.length) {
        buffer = new byte[(int) Math.max(length, buffer.length * 2L)];
      }
      in.read(buffer, (int) length);
      if (key >>> 3 == 1) {
        meta = listMeta(new ProtobufMessage(buffer, 0, (int) length, "the list's metadata"));
      } else {
        each.accept(reader.read(new ProtobufMessage(buffer, 0, (int) length, "a list item")));
      }
    }
    if (in.position() != end) {
      throw new IOException("the list's last item runs past the list's end");
    }
    return meta;
  }

  /** ListMeta: resourceVersion 2, continue 3, remainingItemCount 4. */
  private static ListMeta listMeta(ProtobufMessage m) throws IOException {
    ListMeta meta = new ListMeta();
    while (m.next()) {
      switch (m.field()) {
        case 2 -> meta.setResourceVersion(empty(m.string("metadata.resourceVersion")));
        case 3 -> meta.setContinue(empty(m.string("metadata.continue")));
        case 4 -> meta.setRemainingItemCount(m.varintValue("metadata.remainingItemCount"));
        default -> m.skip();
      }
    }
    return meta;
  }

  /**
   * The Status of a refused request answered in protobuf (the API server answers errors in the
   * encoding it negotiated), or null when the bytes are not one: Status is metadata 1, status 2,
   * message 3, reason 4, details 5, code 6.
   */
  static Status status(byte[] body) {
    if (body.length < MAGIC.length
        || !Arrays.equals(body, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
      return null;
    }
    try {
      ProtobufMessage unknown =
          new ProtobufMessage(body, MAGIC.length, body.length - MAGIC.length, "a Status");
      while (unknown.next()) {
        if (unknown.field() != 2) {
          unknown.skip();
          continue;
        }
        ProtobufMessage m = unknown.message("a Status");
        Status status = new Status();
        while (m.next()) {
          switch (m.field()) {
            case 2 -> status.setStatus(empty(m.string("status")));
            case 3 -> status.setMessage(empty(m.string("message")));
            case 4 -> status.setReason(empty(m.string("reason")));
            case 6 -> status.setCode((int) m.varintValue("code"));
            default -> m.skip();
          }
        }
        return status;
      }
      return null;
    } catch (IOException notAStatus) {
      return null;
    }
  }

  private static String empty(String text) {
    return text.isEmpty() ? null : text;
  }

  /** The stream with the count of bytes read, for the envelope around the items. */
  private static final class Input {
    private final InputStream in;
    private long position;

    Input(InputStream in) {
      this.in = in;
    }

    long position() {
      return position;
    }

    void magic() throws IOException {
      byte[] magic = in.readNBytes(MAGIC.length);
      position += magic.length;
      if (!Arrays.equals(magic, MAGIC)) {
        throw new IOException(
            "the answer does not start as Kubernetes' protobuf does (k8s\\0): "
                + Arrays.toString(magic));
      }
    }

    /** The next field's key, or -1 at the end of the stream. */
    long keyOrEnd() throws IOException {
      int first = in.read();
      if (first < 0) {
        return -1;
      }
      position++;
      return first < 0x80 ? first : rest(first & 0x7f, 7);
    }

    long varint() throws IOException {
      return rest(0, 0);
    }

    private long rest(long value, int shift) throws IOException {
      for (; shift < 64; shift += 7) {
        int b = in.read();
        if (b < 0) {
          throw new IOException("the list is cut off in a varint, at byte " + position);
        }
        position++;
        value |= (long) (b & 0x7f) << shift;
        if (b < 0x80) {
          return value;
        }
      }
      throw new IOException("a varint longer than ten bytes, at byte " + position);
    }

    void read(byte[] into, int length) throws IOException {
      int read = in.readNBytes(into, 0, length);
      position += read;
      if (read < length) {
        throw new IOException(
            "the list is cut off: " + read + " of an item's " + length + " bytes came");
      }
    }

    void skip(long key) throws IOException {
      switch ((int) (key & 7)) {
        case ProtobufMessage.VARINT -> varint();
        case ProtobufMessage.FIXED64 -> skipBytes(8);
        case ProtobufMessage.LENGTH_DELIMITED -> skipBytes(varint());
        case ProtobufMessage.FIXED32 -> skipBytes(4);
        default ->
            throw new IOException(
                "field " + (key >>> 3) + " of wire type " + (key & 7) + ", at byte " + position);
      }
    }

    private void skipBytes(long count) throws IOException {
      try {
        in.skipNBytes(count);
      } catch (java.io.EOFException e) {
        throw new IOException(
            "the list is cut off, in a field of " + count + " bytes at byte " + position);
      }
      position += count;
    }
  }
}
