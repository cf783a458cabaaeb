package io.meshinjector.webhook.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.read.ListAppender;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

class AsyncConsoleTest {
  @Test
  void theRootsAppendersMoveBehindOneQueuedAppenderThatKeepsTheRequestContext()
      throws InterruptedException {
    LoggerContext context = new LoggerContext();
    // the MDC that RequestContext writes to: a new context has none of its own
    context.setMDCAdapter(MDC.getMDCAdapter());
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> console = new ListAppender<>();
    console.setName("CONSOLE");
    console.setContext(context);
    console.start();
    root.addAppender(console);

    AsyncConsole.install(context);
    AsyncConsole.install(context); // a second call changes nothing

    List<Appender<ILoggingEvent>> onRoot = new ArrayList<>();
    root.iteratorForAppenders().forEachRemaining(onRoot::add);
    assertThat(onRoot).singleElement().isInstanceOf(BatchingAppender.class);
    BatchingAppender queued = (BatchingAppender) onRoot.get(0);
    assertThat(queued.getAppender("CONSOLE")).isSameAs(console);
    assertThat(queued.isStarted()).isTrue();

    try (RequestContext ctx = RequestContext.open()) {
      ctx.uid("u-1").namespace("shop").pod("web-1");
      context.getLogger("test").info("injected");
    }
    // the worker thread hands the line on; waited for rather than timed
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (console.list.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    context.stop();

    assertThat(console.list).singleElement();
    ILoggingEvent event = console.list.get(0);
    assertThat(event.getFormattedMessage()).isEqualTo("injected");
    assertThat(event.getMDCPropertyMap())
        .containsEntry("uid", "u-1")
        .containsEntry("namespace", "shop")
        .containsEntry("pod", "web-1");
    assertThat(MDC.get("uid")).isNull();
  }
}
