package io.meshinjector.engine.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.RuleEngine;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.EngineConfig;
import io.meshinjector.engine.decision.CompletionRule;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.NodeConstraint;
import io.meshinjector.engine.decision.Plan;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** One row of a table-driven engine test: a cluster, a pod, a config and what must come out. */
public final class Scenario {
  public static final Instant NOW = Instant.parse("2026-11-20T10:30:00Z");

  private final String name;
  private final List<HasMetadata> objects = new ArrayList<>();
  private final List<String> cniReady = new ArrayList<>();
  private Pod pod;
  private String config = "";
  private String outcome;
  private String summary;
  private String constraint;
  private boolean constraintSet;
  private final List<String> reasonContains = new ArrayList<>();
  private final List<String> reasonOmits = new ArrayList<>();
  private final List<String> traceContains = new ArrayList<>();
  private final List<String> traceOmits = new ArrayList<>();
  private String completion;
  private boolean completionSet;
  private final List<String> warningContains = new ArrayList<>();
  private final List<String> warningOmits = new ArrayList<>();
  private boolean noWarnings;
  private Boolean ipv6;

  private Scenario(String name) {
    this.name = name;
  }

  public static Scenario of(String name) {
    return new Scenario(name);
  }

  public Scenario cluster(HasMetadata... objs) {
    objects.addAll(Arrays.asList(objs));
    return this;
  }

  public Scenario cniReady(String... nodes) {
    cniReady.addAll(Arrays.asList(nodes));
    return this;
  }

  public Scenario pod(Pod p) {
    this.pod = p;
    return this;
  }

  public Scenario config(String yaml) {
    this.config = yaml;
    return this;
  }

  /** Expects injection with this one-line summary, e.g. {@code init/nft native-sidecar await}. */
  public Scenario injects(String summary) {
    this.outcome = "injected";
    this.summary = summary;
    return this;
  }

  /** Expects a skip or refusal with this reason code. */
  public Scenario skips(String code) {
    this.outcome = "skip:" + code;
    return this;
  }

  public Scenario refuses(String code) {
    this.outcome = "refuse:" + code;
    return this;
  }

  /** The node constraint as text ({@code key In [a, b], ...}), or null for none. */
  public Scenario constraint(String text) {
    this.constraint = text;
    this.constraintSet = true;
    return this;
  }

  public Scenario reason(String... parts) {
    reasonContains.addAll(Arrays.asList(parts));
    return this;
  }

  public Scenario reasonOmits(String... parts) {
    reasonOmits.addAll(Arrays.asList(parts));
    return this;
  }

  public Scenario trace(String... parts) {
    traceContains.addAll(Arrays.asList(parts));
    return this;
  }

  public Scenario traceOmits(String... parts) {
    traceOmits.addAll(Arrays.asList(parts));
    return this;
  }

  /** The run-to-completion rule's code ({@code constrained}...), or null when it must not apply. */
  public Scenario completion(String code) {
    this.completion = code;
    this.completionSet = true;
    return this;
  }

  public Scenario warning(String... parts) {
    warningContains.addAll(Arrays.asList(parts));
    return this;
  }

  /** No warning contains any of these. */
  public Scenario warningOmits(String... parts) {
    warningOmits.addAll(Arrays.asList(parts));
    return this;
  }

  /** The injected plan's redirect does ({@code true}) or does not cover IPv6. */
  public Scenario ipv6(boolean covers) {
    this.ipv6 = covers;
    return this;
  }

  public Scenario noWarnings() {
    this.noWarnings = true;
    return this;
  }

  public Decision decide() {
    EngineConfig cfg = ConfigLoader.fromYaml(config).engine();
    InMemoryClusterView view = InMemoryClusterView.of(cfg.capabilities(), objects);
    cniReady.forEach(n -> view.setCniReady(n, true));
    return new RuleEngine(cfg, Clock.fixed(NOW, ZoneOffset.UTC)).decide(name, pod, view);
  }

  public void verify() {
    Decision d = decide();
    String all =
        "decision for '"
            + name
            + "':\n"
            + String.join("\n", d.trace().stream().map(Object::toString).toList())
            + "\nwarnings: "
            + d.warnings()
            + "\nreason: "
            + d.reason().orElse("-");
    if (Boolean.getBoolean("scenario.print")) {
      System.out.println(all + "\n");
    }
    if ("injected".equals(outcome)) {
      assertThat(d.inject()).as(all).isTrue();
      Plan plan = d.plan().orElseThrow();
      assertThat(plan.path() + " " + plan.proxy().id() + (plan.proxyAwait() ? " await" : ""))
          .as(all)
          .isEqualTo(summary);
      if (ipv6 != null) {
        assertThat(plan.ipv6()).as(all + "\nipv6").isEqualTo(ipv6);
      }
      if (constraintSet) {
        assertThat(
                Optional.ofNullable(plan.nodeConstraint())
                    .map(NodeConstraint::toString)
                    .orElse(null))
            .as(all)
            .isEqualTo(constraint);
      }
    } else {
      String[] p = outcome.split(":", 2);
      assertThat(d.inject()).as(all).isFalse();
      assertThat(d.rejected()).as(all).isEqualTo(p[0].equals("refuse"));
      assertThat(d.outcomeCode()).as(all).isEqualTo(p[1]);
    }
    for (String r : reasonContains) {
      assertThat(d.reason()).as(all).hasValueSatisfying(s -> assertThat(s).contains(r));
    }
    for (String r : reasonOmits) {
      assertThat(d.reason()).as(all).hasValueSatisfying(s -> assertThat(s).doesNotContain(r));
    }
    String trace = String.join("\n", d.trace().stream().map(Object::toString).toList());
    for (String t : traceContains) {
      assertThat(trace).as(all).contains(t);
    }
    for (String t : traceOmits) {
      assertThat(trace).as(all).doesNotContain(t);
    }
    if (completionSet) {
      assertThat(d.completionRule().map(CompletionRule::code).orElse(null))
          .as(all)
          .isEqualTo(completion);
    }
    for (String w : warningContains) {
      assertThat(d.warnings()).as(all).anySatisfy(s -> assertThat(s).contains(w));
    }
    for (String w : warningOmits) {
      assertThat(d.warnings()).as(all).noneSatisfy(s -> assertThat(s).contains(w));
    }
    if (noWarnings) {
      assertThat(d.warnings()).as(all).isEmpty();
    }
  }

  @Override
  public String toString() {
    return name;
  }
}
