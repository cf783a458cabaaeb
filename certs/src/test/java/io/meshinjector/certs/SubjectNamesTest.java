package io.meshinjector.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SubjectNamesTest {

  @Test
  void serviceNamesRunFromShortToFullyQualified() {
    assertThat(SubjectNames.serviceNames("mesh-injector", "mesh"))
        .containsExactly(
            "mesh-injector",
            "mesh-injector.mesh",
            "mesh-injector.mesh.svc",
            "mesh-injector.mesh.svc.cluster.local");
  }

  @Test
  void namesAreSortedIntoDnsNamesAndIpsEachInTheGivenOrder() {
    List<String> given = new ArrayList<>(SubjectNames.serviceNames("web", "shop"));
    given.addAll(List.of("10.0.0.7", "web.example.com"));
    SubjectNames names = SubjectNames.of(given);
    assertThat(names.dnsNames())
        .containsExactly(
            "web", "web.shop", "web.shop.svc", "web.shop.svc.cluster.local", "web.example.com");
    assertThat(names.ipAddresses()).containsExactly("10.0.0.7");
    assertThat(names.commonName()).isEqualTo("web");
  }

  @Test
  void localhostBringsTheLoopbackAddresses() {
    SubjectNames names = SubjectNames.of(List.of("localhost"));
    assertThat(names.dnsNames()).containsExactly("localhost");
    assertThat(names.ipAddresses()).containsExactly("127.0.0.1", "0:0:0:0:0:0:0:1");
  }

  @Test
  void namesAreLowercasedAndDeduplicated() {
    SubjectNames names =
        SubjectNames.of(List.of("Web.Shop", "web.shop.", "127.0.0.1", "127.0.0.1"));
    assertThat(names.dnsNames()).containsExactly("web.shop");
    assertThat(names.ipAddresses()).containsExactly("127.0.0.1");
  }

  @Test
  void invalidNamesAreRefused() {
    assertThatThrownBy(() -> SubjectNames.of(List.of("bad_name"))).hasMessageContaining("bad_name");
    assertThatThrownBy(() -> SubjectNames.of(List.of("-x.example")))
        .hasMessageContaining("-x.example");
  }

  @Test
  void wildcardIsAllowedButNeverTheCommonName() {
    SubjectNames names = SubjectNames.of(List.of("*.example.com"));
    assertThat(names.dnsNames()).containsExactly("*.example.com");
    assertThat(names.commonName()).isEqualTo("mesh-injector");
  }
}
