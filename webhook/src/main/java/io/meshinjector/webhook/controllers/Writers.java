package io.meshinjector.webhook.controllers;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** The label writers' threads: one each, a daemon, so a writer never holds the JVM open. */
final class Writers {
  private Writers() {}

  static ScheduledExecutorService thread(String name) {
    return Executors.newSingleThreadScheduledExecutor(
        r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        });
  }
}
