{{/* Chart name, overridable. */}}
{{- define "mesh-injector.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Release-scoped name: the release name, unless it already contains the chart name. */}}
{{- define "mesh-injector.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "mesh-injector.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "mesh-injector.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Selector labels of one component; call with (dict "root" $ "component" "probe"). */}}
{{- define "mesh-injector.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mesh-injector.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* The mesh-injector image; the probe runs the same jar as the webhook. */}}
{{- define "mesh-injector.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository $tag -}}
{{- end -}}
{{- end -}}

{{- define "mesh-injector.probe.serviceAccountName" -}}
{{- default (printf "%s-probe" (include "mesh-injector.fullname" .)) .Values.probe.serviceAccount.name -}}
{{- end -}}

{{/*
Whether the API server serves the v1 ValidatingAdmissionPolicy the probe's policies need: discovery
lists it (helm install/upgrade), or the target version is 1.30+ (helm template --kube-version).
*/}}
{{- define "mesh-injector.probe.policyServed" -}}
{{- if and .Values.probe.policy.enabled (or (.Capabilities.APIVersions.Has "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy") (semverCompare ">=1.30.0-0" .Capabilities.KubeVersion.Version)) }}true{{ end -}}
{{- end -}}

{{/*
The repair mode the probe runs (docs/operations.md#repair). `repair` deletes pods, and only the
ValidatingAdmissionPolicy keeps a probe's deletes to its own node: where it is not rendered (a
server before 1.30, probe.policy.enabled false) the probe runs `report` instead (its first log
line names the mode it runs).
*/}}
{{- define "mesh-injector.probe.repairMode" -}}
{{- /* an unquoted `mode: off` is YAML 1.1's false */ -}}
{{- $mode := .Values.probe.repair.mode | toString | replace "false" "off" -}}
{{- if and (eq $mode "repair") (not (include "mesh-injector.probe.policyServed" .)) -}}
report
{{- else -}}
{{ $mode }}
{{- end -}}
{{- end -}}

{{/* A hostPath volume name from a host path: /proc/sys/kernel/osrelease -> host-proc-sys-kernel-osrelease */}}
{{- define "mesh-injector.hostPathVolumeName" -}}
{{- printf "host%s" (. | replace "/" "-" | replace "." "-" | replace "_" "-") | lower | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* ---- the webhook ---------------------------------------------------------------------- */}}

{{- define "mesh-injector.serviceAccountName" -}}
{{- default (include "mesh-injector.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{/* The Service in front of the webhook; the serving certificate covers its four DNS names. */}}
{{- define "mesh-injector.serviceName" -}}
{{- include "mesh-injector.fullname" . -}}
{{- end -}}

{{/* This release's MutatingWebhookConfiguration: the only one the leader may patch. */}}
{{- define "mesh-injector.webhookConfigurationName" -}}
{{- include "mesh-injector.fullname" . -}}
{{- end -}}

{{/*
This release's revision: `revision`, or `default` when empty. Any other name is checked with the
webhook's own rules (RevisionNames: a DNS label of at most 40 characters, not a value the routing
label mesh-injector.io/injection has for another meaning), so the chart refuses what the webhook
would refuse at start-up.
*/}}
{{- define "mesh-injector.revision" -}}
{{- $rev := toString (default "" .Values.revision) -}}
{{- if or (eq $rev "") (eq $rev "default") -}}
default
{{- else if or (gt (len $rev) 40) (not (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" $rev)) -}}
{{- fail (printf "revision %q is not a revision name: lower-case letters, digits and '-', starting and ending with a letter or digit, at most 40 characters" $rev) -}}
{{- else if has $rev (list "enabled" "disabled") -}}
{{- fail (printf "revision %q is reserved (it is a value of the label mesh-injector.io/injection); choose another name" $rev) -}}
{{- else -}}
{{- $rev -}}
{{- end -}}
{{- end -}}

{{/*
Whether this release's elected replica writes the namespaces' routing label: "true" or "false".
auto: the release that runs the node probe does. One release runs the probe, so exactly one writes
the labels and two releases never fight over a namespace.
*/}}
{{- define "mesh-injector.namespaceLabels" -}}
{{- $v := toString (dig "namespaceLabels" "auto" (default dict .Values.routing)) -}}
{{- if eq $v "auto" -}}
{{- ternary "true" "false" (not (not .Values.probe.enabled)) -}}
{{- else if has $v (list "true" "false") -}}
{{- $v -}}
{{- else -}}
{{- fail (printf "routing.namespaceLabels must be auto, true or false, got %q" $v) -}}
{{- end -}}
{{- end -}}

{{- define "mesh-injector.leaseName" -}}
{{- printf "%s-certs" (include "mesh-injector.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The Lease that elects the one replica publishing capability labels. */}}
{{- define "mesh-injector.labelLeaseName" -}}
{{- printf "%s-labels" (include "mesh-injector.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The TLS Secret mounted as --tls-dir. The secret mode names an existing one. */}}
{{- define "mesh-injector.tlsSecretName" -}}
{{- if .Values.tls.secretName -}}
{{- .Values.tls.secretName -}}
{{- else if eq .Values.tls.mode "secret" -}}
{{- fail "tls.mode=secret needs tls.secretName: the existing Secret holding tls.crt and tls.key" -}}
{{- else -}}
{{- printf "%s-tls" (include "mesh-injector.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The cert-manager Certificate that fills the TLS Secret (cert-manager mode). */}}
{{- define "mesh-injector.certificateName" -}}
{{- printf "%s-tls" (include "mesh-injector.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The Service's four DNS names, shortest first, as the leader issues them (SubjectNames.forService). */}}
{{- define "mesh-injector.serviceDnsNames" -}}
{{- $svc := include "mesh-injector.serviceName" . -}}
{{- $ns := .Release.Namespace -}}
{{- /* cluster.local, as the leader's TlsSettings.serviceNames has it; the API server itself dials <svc>.<ns>.svc */ -}}
{{- list $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.cluster.local" $svc $ns) | toJson -}}
{{- end -}}

{{/* The HTTPS and metrics ports: read from the rendered config, so the two cannot disagree. */}}
{{- define "mesh-injector.httpsPort" -}}
{{- dig "webhook" "port" 8443 (default dict .Values.config) | int -}}
{{- end -}}
{{- define "mesh-injector.metricsPort" -}}
{{- dig "webhook" "metricsPort" 9090 (default dict .Values.config) | int -}}
{{- end -}}

{{/*
tls.selfManaged's lifetimes, checked: {"ca", "cert"} in whole days for the install-time set (minutes
rounded up), and the config's caValidity, servingValidity, renewBeforeMinutes, overlapMinutes. Both the install-time set and
the leader's renewals use them, so a serving cert longer than its CA is refused here rather than
silently cut to the CA's end (genSignedCert) or refused by the webhook at start-up.
*/}}
{{- define "mesh-injector.selfManagedValidityDays" -}}
{{- $sm := .Values.tls.selfManaged -}}
{{- $ca := int $sm.caValidityDays -}}
{{- $cert := int $sm.certValidityDays -}}
{{- if or (lt $ca 1) (lt $cert 1) -}}
{{- fail (printf "tls.selfManaged.caValidityDays (%d) and certValidityDays (%d) must be at least 1" $ca $cert) -}}
{{- end -}}
{{- $caMinutes := int (default 0 $sm.caValidityMinutes) -}}
{{- $certMinutes := int (default 0 $sm.certValidityMinutes) -}}
{{- if or (lt $caMinutes 0) (lt $certMinutes 0) -}}
{{- fail (printf "tls.selfManaged.caValidityMinutes (%d) and certValidityMinutes (%d) must be 0 (use the days) or more" $caMinutes $certMinutes) -}}
{{- end -}}
{{- /* minutes when given, else the days; the install-time set lasts whole days, rounded up */ -}}
{{- $caM := ternary $caMinutes (mul $ca 1440) (gt $caMinutes 0) -}}
{{- $certM := ternary $certMinutes (mul $cert 1440) (gt $certMinutes 0) -}}
{{- if and (gt $cert $ca) (eq $caMinutes 0) (eq $certMinutes 0) -}}
{{- fail (printf "tls.selfManaged.certValidityDays (%d) must not be greater than caValidityDays (%d): a serving certificate cannot outlive the CA that signs it" $cert $ca) -}}
{{- end -}}
{{- if gt $certM $caM -}}
{{- fail (printf "tls.selfManaged: the serving certificate's lifetime (%d minutes) must not be longer than the CA's (%d minutes): a serving certificate cannot outlive the CA that signs it" $certM $caM) -}}
{{- end -}}
{{- $renew := int (default 0 $sm.renewBeforeMinutes) -}}
{{- $overlap := int (default 0 $sm.overlapMinutes) -}}
{{- if or (lt $renew 0) (and (gt $renew 0) (ge $renew $certM)) -}}
{{- fail (printf "tls.selfManaged.renewBeforeMinutes (%d) must be 0 (a third of the lifetime) or shorter than the serving certificate's lifetime (%d minutes)" $renew $certM) -}}
{{- end -}}
{{- if lt $overlap 0 -}}
{{- fail (printf "tls.selfManaged.overlapMinutes (%d) must be 0 or more" $overlap) -}}
{{- end -}}
{{- $caText := ternary (printf "%dm" $caMinutes) (printf "%dd" $ca) (gt $caMinutes 0) -}}
{{- $certText := ternary (printf "%dm" $certMinutes) (printf "%dd" $cert) (gt $certMinutes 0) -}}
{{- dict "ca" (div (add $caM 1439) 1440) "cert" (div (add $certM 1439) 1440) "caValidity" $caText "servingValidity" $certText "renewBeforeMinutes" $renew "overlapMinutes" $overlap | toJson -}}
{{- end -}}

{{/*
The --config YAML: .Values.config verbatim, plus the webhook.tls keys the chart owns: the names
(they must match the objects rendered here) and the self-managed lifetimes (the install-time set
and the leader's renewals must agree); and the revisions keys (the revision must match the label
of the webhook configuration rendered here). Setting those in .Values.config is refused, so a
value never silently loses to the chart.
*/}}
{{- define "mesh-injector.config" -}}
{{- if not (has .Values.tls.mode (list "self-managed" "cert-manager" "secret")) -}}
{{- fail (printf "tls.mode must be one of self-managed, cert-manager, secret, got %q" .Values.tls.mode) -}}
{{- end -}}
{{- $config := deepCopy (default dict .Values.config) -}}
{{- /* a proxy without the mesh's trust anchors never gets an identity, so no meshed call works */ -}}
{{- $mesh := include "mesh-injector.mesh" . -}}
{{- $anchors := dig "proxy" "trustAnchorsPEM" "" $config -}}
{{- /* Istio's proxies read the root cert from istiod's istio-ca-root-cert ConfigMap instead */ -}}
{{- if eq $mesh "istio" -}}
{{- else if not $anchors -}}
{{- fail "config.proxy.trustAnchorsPEM is required: the mesh's identity trust anchors (PEM), as Linkerd's identityTrustAnchorsPEM, e.g. --set-file config.proxy.trustAnchorsPEM=ca.crt" -}}
{{- end -}}
{{- if and (eq $mesh "linkerd") (not (contains "-----BEGIN CERTIFICATE-----" $anchors)) -}}
{{- fail "config.proxy.trustAnchorsPEM holds no PEM certificate (-----BEGIN CERTIFICATE-----)" -}}
{{- end -}}
{{- $userTls := dig "webhook" "tls" dict $config -}}
{{- range $key := list "mode" "secretName" "webhookConfigurationName" "serviceName" "leaseName" -}}
{{- if hasKey $userTls $key -}}
{{- fail (printf "config.webhook.tls.%s is set by the chart; use tls.mode / tls.secretName instead" $key) -}}
{{- end -}}
{{- end -}}
{{- range $key := list "caValidity" "servingValidity" "renewBefore" "overlap" -}}
{{- if hasKey $userTls $key -}}
{{- fail (printf "config.webhook.tls.%s is set by the chart; use tls.selfManaged (caValidityDays / certValidityDays, *Minutes, renewBeforeMinutes, overlapMinutes) instead" $key) -}}
{{- end -}}
{{- end -}}
{{- if hasKey (dig "webhook" "cluster" dict $config) "labelLeaseName" -}}
{{- fail "config.webhook.cluster.labelLeaseName is set by the chart (the RBAC Role names it)" -}}
{{- end -}}
{{- $lifetimes := include "mesh-injector.selfManagedValidityDays" . | fromJson -}}
{{- $tls := dict
      "mode" .Values.tls.mode
      "secretName" (include "mesh-injector.tlsSecretName" .)
      "webhookConfigurationName" (include "mesh-injector.webhookConfigurationName" .)
      "serviceName" (include "mesh-injector.serviceName" .)
      "leaseName" (include "mesh-injector.leaseName" .)
      "caValidity" $lifetimes.caValidity
      "servingValidity" $lifetimes.servingValidity
      "renewBefore" (ternary (printf "%dm" (int $lifetimes.renewBeforeMinutes)) "" (gt (int $lifetimes.renewBeforeMinutes) 0))
      "overlap" (printf "%dm" (int $lifetimes.overlapMinutes)) -}}
{{- $cluster := dict "labelLeaseName" (include "mesh-injector.labelLeaseName" .) -}}
{{- $userServer := dig "webhook" "server" dict $config -}}
{{- range $key := list "drainPeriod" "shutdownTimeout" -}}
{{- if hasKey $userServer $key -}}
{{- fail (printf "config.webhook.server.%s is set by the chart; use shutdown.drainSeconds / shutdown.timeoutSeconds instead" $key) -}}
{{- end -}}
{{- end -}}
{{- $server := dict
      "drainPeriod" (printf "%ds" (include "mesh-injector.drainSeconds" . | int))
      "shutdownTimeout" (printf "%ds" (int .Values.shutdown.timeoutSeconds)) -}}
{{- $userRevisions := dig "revisions" dict $config -}}
{{- range $key, $value := dict "name" "revision" "namespaceLabels" "routing.namespaceLabels" "createDefaultTag" "routing.createDefaultTag" -}}
{{- if hasKey $userRevisions $key -}}
{{- fail (printf "config.revisions.%s is set by the chart; use %s instead" $key $value) -}}
{{- end -}}
{{- end -}}
{{- $revisions := dict
      "name" (include "mesh-injector.revision" .)
      "namespaceLabels" (eq (include "mesh-injector.namespaceLabels" .) "true")
      "createDefaultTag" (not (not (dig "createDefaultTag" true (default dict .Values.routing)))) -}}
{{- $owned := dict "webhook" (dict "tls" $tls "cluster" $cluster "server" $server) "revisions" $revisions -}}
{{- $merged := mergeOverwrite $config $owned -}}
{{- toYaml $merged -}}
{{- end -}}

{{/*
The mesh whose pods are rendered (config.mesh: linkerd or istio); it picks the webhook's built-in
templates and the defaults the chart derives from them (the CNI DaemonSet's namespace, the CNI
plugin's type).
*/}}
{{- define "mesh-injector.mesh" -}}
{{- $mesh := dig "mesh" "linkerd" (default dict .Values.config) -}}
{{- if not (has $mesh (list "linkerd" "istio")) -}}
{{- fail (printf "config.mesh must be linkerd or istio, got %q" $mesh) -}}
{{- end -}}
{{- $mesh -}}
{{- end -}}

{{/*
The pod's termination grace: the preStop pause, the drain after SIGTERM, the time requests in flight
get, and a margin for the JVM to exit; the kubelet kills the container when it runs out.
*/}}
{{- define "mesh-injector.terminationGracePeriodSeconds" -}}
{{- add (int .Values.shutdown.preStopSeconds) (include "mesh-injector.drainSeconds" . | int) (int .Values.shutdown.timeoutSeconds) 5 -}}
{{- end -}}

{{/*
The drain after SIGTERM: shutdown.drainSeconds, but never shorter than the kubelet takes to see
/readyz answer 503 (readiness periodSeconds x failureThreshold, plus 5 s for the kubelet's status
update, the endpoints controller and kube-proxy; on the real node of RealNodeIT a terminating
endpoint stayed "serving" 12 to 15 s after the pod's deletion, of which 5 s are preStop). Until the kubelet marks the pod unready its endpoint stays "serving", and kube-proxy
sends new connections to serving terminating endpoints whenever the Service has no ready one: a
listener closed before that is a refused connection (seen on a real node during a rollout restart).
*/}}
{{- define "mesh-injector.drainSeconds" -}}
{{- $r := .Values.probes.readiness -}}
{{- $detect := add (mul (int (default 10 $r.periodSeconds)) (int (default 3 $r.failureThreshold))) 5 -}}
{{- max (int .Values.shutdown.drainSeconds) $detect -}}
{{- end -}}
