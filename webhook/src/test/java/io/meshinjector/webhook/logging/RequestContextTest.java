package io.meshinjector.webhook.logging;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

class RequestContextTest {
  @Test
  void anInnerContextJoinsTheOuterOneAndLeavesItOpen() {
    try (RequestContext outer = RequestContext.open()) {
      assertThat(MDC.get(RequestContext.UID)).isEqualTo("-");
      try (RequestContext inner = RequestContext.open()) {
        inner.uid("u-1").namespace("shop").pod("checkout");
      }
      // what the inner code learnt stays for the outer code's lines
      assertThat(MDC.get(RequestContext.UID)).isEqualTo("u-1");
      assertThat(MDC.get(RequestContext.NAMESPACE)).isEqualTo("shop");
      assertThat(MDC.get(RequestContext.POD)).isEqualTo("checkout");
    }
    assertThat(MDC.get(RequestContext.UID)).isNull();
    assertThat(MDC.get(RequestContext.NAMESPACE)).isNull();
    assertThat(MDC.get(RequestContext.POD)).isNull();
  }

  @Test
  void aNewContextAfterAClosedOneStartsEmpty() {
    try (RequestContext first = RequestContext.open()) {
      first.uid("u-1").namespace("shop").pod("checkout");
    }
    try (RequestContext second = RequestContext.open()) {
      assertThat(MDC.get(RequestContext.UID)).isEqualTo("-");
      assertThat(MDC.get(RequestContext.POD)).isEqualTo("-");
    }
  }
}
