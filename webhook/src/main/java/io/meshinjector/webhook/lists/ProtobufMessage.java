package io.meshinjector.webhook.lists;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * A cursor over one protobuf message held in a byte array, for the few messages this reads from the
 * API server ({@link ProtobufList}, {@link ProtobufNodeReader}).
 *
 * <p>Why by hand and not with protobuf-java and Kubernetes' generated classes: what is read is a
 * handful of fields of Node, ObjectMeta, Taint and the list's envelope; the rest of each Node (its
 * images, conditions, managed fields: nine tenths of its bytes) is skipped by its length without
 * being looked at. Generated classes would parse all of it, and bring a large dependency for it.
 *
 * <p>The wire format (protobuf's "encoding" guide): each field is a varint key {@code field << 3 |
 * wire type}; wire type 0 is a varint, 1 eight bytes, 2 a varint length and that many bytes
 * (strings and nested messages), 5 four bytes. Kubernetes' messages use no others (3 and 4 are the
 * deprecated groups).
 */
final class ProtobufMessage {
  static final int VARINT = 0;
  static final int FIXED64 = 1;
  static final int LENGTH_DELIMITED = 2;
  static final int FIXED32 = 5;

  private final byte[] bytes;
  private final int end;
  private final String name;
  private int position;
  private int field;
  private int wireType;

  /**
   * @param name what the message is, for errors: "a Node", "a Node's metadata"
   */
  ProtobufMessage(byte[] bytes, int offset, int length, String name) {
    this.bytes = bytes;
    this.position = offset;
    this.end = offset + length;
    this.name = name;
  }

  /** Reads the next field's key; false at the message's end. */
  boolean next() throws IOException {
    if (position >= end) {
      return false;
    }
    long key = varint();
    field = (int) (key >>> 3);
    wireType = (int) (key & 7);
    if (field <= 0) {
      throw malformed("a field number of " + (key >>> 3));
    }
    return true;
  }

  int field() {
    return field;
  }

  /** The current field's value as a varint: a bool, an int or an enum. */
  long varintValue(String what) throws IOException {
    expect(VARINT, what);
    return varint();
  }

  /** The current field's value as UTF-8 text. */
  String string(String what) throws IOException {
    expect(LENGTH_DELIMITED, what);
    int length = length();
    String text = new String(bytes, position, length, StandardCharsets.UTF_8);
    position += length;
    return text;
  }

  /** The current field's value as a message of its own; this cursor moves past it. */
  ProtobufMessage message(String what) throws IOException {
    expect(LENGTH_DELIMITED, what);
    int length = length();
    ProtobufMessage nested = new ProtobufMessage(bytes, position, length, what);
    position += length;
    return nested;
  }

  /** Moves past the current field's value, whatever it holds. */
  void skip() throws IOException {
    switch (wireType) {
      case VARINT -> varint();
      case FIXED64 -> advance(8);
      case LENGTH_DELIMITED -> advance(length());
      case FIXED32 -> advance(4);
      default -> throw malformed("field " + field + " of wire type " + wireType);
    }
  }

  private void expect(int wanted, String what) throws IOException {
    if (wireType != wanted) {
      throw new IOException(
          what + " (field " + field + ") has wire type " + wireType + ", not " + wanted);
    }
  }

  private int length() throws IOException {
    long length = varint();
    if (length < 0 || length > end - position) {
      throw malformed("a length of " + length + " where " + (end - position) + " bytes are left");
    }
    return (int) length;
  }

  private void advance(int count) throws IOException {
    if (count > end - position) {
      throw malformed("a field of " + count + " bytes where " + (end - position) + " are left");
    }
    position += count;
  }

  private long varint() throws IOException {
    long value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (position >= end) {
        throw malformed("a varint cut off at its end");
      }
      byte b = bytes[position++];
      value |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        return value;
      }
    }
    throw malformed("a varint longer than ten bytes");
  }

  private IOException malformed(String what) {
    return new IOException(name + " is not valid protobuf: " + what);
  }
}
