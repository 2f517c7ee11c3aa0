{{- /*
Helpers shared by every template of this library. Most take the render context "c" that awscsi.driver builds:
  c.root (the chart's top-level context), c.d ("ebs" | "efs"), c.v (the view, see _view.tpl), c.csi (the CSI
  driver name), c.name (app.kubernetes.io/name), c.ns (release namespace), c.controllerApp, c.nodeApp.
*/ -}}

{{/* "true" when x is true or the string "true" (upstream values files write both), else "". */}}
{{- define "awscsi.true" -}}
{{- if kindIs "bool" . }}{{ if . }}true{{ end }}{{ else if kindIs "string" . }}{{ if eq (lower .) "true" }}true{{ end }}{{ end -}}
{{- end -}}

{{/* Labels on every object: upstream's set (both charts), plus customLabels. */}}
{{- define "awscsi.labels" -}}
{{ include "awscsi.selectorLabels" . }}
{{- if ne .root.Release.Name "kustomize" }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/component: csi-driver
app.kubernetes.io/managed-by: {{ .root.Release.Service | quote }}
{{- end }}
{{- with .v.customLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/*
Selector labels, upstream's: app.kubernetes.io/name (the chart name, or nameOverride) and app.kubernetes.io/instance
(the release; upstream leaves it out for its kustomize render). Deployments and DaemonSets add app: <app>.
*/}}
{{- define "awscsi.selectorLabels" -}}
app.kubernetes.io/name: {{ .name | quote }}
{{- if ne .root.Release.Name "kustomize" }}
app.kubernetes.io/instance: {{ .root.Release.Name | quote }}
{{- end }}
{{- end -}}

{{/* The driver image: containerRegistry + repository : tag (default the chart's appVersion). */}}
{{- define "awscsi.image" -}}
{{- $i := .v.image | default dict -}}
{{- printf "%s%s:%s" (toString ($i.containerRegistry | default "")) $i.repository (default .root.Chart.AppVersion (toString ($i.tag | default ""))) -}}
{{- end -}}

{{/* A sidecar image. Input: dict "c" "s" (the sidecar's values). */}}
{{- define "awscsi.sidecarImage" -}}
{{- $i := .s.image | default dict -}}
{{- printf "%s%s:%s" (toString (dig "image" "containerRegistry" "" .c.v)) $i.repository (toString $i.tag) -}}
{{- end -}}

{{- define "awscsi.pullPolicy" -}}
{{- $i := .s.image | default dict -}}
{{- $i.pullPolicy | default (dig "image" "pullPolicy" "IfNotPresent" .c.v) -}}
{{- end -}}

{{/*
The plugin's --log-level from a klog verbosity (upstream writes numbers: 2 by default, 4 and up for request detail)
or a level name. Input: the logLevel value; debugLogs wins.
*/}}
{{- define "awscsi.logLevel" -}}
{{- $l := .level -}}
{{- if include "awscsi.true" .debug -}}debug
{{- else if kindIs "invalid" $l -}}info
{{- else if or (kindIs "float64" $l) (kindIs "int" $l) (kindIs "int64" $l) -}}{{ if ge (int $l) 4 }}debug{{ else }}info{{ end }}
{{- else if regexMatch "^[0-9]+$" (toString $l) -}}{{ if ge (atoi (toString $l)) 4 }}debug{{ else }}info{{ end }}
{{- else -}}{{ lower (toString $l) }}
{{- end -}}
{{- end -}}

{{/* A sidecar's --v: its logLevel, 7 under debugLogs. Input: dict "c" "level". */}}
{{- define "awscsi.sidecarVerbosity" -}}
{{- if and (eq .c.d "ebs") (include "awscsi.true" .c.v.debugLogs) }}7{{ else }}{{ .level | default 2 }}{{ end -}}
{{- end -}}

{{/*
Sidecar arguments: the defaults, minus any that additionalArgs replaces by flag name, then additionalArgs.
Input: dict "defaults" (list) "extra" (list).
*/}}
{{- define "awscsi.mergeArgs" -}}
{{- $extra := .extra | default list -}}
{{- $overridden := list -}}
{{- /* --feature-gates is not replaced: repeated, the sidecars merge it (as upstream's chart relies on) */ -}}
{{- range $extra -}}{{- $name := regexReplaceAll "=.*$" (toString .) "" -}}{{- if not (has $name (list "--feature-gates" "-feature-gates")) -}}{{- $overridden = append $overridden $name -}}{{- end -}}{{- end -}}
{{- /* upstream: any of --kube-api-qps, --kube-api-burst, --worker-threads (--workers) in additionalArgs drops all of
those defaults, so the sidecar's own defaults apply to the others (EBS controller sidecars: "group" true) */ -}}
{{- $tuning := list "--kube-api-qps" "--kube-api-burst" "--worker-threads" "--workers" -}}
{{- if .group -}}
{{- range $overridden -}}{{- if has . $tuning -}}{{- $overridden = concat $overridden $tuning -}}{{- end -}}{{- end -}}
{{- end -}}
{{- range .defaults }}
{{- if not (has (regexReplaceAll "=.*$" . "") $overridden) }}
- {{ . | quote }}
{{- end }}
{{- end }}
{{- range $extra }}
- {{ toString . | quote }}
{{- end }}
{{- end -}}

{{/* Leader election of a controller sidecar: on unless leaderElection.enabled is false; durations when given. */}}
{{- define "awscsi.leaderElectionArgs" -}}
{{- $le := .leaderElection | default dict -}}
{{- $on := or (not (hasKey $le "enabled")) (kindIs "invalid" $le.enabled) (include "awscsi.true" $le.enabled) -}}
{{- $args := list (printf "--leader-election=%v" (ternary "true" "false" (not (not $on)))) -}}
{{- if $on -}}
{{- with $le.leaseDuration }}{{- $args = append $args (printf "--leader-election-lease-duration=%v" .) -}}{{- end -}}
{{- with $le.renewDeadline }}{{- $args = append $args (printf "--leader-election-renew-deadline=%v" .) -}}{{- end -}}
{{- with $le.retryPeriod }}{{- $args = append $args (printf "--leader-election-retry-period=%v" .) -}}{{- end -}}
{{- end -}}
{{- toJson $args -}}
{{- end -}}

{{/* "k=v,k2=v2" (kv "=", sep ",") or "k:v k2:v2" (kv ":", sep " ") from a map, keys sorted. */}}
{{- define "awscsi.joinTags" -}}
{{- $pairs := list -}}
{{- range $k, $v := .tags -}}{{- $pairs = append $pairs (printf "%s%s%v" $k $.kv $v) -}}{{- end -}}
{{- join .sep $pairs -}}
{{- end -}}

{{/*
Whether the csi-snapshotter and VolumeSnapshotClasses render: the cluster serves snapshot.storage.k8s.io/v1 (the
external-snapshotter CRDs), or sidecars.snapshotter.forceEnable. helm template and EKS add-ons cannot see the
cluster's APIs: force it there.
*/}}
{{- define "awscsi.snapshotsEnabled" -}}
{{- if and (eq .d "ebs") (or (include "awscsi.true" (dig "sidecars" "snapshotter" "forceEnable" false .v)) (.root.Capabilities.APIVersions.Has "snapshot.storage.k8s.io/v1")) -}}true{{- end -}}
{{- end -}}

{{/*
Whether the cluster serves VolumeAttributesClass: by discovery on a live cluster (beta on 1.31-1.33 when enabled), or
implied by Kubernetes >= 1.34 where it is GA (what helm template and EKS add-ons can see).
*/}}
{{- define "awscsi.vacServed" -}}
{{- if or (.root.Capabilities.APIVersions.Has "storage.k8s.io/v1/VolumeAttributesClass") (.root.Capabilities.APIVersions.Has "storage.k8s.io/v1beta1/VolumeAttributesClass") (semverCompare ">=1.34-0" .root.Capabilities.KubeVersion.Version) -}}true{{- end -}}
{{- end -}}

{{/* HTTP_PROXY, HTTPS_PROXY, NO_PROXY when proxy.http_proxy is set (upstream's meaning). */}}
{{- define "awscsi.proxyEnv" -}}
{{- with (dig "proxy" "http_proxy" "" .v) }}
- name: HTTP_PROXY
  value: {{ . | quote }}
- name: HTTPS_PROXY
  value: {{ . | quote }}
- name: NO_PROXY
  value: {{ dig "proxy" "no_proxy" "" $.v | quote }}
{{- end }}
{{- end -}}

{{- define "awscsi.pullSecrets" -}}
{{- with .v.imagePullSecrets }}
imagePullSecrets:
  {{- range . }}
  - name: {{ if kindIs "map" . }}{{ .name }}{{ else }}{{ . }}{{ end }}
  {{- end }}
{{- end }}
{{- end -}}

{{/*
The plugin's own flags: every flag aws-csi-driver accepts (launcher Usage.SERVE, written to docs/plugin-flags.json;
chart_checks.py compares the two lists). The launcher refuses any other flag, so additionalArgs are filtered through this list.
*/}}
{{- define "awscsi.pluginFlags" -}}
{{- toJson (list "driver" "mode" "endpoint" "http-endpoint" "log-format" "log-level" "shutdown-grace" "imds-endpoint" "kubelet-registration-path" "plugin-registration-path" "kubelet-dir" "extra-tags" "k8s-tag-cluster-id" "modify-volume-request-handler-timeout" "volume-attach-limit" "reserved-volume-attachments" "legacy-xfs" "tags" "delete-access-point-root-dir" "vol-metrics-opt-in" "vol-metrics-refresh-period" "vol-metrics-fs-rate-limit" "force-unmount-after-timeout" "unmount-timeout" "max-inflight-mount-calls" "max-inflight-mount-calls-opt-in" "volume-attach-limit-opt-in" "efs-utils-config-dir-path" "efs-utils-config-legacy-dir-path" "efs-utils-static-files-path" "efs-utils-conf-overrides" "efs-cloudwatch-log-enabled" "efs-mount-watchdog-path" "efs-utils-etc-dir-path" "efs-state-dir-path" "efs-work-dir" "metadata-sources" "user-agent-extra" "warn-on-invalid-tag" "v" "logging-format" "logtostderr" "batching" "csi-mount-point-prefix" "debug-logs" "s3files-cloudwatch-log-enabled" "s3files-cloudwatch-metrics-enabled" "s3files-utils-conf-overrides" "version" "help") -}}
{{- end -}}

{{/*
additionalArgs of a plugin container, as upstream's Go flags: translated to this driver's flag where one exists
(--v=N -> --log-level, --logging-format -> --log-format, a bare minute count for --vol-metrics-refresh-period),
kept when this driver has the same flag, and otherwise dropped (the driver refuses unknown flags) and reported.
Input: dict "args" (list). Output JSON: {"args": [...], "dropped": [...]}.
*/}}
{{- define "awscsi.translateArgs" -}}
{{- $known := include "awscsi.pluginFlags" . | fromJsonArray -}}
{{- $out := list -}}
{{- $dropped := list -}}
{{- range .args -}}
{{- $a := toString . -}}
{{- $name := regexReplaceAll "^-+" (regexReplaceAll "=.*$" $a "") "" -}}
{{- $value := ternary (regexReplaceAll "^[^=]*=" $a "") "" (contains "=" $a) -}}
{{- if eq $name "v" -}}
{{- $out = append $out (printf "--log-level=%s" (include "awscsi.logLevel" (dict "level" $value))) -}}
{{- else if eq $name "logging-format" -}}
{{- $out = append $out (printf "--log-format=%s" $value) -}}
{{- else if and (eq $name "vol-metrics-refresh-period") (regexMatch "^[0-9]+$" $value) -}}
{{- $out = append $out (printf "--vol-metrics-refresh-period=%sm" $value) -}}
{{- else if has $name $known -}}
{{- $out = append $out $a -}}
{{- else -}}
{{- $dropped = append $dropped $a -}}
{{- end -}}
{{- end -}}
{{- toJson (dict "args" $out "dropped" $dropped) -}}
{{- end -}}

{{/* Plugin arguments: defaults, then translated additionalArgs replacing defaults of the same flag. Input: dict "defaults" "extra". */}}
{{- define "awscsi.pluginArgs" -}}
{{- $t := include "awscsi.translateArgs" (dict "args" (.extra | default list)) | fromJson -}}
{{- include "awscsi.mergeArgs" (dict "defaults" .defaults "extra" $t.args) -}}
{{- end -}}

{{/* The probe of a plugin container: the view's override when set, else the given default (a dict). */}}
{{- define "awscsi.probe" -}}
{{- if .override }}{{ toYaml .override }}{{ else }}{{ toYaml .default }}{{ end -}}
{{- end -}}

{{/* A duration in minutes when given as a bare number (upstream EFS volMetricsRefreshPeriod), else as given. */}}
{{- define "awscsi.minutes" -}}
{{- $s := toString . -}}
{{- if regexMatch "^[0-9]+(\\.0+)?$" $s }}{{ printf "%dm" (int (float64 .)) }}{{ else }}{{ $s }}{{ end -}}
{{- end -}}

{{/* A list of tolerations as YAML, with the upstream EBS node defaults when not tolerating every taint. */}}
{{- define "awscsi.nodeTolerations" -}}
{{- $n := .n -}}
{{- if $n.tolerationsAsGiven }}
{{- with $n.tolerations }}
{{ toYaml . }}
{{- end }}
{{- else if include "awscsi.true" ($n.tolerateAllTaints | default false) }}
- operator: Exists
{{- else }}
{{- with $n.tolerations }}
{{ toYaml . }}
{{- end }}
# Pods that need this storage wait for the driver's startup taint to go; the node pod itself must run.
- key: {{ printf "%s/agent-not-ready" .c.csi }}
  operator: Exists
# Not evicted while Cluster Autoscaler or Karpenter drains the node, so volumes are unmounted and detached cleanly.
- key: ToBeDeletedByClusterAutoscaler
  operator: Exists
- key: karpenter.sh/disrupted
  operator: Exists
- key: karpenter.sh/disruption
  operator: Exists
{{- end }}
{{- end -}}

{{/*
Keys of a values tree that its chart's values.yaml does not have: "values.yaml documents every key", so these are
typos or keys of another chart. Recurses into maps whose default is a non-empty map, except maps that hold the
user's own content (affinity, resources, securityContext, ...: the "freeForm" key names). Input: dict "values"
"defaults" "freeForm" (list of key names) "prefix". Output: JSON list of dotted paths.
*/}}
{{- define "awscsi.unknownKeys" -}}
{{- $found := list -}}
{{- $defaults := .defaults | default dict -}}
{{- range $k, $val := (.values | default dict) -}}
{{- $path := ternary $k (printf "%s.%s" $.prefix $k) (eq $.prefix "") -}}
{{- if not (hasKey $defaults $k) -}}
{{- $found = append $found $path -}}
{{- else if and (kindIs "map" $val) (kindIs "map" (index $defaults $k)) (not (empty (index $defaults $k))) (not (has $k $.freeForm)) -}}
{{- $found = concat $found (include "awscsi.unknownKeys" (dict "values" $val "defaults" (index $defaults $k) "freeForm" $.freeForm "prefix" $path) | fromJsonArray) -}}
{{- end -}}
{{- end -}}
{{- toJson $found -}}
{{- end -}}

{{- define "awscsi.freeFormKeys" -}}
{{- toJson (list "affinity" "resources" "securityContext" "containerSecurityContext" "podSecurityContext" "updateStrategy" "rollingUpdate" "socketDirVolume" "probeDirVolume" "livenessProbe" "readinessProbe" "startupProbe" "labels" "nodeSelector" "podLabels" "podAnnotations" "annotations" "extraVolumeTags" "tags" "hostAliases" "dnsConfig" "otelTracing" "customLabels" "additionalLabels" "deploymentAnnotations" "daemonSetAnnotations" "additionalDaemonSets" "parameters") -}}
{{- end -}}
