package io.meshinjector.webhook.controllers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The writer alone, against fabric8's CRUD mock, over namespaces whose wanted and present labels
 * the test sets (as an informer's cache would show them, so the test decides when a patch is
 * echoed) and with a clock that moves only when the test or the pacing moves it.
 *
 * <p>The writer works on its own thread. Every step the test takes is followed by the events the
 * fakes record on that thread, in order, each pass ending with {@code "pass end"} (the last name of
 * every comparison), so nothing here waits for time to pass: a step that never comes fails on the
 * hang guard {@link #LIMIT}.
 */
@EnableKubernetesMockClient(crud = true)
class LabelWriterTest {
  static final Duration LIMIT = Duration.ofSeconds(30);

  /** Long enough that the periodic comparison runs once, at the start; the test asks for more. */
  static final Duration NO_RESYNC = Duration.ofHours(1);

  /** More steps than any pass here takes. */
  static final int STEPS = 50;

  static final String KEY = "test.mesh-injector.io/";
  static final ObjectMapper JSON = new ObjectMapper();

  KubernetesMockServer server;
  KubernetesClient client;

  final BlockingQueue<String> events = new LinkedBlockingQueue<>();
  final FakeTicker ticker = new FakeTicker(events);
  LabelWriter writer;

  @AfterEach
  void closeWriter() {
    if (writer != null) {
      writer.close();
    }
  }

  private Namespaces namespaces(int patchesPerSecond, String... names) {
    return new Namespaces(client, events, List.of(names), patchesPerSecond);
  }

  private void start(Namespaces subject) {
    writer = new LabelWriter(client, List.of(subject), NO_RESYNC, ticker);
    writer.startLeading();
  }

  private void create(String name, Map<String, String> labels) {
    Namespace ns = new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build();
    ns.getMetadata().setLabels(new HashMap<>(labels));
    client.namespaces().resource(ns).create();
  }

  private Map<String, String> stored(String name) {
    return client.namespaces().withName(name).get().getMetadata().getLabels();
  }

  /** The next thing the writer did; fails if it does nothing more. */
  private String next() throws InterruptedException {
    String e = events.poll(LIMIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(e).as("the writer's next step, within the hang guard " + LIMIT).isNotNull();
    return e;
  }

  /**
   * The writer's next steps, through the end of the pass they are in; fails on a pass that does not
   * end, as one that writes the same objects over and over.
   */
  private List<String> pass() throws InterruptedException {
    List<String> out = new ArrayList<>();
    String e;
    do {
      assertThat(out).as("a pass that ends").hasSizeLessThan(STEPS);
      e = next();
      out.add(e);
    } while (!e.equals(Namespaces.PASS_END));
    return out;
  }

  @Test
  void writesOnlyTheDifferenceAsAMergePatchOfTheLabels() throws Exception {
    create("shop", Map.of("team", "shop", KEY + "a", "0", KEY + "b", "x"));
    create("done", Map.of(KEY + "a", "1"));
    Namespaces subject = namespaces(0, "done", "shop");
    // a changes, b is no longer wanted, c is new; the team label is not the subject's
    subject.set(
        "shop", Map.of(KEY + "a", "1", KEY + "c", "2"), Map.of(KEY + "a", "0", KEY + "b", "x"));
    subject.set("done", Map.of(KEY + "a", "1"), Map.of(KEY + "a", "1"));

    start(subject);

    assertThat(pass()).containsExactly("patched shop", "pass end");
    Map<String, String> difference = new HashMap<>();
    difference.put(KEY + "a", "1");
    difference.put(KEY + "c", "2");
    difference.put(KEY + "b", null);
    assertThat(subject.sent).containsOnlyKeys("shop");
    assertThat(subject.sent.get("shop")).isEqualTo(difference);
    assertThat(stored("shop"))
        .containsEntry("team", "shop")
        .containsEntry(KEY + "a", "1")
        .containsEntry(KEY + "c", "2");
    // the merge patch removes b (the mock keeps it with a null value, a real server drops it)
    assertThat(stored("shop").get(KEY + "b")).isNull();
  }

  /** What goes over the wire: one merge patch that names the labels that differ, and only them. */
  @Test
  void thePatchIsAMergePatchOfTheDifferingLabels() throws Exception {
    create("shop", Map.of("team", "shop", KEY + "b", "x"));
    // answered by an expectation, since the CRUD mock consumes the body it applies
    server
        .expect()
        .patch()
        .withPath("/api/v1/namespaces/shop")
        .andReturn(200, client.namespaces().withName("shop").get())
        .once();
    Namespaces subject = namespaces(0, "shop");
    subject.set("shop", Map.of(KEY + "a", "1"), Map.of(KEY + "b", "x"));

    start(subject);

    assertThat(pass()).containsExactly("patched shop", "pass end");
    List<RecordedRequest> writes = new ArrayList<>();
    for (int i = server.getRequestCount(); i > 0; i--) {
      RecordedRequest r = server.takeRequest();
      if (!r.getMethod().equals("GET") && !r.getMethod().equals("POST")) {
        writes.add(r); // not the set-up's creation, nor the client's read before its patch
      }
    }
    assertThat(writes).hasSize(1);
    RecordedRequest patch = writes.get(0);
    assertThat(patch.getMethod()).isEqualTo("PATCH");
    assertThat(patch.getPath()).isEqualTo("/api/v1/namespaces/shop");
    assertThat(patch.getHeader("Content-Type")).startsWith("application/merge-patch+json");
    assertThat(JSON.readTree(patch.getBody().readUtf8()))
        .isEqualTo(
            JSON.readTree(
                "{\"metadata\":{\"labels\":{\"" + KEY + "a\":\"1\",\"" + KEY + "b\":null}}}"));
  }

  @Test
  void aPatchNotYetEchoedIsNotSentAgainBeforeTheEchoWait() throws Exception {
    create("shop", Map.of());
    Namespaces subject = namespaces(0, "shop");
    subject.set("shop", Map.of(KEY + "a", "1"), Map.of());
    start(subject);
    assertThat(pass()).containsExactly("patched shop", "pass end");

    // the informer still shows the old labels: a change, and the comparison, pass it by
    ticker.advance(LabelWriter.ECHO_WAIT.minusNanos(1));
    subject.changed("shop");
    assertThat(pass()).containsExactly("pass end");

    // past the echo wait the informer may have missed it: the same patch goes out again
    ticker.advance(Duration.ofNanos(1));
    subject.changed("shop");
    assertThat(pass()).containsExactly("patched shop", "pass end");

    // once the informer shows it, nothing differs; a new wish goes out at once
    subject.set("shop", Map.of(KEY + "a", "1"), Map.of(KEY + "a", "1"));
    subject.changed("shop");
    assertThat(pass()).containsExactly("pass end");
    subject.set("shop", Map.of(KEY + "a", "2"), Map.of(KEY + "a", "1"));
    subject.changed("shop");
    assertThat(pass()).containsExactly("patched shop", "pass end");
    assertThat(stored("shop")).containsEntry(KEY + "a", "2");
  }

  @Test
  void pacesThePatchesAtTheSubjectsRate() throws Exception {
    for (String n : List.of("a", "b", "c")) {
      create(n, Map.of());
    }
    Namespaces subject = namespaces(4, "a", "b", "c");
    for (String n : List.of("a", "b", "c")) {
      subject.set(n, Map.of(KEY + "x", "1"), Map.of());
    }
    start(subject);

    // 4 a second: a quarter of a second between two patches, none before the first
    assertThat(pass())
        .containsExactly(
            "patched a", "sleep 250 ms", "patched b", "sleep 250 ms", "patched c", "pass end");

    // a writer idle for longer than its pace owes no wait
    ticker.advance(Duration.ofSeconds(1));
    subject.set("a", Map.of(KEY + "x", "2"), Map.of(KEY + "x", "1"));
    subject.changed("a");
    assertThat(pass()).containsExactly("patched a", "pass end");
  }

  @Test
  void stopLeadingStopsTheWritingBeforeTheNextPatch() throws Exception {
    create("a", Map.of());
    create("b", Map.of());
    Namespaces subject = namespaces(1, "a", "b");
    subject.set("a", Map.of(KEY + "x", "1"), Map.of());
    subject.set("b", Map.of(KEY + "x", "1"), Map.of());
    CountDownLatch slot = ticker.holdSleeps();
    start(subject);
    assertThat(next()).isEqualTo("patched a");
    assertThat(next()).isEqualTo("sleep 1000 ms");

    // the lease is lost while the writer waits for b's slot
    writer.stopLeading();
    slot.countDown();
    // closing interrupts the writer's thread; the fake sleep ignores that, so only stopLeading can
    // keep b from being asked for and patched
    writer.close();
    Thread thread = ticker.sleeper;
    thread.join(LIMIT.toMillis());
    assertThat(thread.isAlive()).as("the writer's thread ended").isFalse();

    assertThat(events).isEmpty();
    assertThat(subject.asked).containsExactly("a");
    assertThat(stored("b")).doesNotContainKey(KEY + "x");
  }

  @Test
  void anObjectThatChangedIsWrittenAheadOfTheRest() throws Exception {
    for (String n : List.of("a", "b", "c")) {
      create(n, Map.of());
    }
    Namespaces subject = namespaces(0, "a", "b", "c");
    for (String n : List.of("a", "b", "c")) {
      subject.set(n, Map.of(KEY + "x", "1"), Map.of());
    }
    // c changes while a is written: it goes next, then the comparison starts over
    AtomicBoolean once = new AtomicBoolean();
    subject.afterPatch =
        n -> {
          if (n.equals("a") && once.compareAndSet(false, true)) {
            subject.changed("c");
          }
        };
    start(subject);

    assertThat(pass()).containsExactly("patched a", "patched c", "patched b", "pass end");
  }

  @Test
  void aMissingObjectIsNotWarnedAndARepeatedFailureIsWarnedOnce() throws Exception {
    server
        .expect()
        .patch()
        .withPath("/api/v1/namespaces/locked")
        .andReturn(
            403,
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":"
                + "\"Forbidden\",\"code\":403,\"message\":\"namespaces \\\"locked\\\" is"
                + " forbidden\"}")
        .always();
    create("locked", Map.of());
    Namespaces subject = namespaces(0, "gone", "locked");
    subject.set("gone", Map.of(KEY + "x", "1"), Map.of()); // the informer has not seen it go
    subject.set("locked", Map.of(KEY + "x", "1"), Map.of());
    start(subject);
    assertThat(pass())
        .containsExactly("failed gone 404 quietly", "failed locked 403 with a warning", "pass end");

    // the same failure again, even with a 404 between two of them, is counted without a warning
    subject.changed("locked");
    assertThat(pass())
        .containsExactly(
            "failed locked 403 quietly",
            "failed gone 404 quietly",
            "failed locked 403 quietly",
            "pass end");

    // a patch that goes through ends the streak: the next failure is news again
    create("gone", Map.of());
    subject.changed("gone");
    assertThat(pass())
        .containsExactly("patched gone", "failed locked 403 with a warning", "pass end");
  }

  /**
   * A failure for every object alike (RBAC refusing the patch cluster-wide) is warned once, though
   * the API server's message names each object.
   */
  @Test
  void theSameFailureOnEachObjectIsWarnedOnce() throws Exception {
    for (String name : List.of("locked-a", "locked-b")) {
      server
          .expect()
          .patch()
          .withPath("/api/v1/namespaces/" + name)
          .andReturn(
              403,
              "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":"
                  + "\"Forbidden\",\"code\":403,\"message\":\"namespaces \\\""
                  + name
                  + "\\\" is forbidden\"}")
          .always();
      create(name, Map.of());
    }
    Namespaces subject = namespaces(0, "locked-a", "locked-b");
    subject.set("locked-a", Map.of(KEY + "x", "1"), Map.of());
    subject.set("locked-b", Map.of(KEY + "x", "1"), Map.of());
    start(subject);
    assertThat(pass())
        .containsExactly(
            "failed locked-a 403 with a warning", "failed locked-b 403 quietly", "pass end");
  }

  /**
   * Namespaces whose wanted and present labels the test sets, read through that view and patched in
   * the mock. Each pass ends with reading {@link #PASS_END}, the last of its names.
   */
  private static final class Namespaces implements LabelSubject {
    static final String PASS_END = "pass end";

    final KubernetesClient client;
    final BlockingQueue<String> events;
    final List<String> names;
    final int patchesPerSecond;
    final Map<String, Labels> view = new ConcurrentHashMap<>();

    /** The last patch sent to each object, as the writer reported it. */
    final Map<String, Map<String, String>> sent = new ConcurrentHashMap<>();

    /** The objects whose patch the writer asked for, in order. */
    final List<String> asked = new CopyOnWriteArrayList<>();

    /** Runs on the writer's thread after each patch. */
    volatile Consumer<String> afterPatch = n -> {};

    private volatile Consumer<String> listener;

    Namespaces(
        KubernetesClient client, BlockingQueue<String> events, List<String> names, int rate) {
      this.client = client;
      this.events = events;
      this.names = names;
      this.patchesPerSecond = rate;
    }

    void set(String name, Map<String, String> wanted, Map<String, String> present) {
      view.put(name, new Labels(wanted, present));
    }

    /** What the informer's event handler does: tells the writer. */
    void changed(String name) {
      listener.accept(name);
    }

    @Override
    public String thread() {
      return "test-label-writer";
    }

    @Override
    public String starting() {
      return "test";
    }

    @Override
    public void onChange(Consumer<String> l) {
      this.listener = l;
    }

    @Override
    public Collection<String> names() {
      List<String> out = new ArrayList<>(names);
      out.add(PASS_END);
      return out;
    }

    @Override
    public Function<String, Optional<Labels>> reader() {
      return n -> {
        if (n.equals(PASS_END)) {
          events.add(PASS_END);
        }
        return Optional.ofNullable(view.get(n));
      };
    }

    @Override
    public Resource<Namespace> object(String name) {
      asked.add(name);
      return client.namespaces().withName(name);
    }

    @Override
    public int patchesPerSecond() {
      return patchesPerSecond;
    }

    @Override
    public void patched(String name, Map<String, String> patch) {
      sent.put(name, new HashMap<>(patch)); // a removal is a null value
      events.add("patched " + name);
      afterPatch.accept(name);
    }

    @Override
    public void failed(String name, KubernetesClientException e, boolean warn) {
      events.add("failed " + name + " " + e.getCode() + (warn ? " with a warning" : " quietly"));
    }
  }

  /**
   * A clock that moves only when the test advances it or the writer sleeps: a sleep is recorded and
   * moves the clock on by its length, at once, or once the test lets it go on.
   */
  private static final class FakeTicker implements LabelWriter.Ticker {
    private final AtomicLong now = new AtomicLong(7_000_000_000L);
    private final BlockingQueue<String> events;
    private volatile CountDownLatch hold;

    /** The thread that last slept: the writer's. */
    volatile Thread sleeper;

    FakeTicker(BlockingQueue<String> events) {
      this.events = events;
    }

    void advance(Duration d) {
      now.addAndGet(d.toNanos());
    }

    /** From now on a sleep waits for the returned latch, and ignores interrupts meanwhile. */
    CountDownLatch holdSleeps() {
      hold = new CountDownLatch(1);
      return hold;
    }

    @Override
    public long nanoTime() {
      return now.get();
    }

    @Override
    public void sleep(long nanos) {
      sleeper = Thread.currentThread();
      events.add("sleep " + TimeUnit.NANOSECONDS.toMillis(nanos) + " ms");
      CountDownLatch h = hold;
      boolean interrupted = false;
      while (h != null) {
        try {
          h.await();
          h = null;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      now.addAndGet(nanos);
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
