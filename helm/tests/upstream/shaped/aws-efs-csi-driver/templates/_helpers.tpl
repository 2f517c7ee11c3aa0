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
  command: ["sleep", "infinity"]
{{- end -}}
