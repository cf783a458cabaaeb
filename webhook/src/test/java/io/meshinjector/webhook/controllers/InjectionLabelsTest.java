package io.meshinjector.webhook.controllers;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which namespaces the leader labels for the fail-closed webhook entry. */
class InjectionLabelsTest {

  @ParameterizedTest(name = "{0}: inject={1}, mesh-injector.io/inject={2} -> {3}")
  @CsvSource(
      nullValues = "-",
      value = {
        "shop, enabled, -, true",
        "shop, -, enabled, true",
        "shop, enabled, enabled, true",
        // the two spellings disagree: disabled wins, as in the gate
        "shop, enabled, disabled, false",
        "shop, disabled, enabled, false",
        "shop, disabled, -, false",
        "shop, -, -, false",
        "shop, yes, -, false",
        // an excluded namespace is never sent to the fail-closed entry
        "kube-system, enabled, -, false",
      })
  void labelledExactlyWhenTheNamespaceAsksForInjection(
      String name, String bare, String prefixed, boolean labelled) {
    Map<String, String> annotations = new HashMap<>();
    if (bare != null) {
      annotations.put("inject", bare);
    }
    if (prefixed != null) {
      annotations.put("mesh-injector.io/inject", prefixed);
    }
    assertThat(InjectionLabels.wanted(name, annotations, Set.of("kube-system")))
        .isEqualTo(labelled);
  }
}
