{{- /*
This chart's values (upstream EFS layout) -> the library's view (aws-csi-lib templates/_view.tpl): the provisioner
settings upstream keeps under controller move to sidecars.provisioner, rollingUpdate becomes the update strategy,
useFIPS/useHelmHooksForCSIDriver their view keys; portRangeUpperBound, controller.fileSystemIdRefs and
node.efsUtilsConfOverrides keep their names (the library reads them); values this driver cannot apply are listed for
NOTES.txt.
*/ -}}
{{- define "aws-efs-csi-driver.view" -}}
{{- $v := .Values | toYaml | fromYaml -}}
{{- $ctl := $v.controller -}}
{{- $node := $v.node -}}
{{- $s := $v.sidecars -}}
{{- $_ := set $ctl "enabled" (ne (toString $ctl.create) "false") -}}
{{- $p := deepCopy ($s.csiProvisioner | default dict) -}}
{{- $_ := set $p "logLevel" $ctl.logLevel -}}
{{- $_ := set $p "timeout" ($ctl.timeout | default "60s") -}}
{{- $_ := set $p "workerThreads" ($ctl.workerThreads | default 100) -}}
{{- $_ := set $p "leaderElection" (dict "enabled" true "renewDeadline" $ctl.leaderElectionRenewDeadline "leaseDuration" $ctl.leaderElectionLeaseDuration) -}}
{{- $_ := set $s "provisioner" $p -}}
{{- $_ := set $s.nodeDriverRegistrar "logLevel" $node.logLevel -}}
{{- with $ctl.rollingUpdate }}{{- $_ := set $ctl "updateStrategy" (dict "type" "RollingUpdate" "rollingUpdate" .) }}{{- end -}}
{{- with $node.rollingUpdate }}{{- $_ := set $node "updateStrategy" (dict "type" "RollingUpdate" "rollingUpdate" .) }}{{- end -}}
{{- range $k := list "livenessProbe" "readinessProbe" "startupProbe" -}}
{{- if empty (index $ctl $k) }}{{- $_ := unset $ctl $k }}{{- end -}}
{{- if empty (index $node $k) }}{{- $_ := unset $node $k }}{{- end -}}
{{- end -}}
{{- /* upstream renders node.tolerations as given (default: every taint) */ -}}
{{- $_ := set $node "tolerateAllTaints" false -}}
{{- /* upstream: the in-flight mount limit counts only with its opt-in, also when the key is absent (--reuse-values) */ -}}
{{- if not (hasKey $node "maxInflightMountCallsOptIn") }}{{- $_ := set $node "maxInflightMountCallsOptIn" false -}}{{- end -}}
{{- $_ := set $node "tolerationsAsGiven" true -}}
{{- $_ := set $v "fips" $v.useFIPS -}}
{{- $_ := set $v "csiDriver" (dict "create" true "helmHook" (ne (toString $v.useHelmHooksForCSIDriver) "false")) -}}
{{- $_ := set $v "region" $ctl.region -}}
{{- $ignored := list -}}
{{- if include "awscsi.true" ($v.useFIPS | default false) -}}{{- $ignored = append $ignored "useFIPS: FIPS endpoints are used (AWS_USE_FIPS_ENDPOINT); efs-utils' fips_mode_enabled is not set and the image has no FIPS-validated crypto module" -}}{{- end -}}
{{- range ($v.storageClasses | default list) -}}{{- if not (kindIs "invalid" .allowVolumeExpansion) -}}{{- $ignored = append $ignored (printf "storageClasses %s allowVolumeExpansion: not rendered, as upstream's EFS chart (EFS volumes have no size to grow)" .name) -}}{{- end -}}{{- end -}}
{{- with $node.s3filesUtilsConfOverrides -}}{{- $ignored = append $ignored "node.s3filesUtilsConfOverrides: S3 Files is not supported" -}}{{- end -}}
{{- with $v.fullnameOverride -}}{{- $ignored = append $ignored "fullnameOverride: no object is named after it (as upstream)" -}}{{- end -}}
{{- /* values.yaml itself is not in .Files: known-values.yaml is a link to it */ -}}
{{- $defaults := .Files.Get "known-values.yaml" | fromYaml -}}
{{- $_ := set $defaults "global" dict -}}
{{- $_ := set $defaults "aws-csi-lib" dict -}}
{{- range include "awscsi.unknownKeys" (dict "values" (.Values | toYaml | fromYaml) "defaults" $defaults "freeForm" (include "awscsi.freeFormKeys" . | fromJsonArray) "prefix" "") | fromJsonArray -}}
{{- $ignored = append $ignored (printf "%s: not a key of this chart or of upstream's" .) -}}
{{- end -}}
{{- $_ := set $v "ignored" $ignored -}}
{{- toYaml $v -}}
{{- end -}}
