package io.meshinjector.webhook.lists;

import static com.google.protobuf.WireFormat.WIRETYPE_LENGTH_DELIMITED;
import static com.google.protobuf.WireFormat.WIRETYPE_VARINT;
import static com.google.protobuf.WireFormat.getTagFieldNumber;
import static com.google.protobuf.WireFormat.getTagWireType;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.Status;
import java.io.FilterInputStream;
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
 * 277 MB at 20,000 Nodes, is never held whole: each item is read from the stream's buffer and
 * handed to the item reader before the next is read.
 *
 * <p>Read with protobuf-java's {@link CodedInputStream} and no generated classes: it reads the tags
 * and values, and the readers here take the few fields they keep (of Node, ObjectMeta, Taint and
 * the envelope) and skip the rest by its length ({@code skipField}) without looking at it. A Node's
 * images, conditions and managed fields, nine tenths of its bytes, are skipped so. Kubernetes'
 * generated classes would parse all of it into objects only for most of them to be dropped, and
 * would add their own large dependency. What generated code would check and CodedInputStream does
 * not, a field's wire type and a nested message read to its end, the helpers here check.
 */
final class ProtobufList {
  /** The media type the API server answers protobuf with, and that a client asks it for. */
  static final String CONTENT_TYPE = "application/vnd.kubernetes.protobuf";

  private static final byte[] MAGIC = {'k', '8', 's', 0};

  /** runtime.Unknown's raw (the list), the list's metadata, the list's items: field 1 or 2. */
  private static final int FIELD_1 = 1 << 3 | WIRETYPE_LENGTH_DELIMITED;

  private static final int FIELD_2 = 2 << 3 | WIRETYPE_LENGTH_DELIMITED;

  /**
   * The largest item read. etcd refuses objects above 1.5 MiB by default and the API server above 3
   * MiB; past this a length is corrupt.
   */
  private static final int MAX_ITEM_BYTES = 64 * 1024 * 1024;

  private ProtobufList() {}

  /** How an item is read from its message; a reader of JSON items may also be one of these. */
  @FunctionalInterface
  interface ItemReader<T> {
    /** Reads the item's fields until {@code readTag} returns 0, at the item's end. */
    T read(CodedInputStream item) throws IOException;
  }

  /** Decodes a list's body: its metadata, and each of its items in turn. */
  static <T> ListMeta decode(InputStream body, ItemReader<T> reader, Consumer<? super T> each)
      throws IOException {
    byte[] magic = body.readNBytes(MAGIC.length);
    if (!Arrays.equals(magic, MAGIC)) {
      throw new IOException(
          "the answer does not start as Kubernetes' protobuf does (k8s\\0): "
              + Arrays.toString(magic));
    }
    Input in = new Input(body);
    try {
      ListMeta meta = null;
      // runtime.Unknown: typeMeta 1, raw 2 (the list), contentEncoding 3, contentType 4
      for (int tag = in.coded.readTag(); tag != 0; tag = in.coded.readTag()) {
        if (tag == FIELD_2) {
          long length = in.coded.readRawVarint64();
          meta = list(in, in.position() + length, reader, each);
        } else {
          in.coded.skipField(tag);
        }
      }
      if (meta == null) {
        throw new IOException("the protobuf answer holds no list");
      }
      return meta;
    } catch (InvalidProtocolBufferException e) {
      if (in.ended) {
        throw new IOException("the list is cut off, at byte " + in.position(), e);
      }
      throw new IOException(
          "the list is not valid protobuf, at byte " + in.position() + ": " + e.getMessage(), e);
    }
  }

  /** The list's message: metadata 1, items 2. */
  private static <T> ListMeta list(
      Input in, long end, ItemReader<T> reader, Consumer<? super T> each) throws IOException {
    CodedInputStream coded = in.coded;
    ListMeta meta = new ListMeta();
    while (in.position() < end) {
      int tag = coded.readTag();
      if (tag == 0) {
        throw new IOException("the list is cut off, at byte " + in.position());
      }
      if (tag != FIELD_1 && tag != FIELD_2) {
        coded.skipField(tag);
        continue;
      }
      long length = coded.readRawVarint64();
      if (length > MAX_ITEM_BYTES) {
        throw new IOException(
            "a list item of " + length + " bytes, more than the " + MAX_ITEM_BYTES + " read");
      }
      if (in.position() + length > end) {
        throw new IOException("the list's last item runs past the list's end");
      }
      int limit = coded.pushLimit((int) length);
      if (tag == FIELD_1) {
        meta = listMeta(coded);
      } else {
        T item = reader.read(coded);
        leave(coded, limit, "a list item");
        in.retire();
        each.accept(item);
        continue;
      }
      leave(coded, limit, "the list's metadata");
    }
    if (in.position() != end) {
      throw new IOException("the list's last item runs past the list's end");
    }
    return meta;
  }

  /** ListMeta: resourceVersion 2, continue 3, remainingItemCount 4. */
  private static ListMeta listMeta(CodedInputStream in) throws IOException {
    ListMeta meta = new ListMeta();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (getTagFieldNumber(tag)) {
        case 2 -> meta.setResourceVersion(empty(string(in, tag, "metadata.resourceVersion")));
        case 3 -> meta.setContinue(empty(string(in, tag, "metadata.continue")));
        case 4 -> meta.setRemainingItemCount(varint(in, tag, "metadata.remainingItemCount"));
        default -> in.skipField(tag);
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
      CodedInputStream in =
          CodedInputStream.newInstance(body, MAGIC.length, body.length - MAGIC.length);
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        if (getTagFieldNumber(tag) != 2) {
          in.skipField(tag);
          continue;
        }
        int limit = enter(in, tag, "a Status");
        Status status = new Status();
        for (int field = in.readTag(); field != 0; field = in.readTag()) {
          switch (getTagFieldNumber(field)) {
            case 2 -> status.setStatus(empty(string(in, field, "status")));
            case 3 -> status.setMessage(empty(string(in, field, "message")));
            case 4 -> status.setReason(empty(string(in, field, "reason")));
            case 6 -> status.setCode((int) varint(in, field, "code"));
            default -> in.skipField(field);
          }
        }
        leave(in, limit, "a Status");
        return status;
      }
      return null;
    } catch (IOException notAStatus) {
      return null;
    }
  }

  /** The field's value as UTF-8 text. */
  static String string(CodedInputStream in, int tag, String what) throws IOException {
    expect(tag, WIRETYPE_LENGTH_DELIMITED, what);
    return in.readString();
  }

  /** The field's value as a varint: a bool, an int or an enum. */
  static long varint(CodedInputStream in, int tag, String what) throws IOException {
    expect(tag, WIRETYPE_VARINT, what);
    return in.readRawVarint64();
  }

  /**
   * Enters the field's message: {@code readTag} returns 0 at its end, until {@link #leave} is given
   * the limit returned here.
   */
  static int enter(CodedInputStream in, int tag, String what) throws IOException {
    expect(tag, WIRETYPE_LENGTH_DELIMITED, what);
    int length = in.readRawVarint32();
    try {
      return in.pushLimit(length);
    } catch (InvalidProtocolBufferException e) {
      throw new InvalidProtocolBufferException(
          what + " has a length of " + length + ", past the end of the message that holds it");
    }
  }

  /**
   * Leaves the message entered: {@code readTag} also returns 0 at the end of the stream, which must
   * not pass for the message's end.
   */
  static void leave(CodedInputStream in, int limit, String what) throws IOException {
    int missing = in.getBytesUntilLimit();
    if (missing != 0) {
      throw new InvalidProtocolBufferException(
          what + " is cut off, " + missing + " bytes before its end");
    }
    in.popLimit(limit);
  }

  private static void expect(int tag, int wireType, String what)
      throws InvalidProtocolBufferException {
    if (getTagWireType(tag) != wireType) {
      throw new InvalidProtocolBufferException(
          what
              + " (field "
              + getTagFieldNumber(tag)
              + ") has wire type "
              + getTagWireType(tag)
              + ", not "
              + wireType);
    }
  }

  private static String empty(String text) {
    return text.isEmpty() ? null : text;
  }

  /**
   * The body as the decoder reads it, with where it is in the body and whether it has seen its end.
   */
  private static final class Input extends FilterInputStream {
    final CodedInputStream coded;

    /** The bytes read before {@link #coded}'s count last started again: see {@link #retire}. */
    private long retired = MAGIC.length;

    boolean ended;

    Input(InputStream body) {
      super(body);
      coded = CodedInputStream.newInstance(this, 64 * 1024);
    }

    long position() {
      return retired + coded.getTotalBytesRead();
    }

    /**
     * Starts the decoder's count of bytes again, between items: it is an int, and it stops reading
     * at 2 GiB, which a list of 150,000 EKS-shaped Nodes would pass.
     */
    void retire() {
      retired += coded.getTotalBytesRead();
      coded.resetSizeCounter();
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      ended |= b < 0;
      return b;
    }

    @Override
    public int read(byte[] into, int offset, int length) throws IOException {
      int n = super.read(into, offset, length);
      ended |= n < 0;
      return n;
    }
  }
}
