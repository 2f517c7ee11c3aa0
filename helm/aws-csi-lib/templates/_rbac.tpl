{{- /*
Service accounts and RBAC, named as upstream names them: ClusterRoleBinding roleRefs are immutable, so an upgrade
from an upstream release keeps every binding's name and role. A Role on leases in the release namespace serves
leader election (upstream EFS grants leases cluster-wide in its provisioner ClusterRole; namespaced is enough).
*/ -}}
{{- define "awscsi.serviceAccount" -}}
{{- $sa := .sa | default dict -}}
{{- if ne (toString (ternary true $sa.create (kindIs "invalid" $sa.create))) "false" }}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ $sa.name }}
  namespace: {{ .ns }}
  labels:
    {{- include "awscsi.labels" .c | nindent 4 }}
  {{- $annotations := deepCopy ($sa.annotations | default dict) }}
  {{- with $sa.roleArn }}{{- $_ := set $annotations "eks.amazonaws.com/role-arn" . }}{{- end }}
  {{- with $annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- /* as upstream: rendered only when true (false leaves the API's default, so the token stays mounted) */}}
{{- if include "awscsi.true" $sa.automountServiceAccountToken }}
automountServiceAccountToken: true
{{- end }}
{{- end }}
{{- end -}}

{{- define "awscsi.clusterRoleBinding" -}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{ .name }}
  labels:
    {{- include "awscsi.labels" .c | nindent 4 }}
subjects:
  - kind: ServiceAccount
    name: {{ .sa }}
    namespace: {{ .ns }}
roleRef:
  kind: ClusterRole
  name: {{ .role }}
  apiGroup: rbac.authorization.k8s.io
{{- end -}}

{{/* The rules each controller sidecar needs, as the sidecars' own deploy/kubernetes/rbac.yaml grant them. */}}
{{- define "awscsi.sidecarRules" -}}
{{- if eq .sidecar "provisioner" }}
- apiGroups: [""]
  resources: ["persistentvolumes"]
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims"]
  verbs: ["get", "list", "watch", "update"]
- apiGroups: ["storage.k8s.io"]
  resources: ["storageclasses"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["list", "watch", "create", "update", "patch"]
- apiGroups: ["storage.k8s.io"]
  resources: ["csinodes"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["storage.k8s.io"]
  resources: ["volumeattributesclasses"]
  verbs: ["get"]
{{- if eq .d "ebs" }}
# Restoring a volume from a snapshot, and waiting for a volume to be detached before deleting it.
- apiGroups: ["snapshot.storage.k8s.io"]
  resources: ["volumesnapshots"]
  verbs: ["get", "list", "watch", "update"]
- apiGroups: ["snapshot.storage.k8s.io"]
  resources: ["volumesnapshotcontents"]
  verbs: ["get", "list"]
- apiGroups: ["storage.k8s.io"]
  resources: ["volumeattachments"]
  verbs: ["get", "list", "watch"]
{{- end }}
{{- else if eq .sidecar "attacher" }}
- apiGroups: [""]
  resources: ["persistentvolumes"]
  verbs: ["get", "list", "watch", "update", "patch"]
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["storage.k8s.io"]
  resources: ["csinodes"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["storage.k8s.io"]
  resources: ["volumeattachments"]
  verbs: ["get", "list", "watch", "update", "patch"]
- apiGroups: ["storage.k8s.io"]
  resources: ["volumeattachments/status"]
  verbs: ["patch"]
{{- else if eq .sidecar "resizer" }}
- apiGroups: [""]
  resources: ["persistentvolumes"]
  verbs: ["get", "list", "watch", "patch"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims/status"]
  verbs: ["patch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["list", "watch", "create", "update", "patch"]
- apiGroups: ["storage.k8s.io"]
  resources: ["volumeattributesclasses"]
  verbs: ["get", "list", "watch"]
{{- else if eq .sidecar "snapshotter" }}
- apiGroups: [""]
  resources: ["events"]
  verbs: ["list", "watch", "create", "update", "patch"]
- apiGroups: ["snapshot.storage.k8s.io"]
  resources: ["volumesnapshotclasses"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["snapshot.storage.k8s.io"]
  resources: ["volumesnapshotcontents"]
  verbs: ["get", "list", "watch", "update", "patch"]
- apiGroups: ["snapshot.storage.k8s.io"]
  resources: ["volumesnapshotcontents/status"]
  verbs: ["update", "patch"]
- apiGroups: ["groupsnapshot.storage.k8s.io"]
  resources: ["volumegroupsnapshotclasses"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["groupsnapshot.storage.k8s.io"]
  resources: ["volumegroupsnapshotcontents"]
  verbs: ["get", "list", "watch", "update", "patch"]
- apiGroups: ["groupsnapshot.storage.k8s.io"]
  resources: ["volumegroupsnapshotcontents/status"]
  verbs: ["update", "patch"]
{{- end }}
{{- end -}}

{{- define "awscsi.controllerRbac" -}}
{{- $c := . -}}
{{- $ctl := .v.controller | default dict -}}
{{- $sa := dig "serviceAccount" "name" (printf "%s-csi-controller-sa" .d) $ctl -}}
{{ include "awscsi.serviceAccount" (dict "c" $c "sa" ($ctl.serviceAccount | default (dict "name" $sa)) "ns" .ns) }}
{{- /* upstream names: EBS ebs-external-<sidecar>-role / ebs-csi-<sidecar>-binding, EFS efs-csi-external-provisioner-role / efs-csi-provisioner-binding */}}
{{- $sidecars := ternary (list "provisioner" "attacher" "resizer" "snapshotter") (list "provisioner") (eq .d "ebs") }}
{{- range $sidecar := $sidecars }}
{{- $role := ternary (printf "ebs-external-%s-role" $sidecar) "efs-csi-external-provisioner-role" (eq $c.d "ebs") }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ $role }}
  labels:
    {{- include "awscsi.labels" $c | nindent 4 }}
rules:
  {{- include "awscsi.sidecarRules" (dict "sidecar" $sidecar "d" $c.d) | nindent 2 }}
  {{- with (dig "sidecars" $sidecar "additionalClusterRoleRules" (list) $c.v) }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{ include "awscsi.clusterRoleBinding" (dict "c" $c "name" (printf "%s-csi-%s-binding" $c.d $sidecar) "sa" $sa "ns" $c.ns "role" $role) }}
{{- end }}
---
# Leader election of the controller sidecars: one Lease per sidecar in this namespace.
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ printf "%s-csi-leases-role" .d }}
  namespace: {{ .ns }}
  labels:
    {{- include "awscsi.labels" $c | nindent 4 }}
rules:
  - apiGroups: ["coordination.k8s.io"]
    resources: ["leases"]
    verbs: ["get", "watch", "list", "delete", "update", "create"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ printf "%s-csi-leases-rolebinding" .d }}
  namespace: {{ .ns }}
  labels:
    {{- include "awscsi.labels" $c | nindent 4 }}
subjects:
  - kind: ServiceAccount
    name: {{ $sa }}
    namespace: {{ .ns }}
roleRef:
  kind: Role
  name: {{ printf "%s-csi-leases-role" .d }}
  apiGroup: rbac.authorization.k8s.io
{{- if and (eq .d "efs") (include "awscsi.true" (dig "fileSystemIdRefs" "enabled" false $ctl)) }}
---
# fileSystemIdConfigRef / fileSystemIdSecretRef (upstream's controller.fileSystemIdRefs): the EFS plugin reads the
# ConfigMap or Secret a StorageClass names, in any namespace; get only (no list, no watch).
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: efs-csi-filesystem-id-reader-role
  labels:
    {{- include "awscsi.labels" $c | nindent 4 }}
rules:
  - apiGroups: [""]
    resources: ["configmaps", "secrets"]
    verbs: ["get"]
{{ include "awscsi.clusterRoleBinding" (dict "c" $c "name" "efs-csi-filesystem-id-reader-role-binding" "sa" $sa "ns" $c.ns "role" "efs-csi-filesystem-id-reader-role") }}
{{- end }}
{{- $secrets := $ctl.provisionerSecretAccess | default dict }}
{{- /* on unless set false: upstream grants it unconditionally, and helm upgrade --reuse-values from an upstream
release brings no provisionerSecretAccess key at all */}}
{{- if and (eq .d "efs") (include "awscsi.true" (ternary true $secrets.enabled (kindIs "invalid" $secrets.enabled))) }}
{{- /*
EFS cross-account provisioning: the provisioner reads the StorageClass's provisioner secret (awsRoleArn, externalId,
crossaccount) and hands it to CreateVolume. get/watch/list on the named secrets only, in their namespace; names as
upstream's (efs-csi-external-provisioner-role-describe-secrets / efs-csi-provisioner-binding-describe-secrets).
*/}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: efs-csi-external-provisioner-role-describe-secrets
  labels:
    {{- include "awscsi.labels" $c | nindent 4 }}
rules:
  - apiGroups: [""]
    resources: ["secrets"]
    verbs: ["get", "watch", "list"]
    resourceNames:
      {{- toYaml ($secrets.secretNames | default (list "x-account")) | nindent 6 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: efs-csi-provisioner-binding-describe-secrets
  namespace: {{ $secrets.namespace | default .ns }}
  labels:
    {{- include "awscsi.labels" $c | nindent 4 }}
subjects:
  - kind: ServiceAccount
    name: {{ $sa }}
    namespace: {{ .ns }}
roleRef:
  kind: ClusterRole
  name: efs-csi-external-provisioner-role-describe-secrets
  apiGroup: rbac.authorization.k8s.io
{{- end }}
{{- end -}}

{{/*
RBAC of the node plugins: read the own Node (metadata fallback, startup taint) and patch it to remove the startup
taint unless the taint watcher is off; EBS also reads CSINodes (the taint goes once the attach limit is published)
and VolumeAttachments (the preStop hook waits for the node's volumes to be detached during a drain).
*/}}
{{- define "awscsi.nodeRbac" -}}
{{- $c := . -}}
{{- $n := .v.node | default dict -}}
{{- $ns := $n.namespaceOverride | default .ns -}}
{{- $sa := dig "serviceAccount" "name" (printf "%s-csi-node-sa" .d) $n -}}
{{- $disableMutation := or (include "awscsi.true" (dig "serviceAccount" "disableMutation" false $n)) (include "awscsi.true" ($n.disableTaintWatcher | default false)) -}}
{{ include "awscsi.serviceAccount" (dict "c" $c "sa" ($n.serviceAccount | default (dict "name" $sa)) "ns" $ns) }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ printf "%s-csi-node-role" .d }}
  labels:
    {{- include "awscsi.labels" $c | nindent 4 }}
rules:
  - apiGroups: [""]
    resources: ["nodes"]
    verbs: ["get", "list", "watch"{{ if not $disableMutation }}, "patch"{{ end }}]
  {{- if eq .d "ebs" }}
  - apiGroups: ["storage.k8s.io"]
    resources: ["csinodes"]
    verbs: ["get"]
  - apiGroups: ["storage.k8s.io"]
    resources: ["volumeattachments"]
    verbs: ["get", "list", "watch"]
  {{- end }}
{{- /* upstream names: ebs-csi-node-getter-binding, efs-csi-node-binding */}}
{{ include "awscsi.clusterRoleBinding" (dict "c" $c "name" (ternary "ebs-csi-node-getter-binding" "efs-csi-node-binding" (eq .d "ebs")) "sa" $sa "ns" $ns "role" (printf "%s-csi-node-role" .d)) }}
{{- end -}}
