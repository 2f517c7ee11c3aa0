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
  # A placeholder that ends on SIGTERM (a plain sleep as PID 1 ignores it and holds the upgrade for the grace period).
  command: ["sh", "-c", "trap 'exit 0' TERM; sleep 2147483647 & wait"]
{{- end -}}
