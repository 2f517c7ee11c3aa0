{{- define "fixture.name" -}}{{ default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}{{- end -}}
{{- define "fixture.labels" -}}
app.kubernetes.io/name: {{ include "fixture.name" . }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}
{{- define "fixture.container" -}}
- name: efs-plugin
  image: {{ .Values.fixtureImage }}
  # A placeholder that ends on SIGTERM (a plain sleep as PID 1 ignores it and holds the upgrade for the grace period).
  command: ["sh", "-c", "trap 'exit 0' TERM; sleep 2147483647 & wait"]
{{- end -}}
