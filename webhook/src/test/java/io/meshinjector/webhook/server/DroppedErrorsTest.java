package io.meshinjector.webhook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.timeout.ReadTimeoutException;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import reactor.netty.channel.AbortedException;

class DroppedErrorsTest {
  @Test
  void aClientsTimeoutOrResetIsTheConnectionsNotTheServers() {
    assertThat(DroppedErrors.fromTheConnection(ReadTimeoutException.INSTANCE)).isTrue();
    assertThat(DroppedErrors.fromTheConnection(new IOException("Connection reset by peer")))
        .isTrue();
    assertThat(DroppedErrors.fromTheConnection(new AbortedException("closed"))).isTrue();
    assertThat(DroppedErrors.fromTheConnection(new IllegalStateException("a bug"))).isFalse();
  }
}
