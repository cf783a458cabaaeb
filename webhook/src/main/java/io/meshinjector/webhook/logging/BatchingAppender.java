package io.meshinjector.webhook.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.UnsynchronizedAppenderBase;
import ch.qos.logback.core.spi.AppenderAttachable;
import ch.qos.logback.core.spi.AppenderAttachableImpl;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Hands log events to other appenders on a thread of its own, in batches. A request thread queues
 * its event and returns without waking anyone; the writer wakes every {@code interval}, or at once
 * when the queue is half full, and writes what has gathered.
 *
 * <p>Logback's {@code AsyncAppender} signals its worker for every event: under load that is a futex
 * call on the event loop for each admission's line, and the worker's park that follows, about 7 %
 * of {@code serve}'s CPU in a profile. Here the cost of a line on the request thread is two atomic
 * updates and a queue node.
 *
 * <p>When the queue is full, the line is dropped rather than the request held up (with {@code
 * failurePolicy: Fail}, a webhook waiting on its log blocks pod creation); the writer then logs how
 * many were dropped, so the loss is never silent. Stopping writes out what is queued.
 */
final class BatchingAppender extends UnsynchronizedAppenderBase<ILoggingEvent>
    implements AppenderAttachable<ILoggingEvent> {
  private static final Duration STOP_WAIT = Duration.ofSeconds(2);

  private final AppenderAttachableImpl<ILoggingEvent> appenders = new AppenderAttachableImpl<>();
  private final ConcurrentLinkedQueue<ILoggingEvent> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger queued = new AtomicInteger();
  private final AtomicLong dropped = new AtomicLong();
  private final int capacity;
  private final long intervalNanos;
  private volatile boolean running;
  private volatile Thread writer;

  BatchingAppender(int capacity, Duration interval) {
    if (capacity < 2) {
      throw new IllegalArgumentException("capacity must be 2 or more, not " + capacity);
    }
    this.capacity = capacity;
    this.intervalNanos = interval.toNanos();
  }

  @Override
  public void start() {
    if (isStarted()) {
      return;
    }
    running = true;
    Thread t = new Thread(this::writeUntilStopped, "log-writer-" + getName());
    t.setDaemon(true);
    writer = t;
    t.start();
    super.start();
  }

  @Override
  public void stop() {
    if (!isStarted()) {
      return;
    }
    super.stop();
    running = false;
    Thread t = writer;
    LockSupport.unpark(t);
    try {
      t.join(STOP_WAIT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (t.isAlive()) {
      addWarn(
          "the log writer did not finish in " + STOP_WAIT + "; " + queued.get() + " lines left");
    }
    appenders.detachAndStopAllAppenders();
  }

  @Override
  protected void append(ILoggingEvent event) {
    int n = queued.incrementAndGet();
    if (n > capacity) {
      queued.decrementAndGet();
      dropped.incrementAndGet();
      return;
    }
    // the MDC (request UID, namespace, pod), the formatted message and the thread's name, taken
    // now: the writer runs on another thread, after the request has moved on
    event.prepareForDeferredProcessing();
    queue.offer(event);
    if (n == capacity / 2) {
      LockSupport.unpark(writer);
    }
  }

  private void writeUntilStopped() {
    while (running) {
      writeQueued();
      LockSupport.parkNanos(this, intervalNanos);
    }
    writeQueued();
  }

  private void writeQueued() {
    ILoggingEvent event;
    while ((event = queue.poll()) != null) {
      queued.decrementAndGet();
      write(event);
    }
    long lost = dropped.getAndSet(0);
    if (lost > 0) {
      write(droppedLine(lost));
    }
  }

  private void write(ILoggingEvent event) {
    try {
      appenders.appendLoopOnAppenders(event);
    } catch (RuntimeException e) {
      // one appender's failure must not end the writer, or every later line would be lost
      addError("an appender failed to write a log line", e);
    }
  }

  private LoggingEvent droppedLine(long lost) {
    LoggingEvent line = new LoggingEvent();
    line.setLoggerName(BatchingAppender.class.getName());
    line.setLevel(Level.WARN);
    line.setThreadName(Thread.currentThread().getName());
    line.setTimeStamp(System.currentTimeMillis());
    line.setMessage(
        "dropped "
            + lost
            + " log lines: the log queue ("
            + capacity
            + " lines) was full, and admissions do not wait for their log");
    if (getContext() instanceof LoggerContext loggers) {
      line.setLoggerContext(loggers);
    }
    return line;
  }

  @Override
  public void addAppender(Appender<ILoggingEvent> appender) {
    appenders.addAppender(appender);
  }

  @Override
  public Iterator<Appender<ILoggingEvent>> iteratorForAppenders() {
    return appenders.iteratorForAppenders();
  }

  @Override
  public Appender<ILoggingEvent> getAppender(String name) {
    return appenders.getAppender(name);
  }

  @Override
  public boolean isAttached(Appender<ILoggingEvent> appender) {
    return appenders.isAttached(appender);
  }

  @Override
  public void detachAndStopAllAppenders() {
    appenders.detachAndStopAllAppenders();
  }

  @Override
  public boolean detachAppender(Appender<ILoggingEvent> appender) {
    return appenders.detachAppender(appender);
  }

  @Override
  public boolean detachAppender(String name) {
    return appenders.detachAppender(name);
  }
}
