{{- /*
Entry points. An application chart calls, per driver it installs:
  {{ include "awscsi.driver" (dict "root" $ "d" "ebs" "v" $view) }}   every object
  {{ include "awscsi.notes" (dict "root" $ "d" "ebs" "v" $view) }}    its lines of NOTES.txt
*/ -}}
{{- define "awscsi.context" -}}
{{- $v := .v | default dict -}}
{{- $name := ($v.nameOverride | default (printf "aws-%s-csi-driver" .d)) | trunc 63 | trimSuffix "-" -}}
{{- $controllerOn := and (not (include "awscsi.true" ($v.nodeComponentOnly | default false))) (ne (toString (dig "controller" "enabled" true $v)) "false") -}}
{{- $nodeOn := ne (toString (dig "node" "enableLinux" true $v)) "false" -}}
{{- toJson (dict "d" .d "csi" (printf "%s.csi.aws.com" .d) "name" $name "controllerApp" (printf "%s-csi-controller" .d) "nodeApp" (printf "%s-csi-node" .d) "controllerRendered" $controllerOn "nodeRendered" (or $nodeOn (not (empty ($v.additionalDaemonSets | default dict))))) -}}
{{- end -}}

{{- define "awscsi.driver" -}}
{{- $c := include "awscsi.context" . | fromJson -}}
{{- $_ := set $c "root" .root -}}
{{- $_ := set $c "v" .v -}}
{{- $_ := set $c "ns" .root.Release.Namespace -}}
{{- if $c.controllerRendered }}
{{ include "awscsi.controllerRbac" $c }}
{{ include "awscsi.controller" $c }}
{{ include "awscsi.pdb" $c }}
{{- end }}
{{ include "awscsi.nodeRbac" $c }}
{{ include "awscsi.nodes" $c }}
{{ include "awscsi.csiDriver" $c }}
{{ include "awscsi.storageClasses" $c }}
{{ include "awscsi.volumeSnapshotClasses" $c }}
{{ include "awscsi.volumeGroupSnapshotClasses" $c }}
{{ include "awscsi.metrics" $c }}
{{- end -}}

{{/*
NOTES.txt lines for one driver: what runs, what is off and why, and every value the chart accepted but cannot apply
(the chart's "ignored" list plus plugin additionalArgs this driver has no flag for).
*/}}
{{- define "awscsi.notes" -}}
{{- $c := include "awscsi.context" . | fromJson -}}
{{- $_ := set $c "root" .root -}}
{{- $_ := set $c "v" .v -}}
{{- $v := .v -}}
- {{ $c.csi }}:{{ if $c.controllerRendered }} Deployment {{ $c.controllerApp }},{{ end }}{{ if $c.nodeRendered }} DaemonSet {{ $c.nodeApp }}{{ end }}
  (kubectl -n {{ .root.Release.Namespace }} get pods -l app.kubernetes.io/name={{ $c.name }},app.kubernetes.io/instance={{ .root.Release.Name }})
{{- $repo := toString (dig "image" "repository" "" $v) }}
{{- if or (hasSuffix "/aws-ebs-csi-driver" $repo) (hasSuffix "/aws-efs-csi-driver" $repo) (eq $repo "aws-ebs-csi-driver") (eq $repo "aws-efs-csi-driver") }}
  WARNING: image.repository {{ $repo }} looks like upstream's Go driver image; this chart runs aws-csi-driver
  (the Java driver) with its own arguments: point image.repository and image.tag at that image.
{{- end }}
{{- if and (eq .d "ebs") $c.controllerRendered (not (include "awscsi.snapshotsEnabled" $c)) }}
  EBS snapshots are off: the cluster does not serve snapshot.storage.k8s.io/v1. Install the external-snapshotter
  CRDs and snapshot-controller, then upgrade this release (or set sidecars.snapshotter.forceEnable=true).
{{- end }}
{{- if empty ($v.storageClasses | default list) }}
  No StorageClass was created for {{ $c.csi }} (none asked for{{ if eq .d "ebs" }}; defaultStorageClass.enabled=true
  adds one{{ end }}).
{{- end }}
{{- with $v.windowsDropped }}
  WARNING: {{ . }}
{{- end }}
{{- $dropped := list }}
{{- range $part := list "controller" "node" }}
{{- $level := dig $part "logLevel" nil $v }}
{{- if and (not (kindIs "invalid" $level)) (regexMatch "^[0-9]+$" (toString $level)) (lt (atoi (toString $level)) 4) (ne (atoi (toString $level)) 2) }}
{{- $dropped = append $dropped (printf "%s.logLevel=%v: this driver has no klog -v; klog levels 0-3 log as --log-level=info, 4 and up as debug" $part $level) }}
{{- end }}
{{- $t := include "awscsi.translateArgs" (dict "args" (dig $part "additionalArgs" (list) $v)) | fromJson }}
{{- range $t.dropped }}{{- $dropped = append $dropped (printf "%s.additionalArgs %s: aws-csi-driver has no such flag; not passed" $part .) }}{{- end }}
{{- end }}
{{- $ignored := concat ($v.ignored | default list) $dropped }}
{{- if $ignored }}
  Accepted but not applied ({{ len $ignored }}):
  {{- range $ignored }}
  - {{ . }}
  {{- end }}
{{- end }}
{{- end -}}
