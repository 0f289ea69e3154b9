{{/*
Names. With the release named "trussium-operator" (the documented install)
every object is named exactly as in deploy/ (kustomize).
*/}}
{{- define "trussium-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "trussium-operator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The selector: the same single label as deploy/, so that a Deployment
installed with kustomize and one installed with this chart select alike (a
Deployment's selector cannot change).
*/}}
{{- define "trussium-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "trussium-operator.name" . }}
{{- end }}

{{/*
Labels of every object: the selector plus Helm's own labels (the only
difference from deploy/ that the install-surface test allows).
*/}}
{{- define "trussium-operator.labels" -}}
{{ include "trussium-operator.selectorLabels" . }}
{{ include "trussium-operator.helmLabels" . }}
{{- end }}

{{/* Helm's own labels alone (the CRD carries only these, as crds/ has none). */}}
{{- define "trussium-operator.helmLabels" -}}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The operator's image: repository@digest, or repository:tag (default v<appVersion>). */}}
{{- define "trussium-operator.image" -}}
{{- if and .Values.image.tag .Values.image.digest }}
{{- fail (printf "image: both image.tag (%s) and image.digest (%s) are set; give one of them" .Values.image.tag .Values.image.digest) }}
{{- end }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default (printf "v%s" .Chart.AppVersion) .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The Prometheus job of the operator's metrics (the metrics Service's name under a ServiceMonitor). */}}
{{- define "trussium-operator.job" -}}
{{- default (printf "%s-metrics" (include "trussium-operator.fullname" .)) .Values.prometheusRule.job }}
{{- end }}

{{/*
The operator's permissions, once for the ClusterRole (cluster-wide) and the
Role (watchNamespace): exactly what it needs, no Pod access, Secrets
read-only (metadata), no finalizers, no update of anything but status (owned
objects are written with server-side apply, i.e. patch).
*/}}
{{- define "trussium-operator.rules" -}}
- apiGroups: ["runtime.trussium.io"]
  resources: ["trussiumruntimes"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["runtime.trussium.io"]
  resources: ["trussiumruntimes/status"]
  verbs: ["get", "update", "patch"]
# Existence checks and the metadata-only watch; the operator never requests
# a Secret's body.
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["events.k8s.io"]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: [""]
  resources: ["configmaps", "serviceaccounts", "services"]
  verbs: ["get", "list", "watch", "create", "patch"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["get", "list", "watch", "create", "patch"]
- apiGroups: ["policy"]
  resources: ["poddisruptionbudgets"]
  verbs: ["get", "list", "watch", "create", "patch"]
# Optional kinds are also removed when the feature is disabled.
- apiGroups: ["networking.k8s.io"]
  resources: ["networkpolicies"]
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
- apiGroups: ["autoscaling"]
  resources: ["horizontalpodautoscalers"]
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
{{- end }}

{{/*
A watchNamespace that does not exist fails the install before anything is
applied, instead of an operator that silently watches nothing. Checked only
against a cluster: `helm template` (no cluster) finds no kube-system either.
*/}}
{{- define "trussium-operator.checkWatchNamespace" -}}
{{- if and .Values.watchNamespace (lookup "v1" "Namespace" "" "kube-system") }}
{{- if not (lookup "v1" "Namespace" "" .Values.watchNamespace) }}
{{- fail (printf "watchNamespace: namespace %q does not exist; create it first (kubectl create namespace %s), or leave watchNamespace empty to watch the whole cluster" .Values.watchNamespace .Values.watchNamespace) }}
{{- end }}
{{- end }}
{{- end }}
