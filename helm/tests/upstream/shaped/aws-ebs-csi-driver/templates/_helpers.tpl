{{- define "fixture.name" -}}{{ default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}{{- end -}}
{{- define "fixture.selector" -}}
app.kubernetes.io/name: {{ include "fixture.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
{{- define "fixture.labels" -}}
{{ include "fixture.selector" . }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: csi-driver
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.customLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}
{{- define "fixture.container" -}}
- name: ebs-plugin
  image: {{ .Values.fixtureImage }}
  command: ["sleep", "infinity"]
{{- end -}}
