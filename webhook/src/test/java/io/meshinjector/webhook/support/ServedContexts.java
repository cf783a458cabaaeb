package io.meshinjector.webhook.support;

import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The application context of the last {@code serve} a test thread started in-process, so that the
 * test can reach its beans and close it. {@code serve} returns once the server is up and hands its
 * context to nobody: in production the process is the handle, and SIGTERM closes the context
 * through Spring's shutdown hook. Registered for every Spring application of the test classpath in
 * {@code META-INF/spring.factories} of the test resources.
 */
public final class ServedContexts
    implements ApplicationContextInitializer<ConfigurableApplicationContext> {
  private static final ThreadLocal<ConfigurableApplicationContext> LAST = new ThreadLocal<>();

  @Override
  public void initialize(ConfigurableApplicationContext context) {
    // the management port's child context is not the one a test closes
    if (context.getParent() == null) {
      LAST.set(context);
    }
  }

  /** The context of the last {@code serve} this thread started. */
  public static ConfigurableApplicationContext last() {
    ConfigurableApplicationContext context = LAST.get();
    if (context == null) {
      throw new IllegalStateException("no serve was started on this thread");
    }
    return context;
  }
}
