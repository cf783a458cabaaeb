#!/usr/bin/env python3
"""Writes the benchmark's inputs: a typical Deployment pod's AdmissionReview (about 3 KB: 20 env
vars, probes, an ownerReference) and a 5,000-node cluster view in the shape of
tests/src/test/java/io/meshinjector/bench/BenchCluster.java (four OS classes, kubelets 1.28 to
1.31, 5 % GPU NoSchedule taints, 3 % not-ready NoExecute, probes on the EKS nodes).

usage: generate.py OUT_DIR [NODES]
"""
import json
import os
import sys

out = sys.argv[1]
nodes = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
os.makedirs(out, exist_ok=True)

pod = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {
        "generateName": "web-7d9f8b6c5d-",
        "namespace": "shop",
        "labels": {"app": "web", "pod-template-hash": "7d9f8b6c5d", "tier": "frontend"},
        "annotations": {"kubectl.kubernetes.io/restartedAt": "2026-11-20T10:00:00Z"},
        "ownerReferences": [{
            "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d9f8b6c5d",
            "uid": "5b2c3d4e-1111-4a2b-9c3d-0123456789ab", "controller": True,
            "blockOwnerDeletion": True}],
    },
    "spec": {
        "nodeSelector": {"kubernetes.io/os": "linux"},
        "serviceAccountName": "web",
        "terminationGracePeriodSeconds": 30,
        "containers": [{
            "name": "web",
            "image": "buoyantio/emojivoto-web:v10",
            "imagePullPolicy": "IfNotPresent",
            "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
            "env": [{"name": "WEB_ENV_%02d" % i, "value": "value-%02d-of-the-web-container" % i}
                    for i in range(20)],
            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"},
                          "limits": {"memory": "256Mi"}},
            "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080, "scheme": "HTTP"},
                               "periodSeconds": 5, "timeoutSeconds": 1, "failureThreshold": 3},
            "livenessProbe": {"httpGet": {"path": "/live", "port": "http", "scheme": "HTTP"},
                              "initialDelaySeconds": 10, "periodSeconds": 10},
            "volumeMounts": [{"name": "kube-api-access-abcde", "readOnly": True,
                              "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}],
            "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "File",
        }],
        "volumes": [{"name": "kube-api-access-abcde", "projected": {"defaultMode": 420, "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}]}}],
        "tolerations": [
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
             "tolerationSeconds": 300},
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
             "tolerationSeconds": 300}],
        "restartPolicy": "Always",
        "dnsPolicy": "ClusterFirst",
        "schedulerName": "default-scheduler",
    },
}
review = {
    "apiVersion": "admission.k8s.io/v1",
    "kind": "AdmissionReview",
    "request": {
        "uid": "0d6f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b",
        "kind": {"group": "", "version": "v1", "kind": "Pod"},
        "resource": {"group": "", "version": "v1", "resource": "pods"},
        "requestKind": {"group": "", "version": "v1", "kind": "Pod"},
        "requestResource": {"group": "", "version": "v1", "resource": "pods"},
        "namespace": "shop",
        "operation": "CREATE",
        "userInfo": {"username": "system:serviceaccount:kube-system:replicaset-controller",
                     "uid": "8a1b2c3d-0000-4000-8000-000000000001",
                     "groups": ["system:serviceaccounts", "system:serviceaccounts:kube-system",
                                "system:authenticated"]},
        "object": pod,
        "oldObject": None,
        "dryRun": False,
        "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"},
    },
}
with open(os.path.join(out, "review.json"), "w") as f:
    json.dump(review, f, separators=(",", ":"))

# the cluster view, as `kubectl get namespaces,nodes,nodecapabilities -o yaml` would list it
classes = {
    0: ("Red Hat Enterprise Linux 8.10 (Ootpa)", "v1.31.0"),
    4: ("CentOS Linux 7 (Core)", "v1.28.9"),
    7: ("Amazon Linux 2023.5.20240624", "v1.31.0-eks-a737599"),
    9: ("Ubuntu 22.04.4 LTS", "v1.30.4+k3s1"),
}
lines = ["apiVersion: v1", "kind: List", "items:",
         "  - apiVersion: v1", "    kind: Namespace", "    metadata:", "      name: shop",
         "      annotations: {mesh-injector.io/inject: enabled}"]
for i in range(nodes):
    c = i % 10
    os_image, kubelet = classes[0 if c <= 3 else 4 if c <= 6 else 7 if c <= 8 else 9]
    name = "node-%d" % i
    lines += ["  - apiVersion: v1", "    kind: Node", "    metadata:", "      name: " + name,
              "      labels: {kubernetes.io/hostname: %s, kubernetes.io/os: linux, "
              "topology.kubernetes.io/zone: zone-%d, node.kubernetes.io/instance-type: m5.%dxlarge}"
              % (name, i % 3, i % 4)]
    if i % 20 == 0:
        lines += ["    spec:", "      taints: [{key: nvidia.com/gpu, value: 'true', effect: NoSchedule}]"]
    elif i % 33 == 0:
        lines += ["    spec:", "      taints: [{key: node.kubernetes.io/not-ready, effect: NoExecute}]"]
    lines += ["    status:", "      nodeInfo: {osImage: '%s', kubeletVersion: '%s'}" % (os_image, kubelet)]
    if c in (7, 8):
        lines += ["  - apiVersion: mesh-injector.io/v1alpha1", "    kind: NodeCapability",
                  "    metadata:", "      name: " + name,
                  "    status:", "      observedAt: '2099-01-01T00:00:00Z'",
                  "      capabilities: {iptables-nft: available, iptables-legacy: available, cni: ready}",
                  "      facts: {os: amzn 2023}"]
with open(os.path.join(out, "cluster-%d.yaml" % nodes), "w") as f:
    f.write("\n".join(lines) + "\n")
