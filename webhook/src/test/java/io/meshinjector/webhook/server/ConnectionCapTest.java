package io.meshinjector.webhook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The connection cap on a real listener over loopback: at the cap it stops accepting, not refusing.
 */
@Timeout(30)
class ConnectionCapTest {
  private final EventLoopGroup loops =
      new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
  private final List<Socket> clients = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (Socket s : clients) {
      s.close();
    }
    loops.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).sync();
  }

  @Test
  void atTheCapNewConnectionsWaitUntilOneCloses() throws Exception {
    ConnectionCap cap = new ConnectionCap(2);
    AtomicInteger accepted = new AtomicInteger();
    Channel listener =
        new ServerBootstrap()
            .group(loops)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    accepted.incrementAndGet();
                    cap.opened(ch);
                  }
                })
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .sync()
            .channel();
    int port = ((InetSocketAddress) listener.localAddress()).getPort();

    connect(port);
    awaitTrue(() -> accepted.get() == 1);
    assertThat(listener.config().isAutoRead()).isTrue();
    connect(port);
    awaitTrue(() -> accepted.get() == 2 && !listener.config().isAutoRead());

    // the kernel completes the TCP handshake (the accept queue); the server does not take it
    connect(port);
    Thread.sleep(300);
    assertThat(accepted.get()).as("accepted at the cap").isEqualTo(2);

    clients.get(0).close();
    awaitTrue(() -> accepted.get() == 3);
  }

  private void connect(int port) throws Exception {
    Socket s = new Socket();
    s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
    clients.add(s);
  }

  private static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited 10 s").isLessThan(until);
      Thread.sleep(10);
    }
  }
}
