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

{{/* A hostPath volume name from a host path: /proc/sys/kernel/osrelease -> host-proc-sys-kernel-osrelease */}}
{{- define "mesh-injector.hostPathVolumeName" -}}
{{- printf "host%s" (. | replace "/" "-" | replace "." "-" | replace "_" "-") | lower | trunc 63 | trimSuffix "-" -}}
{{- end -}}
