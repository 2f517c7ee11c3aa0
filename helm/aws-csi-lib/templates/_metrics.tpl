{{- /*
Metrics, as operators scrape them:
- <d>-csi-controller Service (controller.enableMetrics): port "metrics" (the plugin) and one port per sidecar
  (metrics-prov, metrics-attach, metrics-resize, metrics-snap: upstream EFS's naming); <d>-csi-node Service
  (node.enableMetrics): port "metrics", internalTrafficPolicy Local. Names, labels (app: <Service name>) and port
  names as upstream.
- enablePrometheusAnnotations: prometheus.io/scrape, /port, /path on those Services, and one single-port Service per
  controller sidecar (<d>-csi-controller-<sidecar>, annotated), since an annotation names one port.
- ServiceMonitors named as the Services (Prometheus Operator): when serviceMonitor.enabled or .forceEnable, or (as
  upstream EBS does) when serviceMonitor.autoDetect and the cluster serves monitoring.coreos.com/v1 ServiceMonitor.
*/ -}}
{{- define "awscsi.metricsService" -}}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ .name }}
  namespace: {{ .ns }}
  labels:
    app: {{ .name }}
    {{- include "awscsi.labels" .c | nindent 4 }}
  {{- if .annotate }}
  annotations:
    prometheus.io/scrape: "true"
    prometheus.io/port: {{ (index .ports 0).port | quote }}
    prometheus.io/path: /metrics
  {{- end }}
spec:
  type: ClusterIP
  selector:
    app: {{ .targetApp }}
    {{- include "awscsi.selectorLabels" .c | nindent 4 }}
  ports:
    {{- range .ports }}
    - name: {{ .name }}
      port: {{ .port }}
      targetPort: {{ .target }}
      protocol: TCP
    {{- end }}
  {{- with .internalTrafficPolicy }}
  internalTrafficPolicy: {{ . }}
  {{- end }}
{{- end -}}

{{- define "awscsi.serviceMonitor" -}}
{{- $sm := .sm | default dict -}}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: {{ .name }}
  namespace: {{ .ns }}
  labels:
    app: {{ .name }}
    {{- include "awscsi.labels" .c | nindent 4 }}
    {{- with $sm.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  selector:
    matchLabels:
      app: {{ .name }}
      {{- include "awscsi.selectorLabels" .c | nindent 6 }}
  namespaceSelector:
    matchNames:
      - {{ .ns }}
  endpoints:
    {{- range .ports }}
    - port: {{ .name }}
      path: /metrics
      interval: {{ $sm.interval | default "15s" }}
      {{- with $sm.relabelings }}
      relabelings:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- end }}
{{- end -}}

{{- define "awscsi.serviceMonitorWanted" -}}
{{- $sm := .sm | default dict -}}
{{- if or (include "awscsi.true" ($sm.enabled | default false)) (include "awscsi.true" ($sm.forceEnable | default false)) (and (include "awscsi.true" ($sm.autoDetect | default false)) (.root.Capabilities.APIVersions.Has "monitoring.coreos.com/v1/ServiceMonitor")) -}}true{{- end -}}
{{- end -}}

{{- define "awscsi.metrics" -}}
{{- $c := . -}}
{{- $ctl := .v.controller | default dict -}}
{{- $n := .v.node | default dict -}}
{{- $s := .v.sidecars | default dict -}}
{{- if and .controllerRendered (include "awscsi.true" ($ctl.enableMetrics | default false)) }}
{{- $annotate := include "awscsi.true" ($ctl.enablePrometheusAnnotations | default false) }}
{{- $sidecarPorts := list (dict "name" "metrics-prov" "sidecar" "provisioner" "port" (dig "provisioner" "metricsPort" 3302 $s)) }}
{{- if eq .d "ebs" }}
{{- $sidecarPorts = concat $sidecarPorts (list (dict "name" "metrics-attach" "sidecar" "attacher" "port" (dig "attacher" "metricsPort" 3303 $s)) (dict "name" "metrics-resize" "sidecar" "resizer" "port" (dig "resizer" "metricsPort" 3304 $s))) }}
{{- if include "awscsi.snapshotsEnabled" $c }}
{{- $sidecarPorts = append $sidecarPorts (dict "name" "metrics-snap" "sidecar" "snapshotter" "port" (dig "snapshotter" "metricsPort" 3306 $s)) }}
{{- end }}
{{- end }}
{{- $ports := list (dict "name" "metrics" "port" ($ctl.metricsPort | default 3301) "target" "metrics") }}
{{- range $sidecarPorts }}{{- $ports = append $ports (dict "name" .name "port" .port "target" .name) }}{{- end }}
{{ include "awscsi.metricsService" (dict "c" $c "name" .controllerApp "ns" .ns "targetApp" .controllerApp "ports" $ports "annotate" $annotate) }}
{{- if $annotate }}
{{- range $sidecarPorts }}
{{ include "awscsi.metricsService" (dict "c" $c "name" (printf "%s-%s" $c.controllerApp .sidecar) "ns" $c.ns "targetApp" $c.controllerApp "ports" (list (dict "name" "metrics" "port" .port "target" .name)) "annotate" true) }}
{{- end }}
{{- end }}
{{- if include "awscsi.serviceMonitorWanted" (dict "root" .root "sm" $ctl.serviceMonitor) }}
{{ include "awscsi.serviceMonitor" (dict "c" $c "name" .controllerApp "ns" .ns "ports" $ports "sm" $ctl.serviceMonitor) }}
{{- end }}
{{- end }}
{{- if and .nodeRendered (include "awscsi.true" ($n.enableMetrics | default false)) }}
{{- $ns := $n.namespaceOverride | default .ns }}
{{- $ports := list (dict "name" "metrics" "port" ($n.metricsPort | default (ternary 3302 3312 (eq .d "ebs"))) "target" "metrics") }}
{{ include "awscsi.metricsService" (dict "c" $c "name" .nodeApp "ns" $ns "targetApp" .nodeApp "ports" $ports "annotate" (include "awscsi.true" ($n.enablePrometheusAnnotations | default false)) "internalTrafficPolicy" "Local") }}
{{- if include "awscsi.serviceMonitorWanted" (dict "root" .root "sm" $n.serviceMonitor) }}
{{ include "awscsi.serviceMonitor" (dict "c" $c "name" .nodeApp "ns" $ns "ports" $ports "sm" $n.serviceMonitor) }}
{{- end }}
{{- end }}
{{- end -}}
