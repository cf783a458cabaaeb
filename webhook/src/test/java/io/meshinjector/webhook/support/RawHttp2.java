package io.meshinjector.webhook.support;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * An HTTP/2 client that writes frames exactly as a test lays them out, which no library client
 * allows: a request body cut into DATA frames of chosen sizes, as a client sends it when the
 * server's flow-control window opens a few bytes at a time. Headers go out as HPACK literals
 * without indexing, so no encoder state is needed; response headers are not decoded, only the body
 * is read.
 */
public final class RawHttp2 implements AutoCloseable {
  private static final int DATA = 0x0;
  private static final int HEADERS = 0x1;
  private static final int RST_STREAM = 0x3;
  private static final int SETTINGS = 0x4;
  private static final int PING = 0x6;
  private static final int GOAWAY = 0x7;
  private static final int END_STREAM = 0x1;
  private static final int END_HEADERS = 0x4;
  private static final int ACK = 0x1;
  private static final byte[] PREFACE =
      "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  /** How the server ended a stream or the connection. */
  public sealed interface Outcome {}

  /** The stream's response body, complete. */
  public record Answered(String body) implements Outcome {}

  /** The server closed the connection with GOAWAY and this HTTP/2 error code. */
  public record GoAway(long errorCode) implements Outcome {}

  /** The server reset the stream with this error code. */
  public record Reset(long errorCode) implements Outcome {}

  /** ENHANCE_YOUR_CALM: the peer is generating excessive load (RFC 9113 section 7). */
  public static final long ENHANCE_YOUR_CALM = 0xb;

  private final SSLSocket socket;
  private final OutputStream out;
  private final DataInputStream in;
  private final String authority;
  private int nextStream = 1;

  private RawHttp2(SSLSocket socket, String authority) throws IOException {
    this.socket = socket;
    // one flush, one TLS write: the frames reach the server together, as a burst would
    this.out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
    this.in = new DataInputStream(socket.getInputStream());
    this.authority = authority;
  }

  /** Connects over TLS with ALPN {@code h2}, trusting only {@code caCrt}, and sends the preface. */
  public static RawHttp2 connect(Path caCrt, int port) throws Exception {
    SSLSocket socket =
        (SSLSocket) Tls.sslContext(caCrt).getSocketFactory().createSocket("localhost", port);
    SSLParameters params = socket.getSSLParameters();
    params.setApplicationProtocols(new String[] {"h2"});
    socket.setSSLParameters(params);
    socket.setSoTimeout(10_000);
    socket.startHandshake();
    if (!"h2".equals(socket.getApplicationProtocol())) {
      socket.close();
      throw new IOException("the server did not agree to h2: " + socket.getApplicationProtocol());
    }
    RawHttp2 c = new RawHttp2(socket, "localhost:" + port);
    c.out.write(PREFACE);
    c.frame(SETTINGS, 0, 0, new byte[0]);
    c.out.flush();
    return c;
  }

  /**
   * POSTs {@code body} to {@code path}, in DATA frames of the given sizes (the last frame carries
   * END_STREAM and whatever remains), then reads until the stream's answer or the connection's end.
   * The body must fit the server's initial flow-control window (16 KiB), as no WINDOW_UPDATE is
   * awaited.
   */
  public Outcome post(String path, byte[] body, List<Integer> frameSizes) throws IOException {
    int stream = nextStream;
    nextStream += 2;
    frame(HEADERS, END_HEADERS, stream, requestHeaders(path, body.length));
    int offset = 0;
    for (int size : frameSizes) {
      if (offset + size >= body.length) {
        break;
      }
      frame(DATA, 0, stream, slice(body, offset, size));
      offset += size;
    }
    frame(DATA, END_STREAM, stream, slice(body, offset, body.length - offset));
    out.flush();
    return await(stream);
  }

  private Outcome await(int stream) throws IOException {
    ByteArrayOutputStream response = new ByteArrayOutputStream();
    while (true) {
      int length;
      try {
        length = (in.readUnsignedByte() << 16) | in.readUnsignedShort();
      } catch (EOFException | SocketTimeoutException e) {
        throw new IOException("the connection ended with no answer for stream " + stream, e);
      }
      int type = in.readUnsignedByte();
      int flags = in.readUnsignedByte();
      int id = in.readInt() & 0x7fffffff;
      byte[] payload = in.readNBytes(length);
      switch (type) {
        case SETTINGS -> {
          if ((flags & ACK) == 0) {
            frame(SETTINGS, ACK, 0, new byte[0]);
            out.flush();
          }
        }
        case PING -> {
          if ((flags & ACK) == 0) {
            frame(PING, ACK, 0, payload);
            out.flush();
          }
        }
        case GOAWAY -> {
          return new GoAway(uint32(payload, 4));
        }
        case RST_STREAM -> {
          if (id == stream) {
            return new Reset(uint32(payload, 0));
          }
        }
        case DATA -> {
          if (id == stream) {
            response.write(payload);
            if ((flags & END_STREAM) != 0) {
              return new Answered(response.toString(StandardCharsets.UTF_8));
            }
          }
        }
        default -> {
          // HEADERS (status and content type), WINDOW_UPDATE: not needed to judge the outcome
        }
      }
    }
  }

  private void frame(int type, int flags, int stream, byte[] payload) throws IOException {
    int n = payload.length;
    out.write(
        new byte[] {(byte) (n >>> 16), (byte) (n >>> 8), (byte) n, (byte) type, (byte) flags});
    out.write(
        new byte[] {
          (byte) (stream >>> 24), (byte) (stream >>> 16), (byte) (stream >>> 8), (byte) stream
        });
    out.write(payload);
  }

  /**
   * RFC 7541: {@code :method POST} and {@code :scheme https} from the static table (6.1), the rest
   * as literals without indexing whose names come from the static table (6.2.2): pseudo-header
   * names may not be sent as literal strings.
   */
  private byte[] requestHeaders(String path, int contentLength) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.write(0x80 | 3); // :method POST
    b.write(0x80 | 7); // :scheme https
    literal(b, 1, authority); // :authority
    literal(b, 4, path); // :path
    literal(b, 31, "application/json"); // content-type
    literal(b, 28, Integer.toString(contentLength)); // content-length
    return b.toByteArray();
  }

  private static void literal(ByteArrayOutputStream b, int nameIndex, String value) {
    integer(b, 0x00, 4, nameIndex);
    byte[] bytes = value.getBytes(StandardCharsets.US_ASCII);
    integer(b, 0x00, 7, bytes.length); // the eighth bit, Huffman coding, left 0
    b.writeBytes(bytes);
  }

  /** RFC 7541 5.1: an integer in an N-bit prefix after the given high bits. */
  private static void integer(ByteArrayOutputStream b, int highBits, int prefixBits, int n) {
    int max = (1 << prefixBits) - 1;
    if (n < max) {
      b.write(highBits | n);
      return;
    }
    b.write(highBits | max);
    n -= max;
    while (n >= 128) {
      b.write((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    b.write(n);
  }

  private static byte[] slice(byte[] body, int offset, int length) {
    byte[] s = new byte[length];
    System.arraycopy(body, offset, s, 0, length);
    return s;
  }

  private static long uint32(byte[] b, int at) {
    return ((b[at] & 0xffL) << 24)
        | ((b[at + 1] & 0xff) << 16)
        | ((b[at + 2] & 0xff) << 8)
        | (b[at + 3] & 0xff);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
