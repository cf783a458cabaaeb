package io.meshinjector.plane;

import java.io.IOException;
import java.time.Duration;

/**
 * The chart installed with its webhook configuration pointed at one replica on loopback ({@link
 * Release#urlValue}), and that replica started as the chart's Deployment runs it: the set-up of the
 * classes that admit pods through the API server without a kubelet to run the webhook's pods.
 */
public record ServedRelease(Release release, Serve serve) {
  /** Installs the chart as {@code name} in {@code namespace}; returns once the replica is ready. */
  public static ServedRelease install(
      RealPlane plane, String name, String namespace, Duration ready) throws IOException {
    int port = KubePlane.freePort();
    Release release = Release.install(plane.plane(), name, namespace, Release.urlValue(port));
    Serve serve = release.replica("replica", plane.dir("replica"), port);
    try {
      serve.start().awaitReady(ready);
    } catch (IOException | RuntimeException | Error e) {
      // the class never gets the replica to end in its teardown
      serve.close();
      throw e;
    }
    return new ServedRelease(release, serve);
  }
}
