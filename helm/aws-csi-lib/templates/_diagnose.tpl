{{- /*
The read-only ClusterRole of `aws-csi-driver diagnose`, off by default (diagnose.clusterRole.create), rendered once
per release: its rules are the command's reads, diagnose/src/main/resources/io/awscsi/diagnose/api-reads.txt (the
chart tests compare the two). Bound to diagnose.clusterRole.subjects (users, groups, service accounts) when given;
otherwise bind it yourself: kubectl create clusterrolebinding NAME --clusterrole=<release>-diagnose --user=...
Input: dict "root" $ "v" (a view with diagnose.clusterRole) "name" (the chart's app.kubernetes.io/name).
*/ -}}
{{- define "awscsi.diagnoseRbac" -}}
{{- $r := dig "diagnose" "clusterRole" dict .v -}}
{{- if include "awscsi.true" ($r.create | default false) }}
{{- $name := $r.name | default (printf "%s-diagnose" .root.Release.Name) }}
{{- $c := dict "root" .root "name" .name "v" .v }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ $name }}
  labels:
    {{- include "awscsi.labels" $c | nindent 4 }}
rules:
  - apiGroups: [""]
    resources: ["persistentvolumeclaims", "persistentvolumes", "nodes", "pods/log"]
    verbs: ["get"]
  - apiGroups: [""]
    resources: ["pods"]
    verbs: ["get", "list"]
  - apiGroups: [""]
    resources: ["events"]
    verbs: ["list"]
  - apiGroups: ["storage.k8s.io"]
    resources: ["storageclasses", "csinodes", "csidrivers"]
    verbs: ["get"]
  - apiGroups: ["storage.k8s.io"]
    resources: ["volumeattachments"]
    verbs: ["list"]
  - apiGroups: ["coordination.k8s.io"]
    resources: ["leases"]
    verbs: ["get"]
  - apiGroups: ["snapshot.storage.k8s.io"]
    resources: ["volumesnapshots", "volumesnapshotcontents"]
    verbs: ["get"]
  - apiGroups: ["groupsnapshot.storage.k8s.io"]
    resources: ["volumegroupsnapshots", "volumegroupsnapshotcontents"]
    verbs: ["get"]
{{- with $r.subjects }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{ $name }}
  labels:
    {{- include "awscsi.labels" $c | nindent 4 }}
subjects:
  {{- toYaml . | nindent 2 }}
roleRef:
  kind: ClusterRole
  name: {{ $name }}
  apiGroup: rbac.authorization.k8s.io
{{- end }}
{{- end }}
{{- end -}}

{{/* NOTES.txt line of the diagnose ClusterRole, when it is rendered. Input: as awscsi.diagnoseRbac. */}}
{{- define "awscsi.diagnoseNotes" -}}
{{- $r := dig "diagnose" "clusterRole" dict .v -}}
{{- if include "awscsi.true" ($r.create | default false) -}}
{{- $name := $r.name | default (printf "%s-diagnose" .root.Release.Name) }}
A stuck volume: aws-csi-driver diagnose pvc NAMESPACE/NAME (read-only ClusterRole {{ $name }},
{{- if $r.subjects }} bound to {{ len $r.subjects }} subject(s)).
{{- else }} not bound: kubectl create clusterrolebinding {{ $name }} --clusterrole={{ $name }} --user=NAME).
{{- end }}
{{- end -}}
{{- end -}}
