{{- /*
CSIDriver, StorageClasses, VolumeSnapshotClasses and the controller PodDisruptionBudget of one driver.
*/ -}}

{{/*
CSIDriver objects with the upstream drivers' settings: kubelet and the attach/detach controller key on the name, so
PersistentVolumes made by the upstream drivers are served unchanged. attachRequired, podInfoOnMount and
fsGroupPolicy are immutable: they stay upstream's (useOldCSIDriver: no fsGroupPolicy, as upstream renders it).
*/}}
{{- define "awscsi.csiDriver" -}}
{{- $cd := .v.csiDriver | default dict -}}
{{- /* upstream EBS renders no CSIDriver with nodeComponentOnly (the other release owns it) */ -}}
{{- $nodeOnly := and (eq .d "ebs") (include "awscsi.true" (.v.nodeComponentOnly | default false)) -}}
{{- if and (not $nodeOnly) (ne (toString (ternary true $cd.create (kindIs "invalid" $cd.create))) "false") }}
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata:
  name: {{ .csi }}
  labels:
    {{- include "awscsi.labels" . | nindent 4 }}
  {{- if or (include "awscsi.true" ($cd.helmHook | default false)) (eq .d "efs") }}
  # upstream EFS: kept on uninstall (helm.sh/resource-policy: keep, hook or not); with useHelmHooksForCSIDriver a
  # hook, replaced on every install and upgrade.
  annotations:
    {{- if include "awscsi.true" ($cd.helmHook | default false) }}
    helm.sh/hook: pre-install, pre-upgrade
    helm.sh/hook-delete-policy: before-hook-creation
    {{- end }}
    helm.sh/resource-policy: keep
  {{- end }}
spec:
  {{- if eq .d "ebs" }}
  attachRequired: true
  podInfoOnMount: false
  {{- if not (include "awscsi.true" (.v.useOldCSIDriver | default false)) }}
  fsGroupPolicy: File
  {{- end }}
  {{- if include "awscsi.true" (dig "node" "selinux" false .v) }}
  seLinuxMount: true
  {{- end }}
  {{- if semverCompare ">=1.33-0" .root.Capabilities.KubeVersion.Version }}
  {{- /* -1 (upstream's default, also what --reuse-values brings): automatic, 10 s (upstream: 300 with its
  metadata-labeler, which this driver lacks); 0 or absent: not set; the API server refuses less than 10. */}}
  {{- $period := .v.nodeAllocatableUpdatePeriodSeconds }}
  {{- if kindIs "invalid" $period }}{{ $period = -1 }}{{ end }}
  {{- if eq (int $period) -1 }}
  nodeAllocatableUpdatePeriodSeconds: 10
  {{- else if $period }}
  nodeAllocatableUpdatePeriodSeconds: {{ $period }}
  {{- end }}
  {{- end }}
  {{- else }}
  attachRequired: false
  {{- end }}
{{- end }}
{{- end -}}

{{/*
StorageClasses of this driver: provisioner, parameters, reclaimPolicy and volumeBindingMode are immutable, so each
renders exactly what the entry says. Binding defaults as upstream: EBS WaitForFirstConsumer (the volume lands in the
zone of the pod's node), EFS Immediate (the API default upstream's EFS chart leaves in place). allowVolumeExpansion
only where given (as upstream; ebs-csi-default-sc sets it), since a class is immutable and must read as upstream's.
*/}}
{{- define "awscsi.storageClasses" -}}
{{- $c := . -}}
{{- range .v.storageClasses | default list }}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: {{ .name }}
  labels:
    {{- include "awscsi.labels" $c | nindent 4 }}
    {{- with .labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with .annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
provisioner: {{ $c.csi }}
volumeBindingMode: {{ .volumeBindingMode | default (ternary "WaitForFirstConsumer" "Immediate" (eq $c.d "ebs")) }}
reclaimPolicy: {{ .reclaimPolicy | default "Delete" }}
{{- if and (not (kindIs "invalid" .allowVolumeExpansion)) (eq $c.d "ebs") }}
allowVolumeExpansion: {{ include "awscsi.true" .allowVolumeExpansion | eq "true" }}
{{- end }}
{{- with .parameters }}
parameters:
  {{- range $k, $v := . }}
  {{ $k | quote }}: {{ toString $v | quote }}
  {{- end }}
{{- end }}
{{- with .mountOptions }}
mountOptions:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .allowedTopologies }}
allowedTopologies:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
EBS VolumeGroupSnapshotClasses (this chart's own key: upstream has no group snapshots). Only where the group snapshot
API is served (external-snapshotter's groupsnapshot.storage.k8s.io CRDs) and snapshots are on: without the CRDs the API
server would refuse the whole release. The snapshotter needs its group snapshot gate too (helm/README.md).
*/}}
{{- define "awscsi.volumeGroupSnapshotClasses" -}}
{{- $c := . -}}
{{- if and (include "awscsi.snapshotsEnabled" $c) ($c.root.Capabilities.APIVersions.Has "groupsnapshot.storage.k8s.io/v1") }}
{{- range .v.volumeGroupSnapshotClasses | default list }}
---
apiVersion: groupsnapshot.storage.k8s.io/v1
kind: VolumeGroupSnapshotClass
metadata:
  name: {{ .name }}
  labels:
    {{- include "awscsi.labels" $c | nindent 4 }}
    {{- with .labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with .annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
driver: {{ $c.csi }}
deletionPolicy: {{ .deletionPolicy | default "Delete" }}
{{- with .parameters }}
parameters:
  {{- range $k, $v := . }}
  {{ $k | quote }}: {{ toString $v | quote }}
  {{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
EBS VolumeSnapshotClasses. They exist only where the snapshot CRDs do (or the snapshotter is forced): without the
CRDs the API server would refuse the whole release.
*/}}
{{- define "awscsi.volumeSnapshotClasses" -}}
{{- $c := . -}}
{{- if include "awscsi.snapshotsEnabled" $c }}
{{- range .v.volumeSnapshotClasses | default list }}
---
apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshotClass
metadata:
  name: {{ .name }}
  labels:
    {{- include "awscsi.labels" $c | nindent 4 }}
    {{- with .labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with .annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
driver: {{ $c.csi }}
deletionPolicy: {{ .deletionPolicy | default "Delete" }}
{{- with .parameters }}
parameters:
  {{- range $k, $v := . }}
  {{ $k | quote }}: {{ toString $v | quote }}
  {{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{/* PodDisruptionBudget of the controller: upstream's thresholds (maxUnavailable 1 up to 2 replicas, else minAvailable 2). */}}
{{- define "awscsi.pdb" -}}
{{- $ctl := .v.controller | default dict -}}
{{- $pdb := $ctl.podDisruptionBudget | default dict -}}
{{- /* upstream EFS: named and selected by controller.name */ -}}
{{- $app := ternary ($ctl.name | default .controllerApp) .controllerApp (eq .d "efs") -}}
{{- if include "awscsi.true" ($pdb.enabled | default false) }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ $app }}
  namespace: {{ .ns }}
  labels:
    {{- include "awscsi.labels" . | nindent 4 }}
spec:
  selector:
    matchLabels:
      app: {{ $app }}
      {{- include "awscsi.selectorLabels" . | nindent 6 }}
  {{- /* one threshold (the API refuses both): maxUnavailable when given, else minAvailable */}}
  {{- if not (kindIs "invalid" $pdb.maxUnavailable) }}
  maxUnavailable: {{ $pdb.maxUnavailable }}
  {{- else if not (kindIs "invalid" $pdb.minAvailable) }}
  minAvailable: {{ $pdb.minAvailable }}
  {{- else if le (int ($ctl.replicaCount | default 2)) 2 }}
  maxUnavailable: 1
  {{- else }}
  minAvailable: 2
  {{- end }}
  {{- with $pdb.unhealthyPodEvictionPolicy }}
  unhealthyPodEvictionPolicy: {{ . }}
  {{- end }}
{{- end }}
{{- end -}}
