package io.meshinjector.webhook.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

class BatchingAppenderTest {
  private final LoggerContext context = new LoggerContext();

  {
    // the MDC the events copy when they are queued: a new context has none of its own
    context.setMDCAdapter(MDC.getMDCAdapter());
  }

  @Test
  void stoppingWritesWhatIsQueuedInOrder() {
    ListAppender<ILoggingEvent> out = started(new ListAppender<>());
    // an interval longer than the test and a queue that never gets half full: only stop writes
    // what the writer's first pass did not see
    BatchingAppender queued = batching(1000, Duration.ofHours(1), out);
    Logger log = logger(queued);

    for (int i = 0; i < 10; i++) {
      log.info("line {}", i);
    }
    queued.stop();

    assertThat(out.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .containsExactly(
            "line 0", "line 1", "line 2", "line 3", "line 4", "line 5", "line 6", "line 7",
            "line 8", "line 9");
    assertThat(out.isStarted()).as("stop stops the appenders it wrote to").isFalse();
  }

  @Test
  void aHalfFullQueueWakesTheWriter() throws Exception {
    ListAppender<ILoggingEvent> out = started(new ListAppender<>());
    BatchingAppender queued = batching(8, Duration.ofHours(1), out);
    Logger log = logger(queued);
    // the writer's first pass, at start, must be over: a pass that drains lines while they are
    // queued keeps the queue from ever being half full, and the rest waits for the interval
    awaitWriterParked();

    for (int i = 0; i < 4; i++) {
      log.info("line {}", i);
    }

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (out.list.size() < 4 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(out.list).hasSize(4);
    queued.stop();
  }

  @Test
  void aFullQueueDropsLinesWithoutBlockingAndSaysHowMany() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch writing = new CountDownLatch(1);
    ListAppender<ILoggingEvent> out = new ListAppender<>();
    // a console that stalls on its first line, as a full log pipe would
    AppenderBase<ILoggingEvent> stalling =
        new AppenderBase<>() {
          @Override
          protected void append(ILoggingEvent event) {
            writing.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            out.doAppend(event);
          }
        };
    started(out);
    BatchingAppender queued = batching(4, Duration.ofMillis(1), started(stalling));
    Logger log = logger(queued);

    log.info("first");
    assertThat(writing.await(30, TimeUnit.SECONDS)).isTrue();
    long start = System.nanoTime();
    for (int i = 0; i < 100; i++) {
      log.info("line {}", i);
    }
    long took = System.nanoTime() - start;
    release.countDown();
    queued.stop();

    assertThat(took)
        .as("the caller never waited on the stalled console")
        .isLessThan(TimeUnit.SECONDS.toNanos(5));
    List<String> lines = out.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    assertThat(lines).startsWith("first", "line 0", "line 1", "line 2", "line 3");
    assertThat(lines).hasSize(6);
    ILoggingEvent report = out.list.get(5);
    assertThat(report.getLevel()).isEqualTo(Level.WARN);
    assertThat(report.getFormattedMessage()).startsWith("dropped 96 log lines");
  }

  @Test
  void aFailingAppenderDoesNotEndTheWriter() throws Exception {
    ListAppender<ILoggingEvent> out = started(new ListAppender<>());
    // throws out of doAppend itself: logback's base classes would catch a throw from append
    AppenderBase<ILoggingEvent> failing =
        new AppenderBase<>() {
          @Override
          public void doAppend(ILoggingEvent event) {
            if (event.getFormattedMessage().equals("bad")) {
              throw new IllegalStateException("cannot write");
            }
          }

          @Override
          protected void append(ILoggingEvent event) {}
        };
    BatchingAppender queued = batching(100, Duration.ofMillis(1), started(failing));
    queued.addAppender(out);
    Logger log = logger(queued);

    log.info("bad");
    log.info("good");
    queued.stop();

    assertThat(out.list).extracting(ILoggingEvent::getFormattedMessage).contains("good");
  }

  @Test
  void aQueueOfFewerThanTwoLinesIsRefused() {
    assertThatThrownBy(() -> new BatchingAppender(1, Duration.ofMillis(10)))
        .hasMessageContaining("capacity must be 2 or more, not 1");
  }

  private <T extends ch.qos.logback.core.Appender<ILoggingEvent>> T started(T appender) {
    appender.setContext(context);
    appender.start();
    return appender;
  }

  /** Until the writer thread of the appender named "Q" sleeps between passes. */
  private static void awaitWriterParked() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      boolean parked =
          Thread.getAllStackTraces().keySet().stream()
              .filter(t -> t.getName().equals("log-writer-Q") && t.isAlive())
              .allMatch(t -> t.getState() == Thread.State.TIMED_WAITING);
      if (parked) {
        return;
      }
      Thread.sleep(1);
    }
    throw new AssertionError("the log writer did not finish its first pass in 30 s");
  }

  private BatchingAppender batching(
      int capacity, Duration interval, ch.qos.logback.core.Appender<ILoggingEvent> out) {
    BatchingAppender queued = new BatchingAppender(capacity, interval);
    queued.setName("Q");
    queued.setContext(context);
    queued.addAppender(out);
    queued.start();
    return queued;
  }

  private Logger logger(BatchingAppender queued) {
    Logger log = context.getLogger("test");
    log.setAdditive(false);
    log.addAppender(queued);
    return log;
  }
}
