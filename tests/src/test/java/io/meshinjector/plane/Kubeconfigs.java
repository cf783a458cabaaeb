package io.meshinjector.plane;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** Kubeconfig files as kubectl writes them: one cluster, one user with a bearer token. */
final class Kubeconfigs {
  private Kubeconfigs() {}

  static String withToken(String server, String caPem, String token) {
    String ca = Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.US_ASCII));
    return "apiVersion: v1\n"
        + "kind: Config\n"
        + "clusters:\n"
        + "- name: plane\n"
        + "  cluster:\n"
        + "    server: "
        + server
        + "\n"
        + "    certificate-authority-data: "
        + ca
        + "\n"
        + "users:\n"
        + "- name: user\n"
        + "  user:\n"
        + "    token: "
        + token
        + "\n"
        + "contexts:\n"
        + "- name: plane\n"
        + "  context: {cluster: plane, user: user}\n"
        + "current-context: plane\n";
  }
}
