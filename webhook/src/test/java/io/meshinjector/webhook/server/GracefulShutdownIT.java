package io.meshinjector.webhook.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.meshinjector.webhook.support.Reviews;
import io.meshinjector.webhook.support.Served;
import io.meshinjector.webhook.support.Tls;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM under load, as Kubernetes delivers it: the context close that the JVM's shutdown hook
 * runs. Clients keep posting, as the API server does until the endpoints controller has removed the
 * replica (simulated here: one second after {@code /readyz} first answers 503, well inside the
 * drain period). Meanwhile a few slow requests are in flight across the end of the drain. None may
 * fail: the drain keeps the listener answering, graceful shutdown lets the slow ones finish.
 */
class GracefulShutdownIT {
  private static final Duration DRAIN = Duration.ofSeconds(4);
  private static final Duration ENDPOINTS_REMOVED_AFTER = Duration.ofSeconds(1);
  private static final int CLIENTS = 8;
  private static final int SLOW = 4;
  private static final int MAX_REQUESTS = 20_000;

  @TempDir Path tmp;

  @Test
  @Timeout(90)
  void readinessTurnsFirstTheListenerDrainsAndNoRequestFails() throws Exception {
    Served served =
        Served.start(
            tmp,
            "webhook:\n  server:\n    drainPeriod: "
                + DRAIN.toSeconds()
                + "s\n    shutdownTimeout: 20s\n");
    HttpClient h2 = Tls.client(served.ca());
    HttpClient h1 = Tls.client(served.ca(), HttpClient.Version.HTTP_1_1);

    AtomicBoolean endpointsPresent = new AtomicBoolean(true);
    AtomicInteger requests = new AtomicInteger();
    AtomicInteger failures = new AtomicInteger();
    AtomicInteger resends = new AtomicInteger();
    AtomicInteger servedAfterNotReady = new AtomicInteger();
    AtomicLong notReadyAt = new AtomicLong();
    ConcurrentLinkedQueue<String> samples = new ConcurrentLinkedQueue<>();
    long start = System.nanoTime();

    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < CLIENTS; i++) {
      HttpClient client = i % 2 == 0 ? h2 : h1;
      threads.add(
          new Thread(
              () -> {
                while (endpointsPresent.get() && requests.get() < MAX_REQUESTS) {
                  requests.incrementAndGet();
                  try {
                    post(client, served, resends);
                    if (notReadyAt.get() != 0) {
                      servedAfterNotReady.incrementAndGet();
                    }
                  } catch (Exception | AssertionError e) {
                    failures.incrementAndGet();
                    if (samples.size() < 5) {
                      samples.add(e.toString());
                    }
                  }
                }
              },
              "client-" + i));
    }
    // the endpoints controller: drops the replica a while after its readiness fails
    Thread endpoints =
        new Thread(
            () -> {
              try {
                while (notReadyAt.get() == 0) {
                  if (readyz(h1, served) == 503) {
                    notReadyAt.set(System.nanoTime());
                  }
                  Thread.sleep(50);
                }
                Thread.sleep(ENDPOINTS_REMOVED_AFTER.toMillis());
              } catch (Exception e) {
                samples.add("readiness poll: " + e);
              } finally {
                endpointsPresent.set(false);
              }
            },
            "endpoints");
    threads.forEach(Thread::start);
    endpoints.start();
    // warmed up: every client has been answered a few times, so latencies are the steady ones
    long warmUntil = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (requests.get() < CLIENTS * 10 && System.nanoTime() < warmUntil) {
      Thread.sleep(100);
    }
    Thread.sleep(500);
    assertThat(failures.get()).as("failures before SIGTERM: " + samples).isZero();
    assertThat(readyz(h1, served)).as("/readyz before SIGTERM").isEqualTo(200);

    // requests in flight across the end of the drain: their bodies finish after it
    SlowRequest[] slow = new SlowRequest[SLOW];
    for (int i = 0; i < SLOW; i++) {
      slow[i] = new SlowRequest(served, DRAIN.plusSeconds(1));
      slow[i].start();
    }
    for (SlowRequest s : slow) {
      assertThat(s.halfSent.await(5, TimeUnit.SECONDS)).as("slow request started").isTrue();
    }
    long sigterm = System.nanoTime();
    Thread closer = new Thread(() -> served.context().close(), "sigterm");
    closer.start();

    endpoints.join(15_000);
    for (Thread t : threads) {
      t.join(15_000);
    }
    closer.join(30_000);
    long closedAt = System.nanoTime();
    for (SlowRequest s : slow) {
      s.join(15_000);
    }
    boolean refusedAfter = refusesConnections(served.https());

    double seconds = (closedAt - start) / 1e9;
    System.out.printf(
        Locale.ROOT,
        "FAULT sigterm requests=%d concurrency=%d+%d slow seconds=%.1f failed=%d"
            + " served-after-readyz-503=%d readyz-503-after-sigterm=%.2fs slow-ok=%d/%d"
            + " goaway-resends=%d shutdown-took=%.1fs%n",
        requests.get(),
        CLIENTS,
        SLOW,
        seconds,
        failures.get(),
        servedAfterNotReady.get(),
        (notReadyAt.get() - sigterm) / 1e9,
        java.util.Arrays.stream(slow).filter(s -> s.status == 200).count(),
        SLOW,
        resends.get(),
        (closedAt - sigterm) / 1e9);

    assertThat(notReadyAt.get()).as("/readyz turned 503").isGreaterThan(sigterm);
    assertThat((notReadyAt.get() - sigterm) / 1e9)
        .as("seconds from SIGTERM to /readyz 503")
        .isLessThan(1.0);
    assertThat(failures.get()).as(samples.toString()).isZero();
    assertThat(servedAfterNotReady.get())
        .as("requests served after /readyz turned 503 (the drain)")
        .isGreaterThan(0);
    for (SlowRequest s : slow) {
      assertThat(s.error).as("slow request in flight at the end of the drain").isNull();
      assertThat(s.status).isEqualTo(200);
      assertThat(s.response).contains("\"uid\":\"" + s.uid + "\"");
    }
    assertThat((closedAt - sigterm) / 1e9)
        .as("shutdown lasted the drain and the slow requests")
        .isGreaterThanOrEqualTo(DRAIN.toSeconds());
    assertThat(refusedAfter).as("the port is closed once shut down").isTrue();
  }

  private static void post(HttpClient client, Served served, AtomicInteger resends)
      throws Exception {
    ObjectNode review = Reviews.podCreate("admission.k8s.io/v1", "shop", Reviews.examplePod());
    String uid = review.path("request").path("uid").asText();
    HttpResponse<String> r =
        Tls.send(
            client,
            HttpRequest.newBuilder(served.uri("/mutate"))
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofByteArray(Reviews.JSON.writeValueAsBytes(review)))
                .build(),
            HttpResponse.BodyHandlers.ofString(),
            resends::incrementAndGet);
    if (r.statusCode() != 200 || !r.body().contains("\"uid\":\"" + uid + "\"")) {
      throw new AssertionError("status " + r.statusCode() + ": " + r.body());
    }
  }

  private static int readyz(HttpClient client, Served served) throws Exception {
    return client
        .send(
            HttpRequest.newBuilder(served.uri("/readyz")).timeout(Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static boolean refusesConnections(int port) {
    try (Socket s = new Socket("localhost", port)) {
      return false;
    } catch (ConnectException e) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** HTTP/1.1 by hand: headers and half the body, a pause, then the rest. */
  static final class SlowRequest extends Thread {
    final CountDownLatch halfSent = new CountDownLatch(1);
    final String uid;
    private final byte[] body;
    private final Served served;
    private final Duration pause;
    volatile int status;
    volatile Throwable error;
    volatile String response = "";

    SlowRequest(Served served, Duration pause) throws Exception {
      ObjectNode review = Reviews.podCreate("admission.k8s.io/v1", "shop", Reviews.examplePod());
      this.uid = review.path("request").path("uid").asText();
      this.body = Reviews.JSON.writeValueAsBytes(review);
      this.served = served;
      this.pause = pause;
      setDaemon(true);
    }

    @Override
    public void run() {
      try (SSLSocket socket =
          (SSLSocket)
              Tls.sslContext(served.ca())
                  .getSocketFactory()
                  .createSocket("localhost", served.https())) {
        socket.setSoTimeout(20_000);
        socket.startHandshake();
        OutputStream out = socket.getOutputStream();
        String head =
            "POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Content-Length: "
                + body.length
                + "\r\nConnection: close\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(body, 0, body.length / 2);
        out.flush();
        halfSent.countDown();
        Thread.sleep(pause.toMillis());
        out.write(body, body.length / 2, body.length - body.length / 2);
        out.flush();
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        in.transferTo(all);
        String response = all.toString(StandardCharsets.UTF_8);
        status = response.startsWith("HTTP/1.1 ") ? Integer.parseInt(response.substring(9, 12)) : 0;
        this.response = response;
      } catch (Throwable e) {
        error = e;
        halfSent.countDown();
      }
    }
  }
}
