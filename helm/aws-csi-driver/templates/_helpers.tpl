{{/*
Helpers shared by every template. A "driver" below is the string "ebs" or "efs"; the templates loop over the
enabled ones, so one release can install either driver or both.
*/}}

{{- define "aws-csi-driver.name" -}}aws-csi-driver{{- end -}}

{{/* Labels on every object. */}}
{{- define "aws-csi-driver.labels" -}}
app.kubernetes.io/name: {{ include "aws-csi-driver.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end -}}

{{/* Selector labels of one component: root, app (e.g. ebs-csi-controller). */}}
{{- define "aws-csi-driver.selectorLabels" -}}
app: {{ .app }}
app.kubernetes.io/name: {{ include "aws-csi-driver.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- end -}}

{{/* The drivers this release installs, as a list of "ebs" / "efs". */}}
{{- define "aws-csi-driver.enabledDrivers" -}}
{{- $enabled := list -}}
{{- range $d := list "ebs" "efs" -}}
{{- if (index $.Values $d).enabled -}}{{- $enabled = append $enabled $d -}}{{- end -}}
{{- end -}}
{{- toJson $enabled -}}
{{- end -}}

{{- define "aws-csi-driver.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion (toString .Values.image.tag)) -}}
{{- end -}}

{{- define "aws-csi-driver.sidecarImage" -}}
{{- printf "%s:%s" .image.repository .image.tag -}}
{{- end -}}

{{/*
Whether the cluster serves the snapshot API (the external-snapshotter CRDs), or the operator forced the
snapshotter on. Both the csi-snapshotter sidecar and the VolumeSnapshotClasses depend on it.
*/}}
{{- define "aws-csi-driver.snapshotsEnabled" -}}
{{- if or .Values.sidecars.snapshotter.forceEnable (.Capabilities.APIVersions.Has "snapshot.storage.k8s.io/v1") -}}true{{- end -}}
{{- end -}}

{{/*
Whether the cluster serves VolumeAttributesClass (ControllerModifyVolume through the resizer): found by discovery
on a live cluster (beta on 1.31-1.33 when enabled), or implied by Kubernetes >= 1.34 where it is GA, which is what
helm template and EKS add-ons can see.
*/}}
{{- define "aws-csi-driver.vacServed" -}}
{{- if or (.Capabilities.APIVersions.Has "storage.k8s.io/v1/VolumeAttributesClass") (.Capabilities.APIVersions.Has "storage.k8s.io/v1beta1/VolumeAttributesClass") (semverCompare ">=1.34-0" .Capabilities.KubeVersion.Version) -}}true{{- end -}}
{{- end -}}

{{/*
Sidecar arguments: the defaults, minus any that additionalArgs overrides by flag name, then additionalArgs.
Input: dict "defaults" (list) "extra" (list).
*/}}
{{- define "aws-csi-driver.mergeArgs" -}}
{{- $extra := .extra | default list -}}
{{- $overridden := list -}}
{{- range $extra -}}{{- $overridden = append $overridden (regexReplaceAll "=.*$" (toString .) "") -}}{{- end -}}
{{- range .defaults }}
{{- if not (has (regexReplaceAll "=.*$" . "") $overridden) }}
- {{ . | quote }}
{{- end }}
{{- end }}
{{- range $extra }}
- {{ toString . | quote }}
{{- end }}
{{- end -}}

{{/* Leader election arguments of a controller sidecar: always on, durations when given. Input: the sidecar's values. */}}
{{- define "aws-csi-driver.leaderElectionArgs" -}}
{{- $args := list "--leader-election=true" -}}
{{- with .leaderElection -}}
{{- with .leaseDuration }}{{- $args = append $args (printf "--leader-election-lease-duration=%s" .) -}}{{- end -}}
{{- with .renewDeadline }}{{- $args = append $args (printf "--leader-election-renew-deadline=%s" .) -}}{{- end -}}
{{- with .retryPeriod }}{{- $args = append $args (printf "--leader-election-retry-period=%s" .) -}}{{- end -}}
{{- end -}}
{{- toJson $args -}}
{{- end -}}

{{/* "k=v,k2=v2" (sep "=" ",") or "k:v k2:v2" (sep ":" " ") from a map, keys sorted. Input: dict "tags" "kv" "sep". */}}
{{- define "aws-csi-driver.joinTags" -}}
{{- $pairs := list -}}
{{- range $k, $v := .tags -}}{{- $pairs = append $pairs (printf "%s%s%v" $k $.kv $v) -}}{{- end -}}
{{- join .sep $pairs -}}
{{- end -}}

{{/* Service account name of a component. Input: dict "root" "driver" "component" (controller|node). */}}
{{- define "aws-csi-driver.serviceAccountName" -}}
{{- (index (index .root.Values .driver) .component).serviceAccount.name -}}
{{- end -}}
