{{- /*
Metrics, as operators scrape them:
- EBS (controller.enableMetrics), as upstream: one single-port Service per controller container, ebs-csi-controller
  (3301), -provisioner (3302), -attacher (3303), -resizer (3304), -liveness-probe (3305, to the livenessprobe's
  health port, which serves its /metrics here), -snapshotter (3306), each port "metrics"; EFS: efs-csi-controller
  with ports "metrics" and "metrics-prov". <d>-csi-node Service (node.enableMetrics): port "metrics",
  internalTrafficPolicy Local. Names, labels (app: <Service name>) and port names as upstream.
- enablePrometheusAnnotations (default true, as upstream): prometheus.io/scrape, /port, /path on the EBS Services.
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
  {{- end }}
spec:
  type: ClusterIP
  selector:
    app: {{ .targetApp }}
    {{- /* upstream EFS also selects its selector labels; upstream EBS only app */}}
    {{- if eq .c.d "efs" }}
    {{- include "awscsi.selectorLabels" .c | nindent 4 }}
    {{- end }}
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
  namespaceSelector:
    matchNames:
      - {{ .ns }}
  endpoints:
    {{- range .ports }}
    {{- if eq $.c.d "ebs" }}
    - targetPort: {{ .target }}
    {{- else }}
    - port: {{ .name }}
    {{- end }}
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
{{- $annotate := include "awscsi.true" (ternary true $ctl.enablePrometheusAnnotations (kindIs "invalid" $ctl.enablePrometheusAnnotations)) }}
{{- if eq .d "ebs" }}
{{- /* upstream EBS: one single-port Service per container (a prometheus.io/port annotation names one port), each port
"metrics" with the container's port number as target; the livenessprobe's /metrics is on its health port here. */}}
{{- $services := list (dict "name" .controllerApp "port" ($ctl.metricsPort | default 3301) "target" ($ctl.metricsPort | default 3301)) }}
{{- $services = append $services (dict "name" (printf "%s-provisioner" .controllerApp) "port" (dig "provisioner" "metricsPort" 3302 $s) "target" (dig "provisioner" "metricsPort" 3302 $s)) }}
{{- $services = append $services (dict "name" (printf "%s-attacher" .controllerApp) "port" (dig "attacher" "metricsPort" 3303 $s) "target" (dig "attacher" "metricsPort" 3303 $s)) }}
{{- $services = append $services (dict "name" (printf "%s-resizer" .controllerApp) "port" (dig "resizer" "metricsPort" 3304 $s) "target" (dig "resizer" "metricsPort" 3304 $s)) }}
{{- if ne (toString (dig "livenessProbe" "enabled" true $s)) "false" }}
{{- $services = append $services (dict "name" (printf "%s-liveness-probe" .controllerApp) "port" 3305 "target" ($ctl.healthPort | default 9808)) }}
{{- end }}
{{- if include "awscsi.snapshotsEnabled" $c }}
{{- $services = append $services (dict "name" (printf "%s-snapshotter" .controllerApp) "port" (dig "snapshotter" "metricsPort" 3306 $s) "target" (dig "snapshotter" "metricsPort" 3306 $s)) }}
{{- end }}
{{- range $services }}
{{- $ports := list (dict "name" "metrics" "port" .port "target" .target) }}
{{ include "awscsi.metricsService" (dict "c" $c "name" .name "ns" $c.ns "targetApp" $c.controllerApp "ports" $ports "annotate" $annotate) }}
{{- if include "awscsi.serviceMonitorWanted" (dict "root" $c.root "sm" $ctl.serviceMonitor) }}
{{ include "awscsi.serviceMonitor" (dict "c" $c "name" .name "ns" $c.ns "ports" $ports "sm" $ctl.serviceMonitor) }}
{{- end }}
{{- end }}
{{- else }}
{{- /* upstream EFS: one Service, port "metrics" (the plugin); here also the provisioner's port */}}
{{- $ports := list (dict "name" "metrics" "port" ($ctl.metricsPort | default 3301) "target" ($ctl.metricsPort | default 3301)) (dict "name" "metrics-prov" "port" (dig "provisioner" "metricsPort" 3302 $s) "target" (dig "provisioner" "metricsPort" 3302 $s)) }}
{{ include "awscsi.metricsService" (dict "c" $c "name" .controllerApp "ns" .ns "targetApp" ($ctl.name | default .controllerApp) "ports" $ports "annotate" false) }}
{{- if include "awscsi.serviceMonitorWanted" (dict "root" .root "sm" $ctl.serviceMonitor) }}
{{ include "awscsi.serviceMonitor" (dict "c" $c "name" .controllerApp "ns" .ns "ports" $ports "sm" $ctl.serviceMonitor) }}
{{- end }}
{{- end }}
{{- end }}
{{- if and .nodeRendered (include "awscsi.true" ($n.enableMetrics | default false)) }}
{{- $ns := $n.namespaceOverride | default .ns }}
{{- $nodePort := $n.metricsPort | default (ternary 3302 3312 (eq .d "ebs")) }}
{{- $ports := list (dict "name" "metrics" "port" $nodePort "target" $nodePort) }}
{{ include "awscsi.metricsService" (dict "c" $c "name" .nodeApp "ns" $ns "targetApp" .nodeApp "ports" $ports "annotate" (include "awscsi.true" (ternary true $n.enablePrometheusAnnotations (kindIs "invalid" $n.enablePrometheusAnnotations))) "internalTrafficPolicy" "Local") }}
{{- if include "awscsi.serviceMonitorWanted" (dict "root" .root "sm" $n.serviceMonitor) }}
{{ include "awscsi.serviceMonitor" (dict "c" $c "name" .nodeApp "ns" $ns "ports" $ports "sm" $n.serviceMonitor) }}
{{- end }}
{{- end }}
{{- end -}}
