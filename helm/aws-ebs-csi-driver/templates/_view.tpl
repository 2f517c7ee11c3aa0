{{- /*
This chart's values -> the library's view (aws-csi-lib templates/_view.tpl). The layout is already upstream's, which
is the view's: what remains is upstream's implicit behaviour (ServiceMonitor when the CRD is served, the
ebs-csi-default-sc class) and the list of values this driver cannot apply, for NOTES.txt.
*/ -}}
{{- define "aws-ebs-csi-driver.view" -}}
{{- $v := .Values | toYaml | fromYaml -}}
{{- $ctl := $v.controller -}}
{{- $node := $v.node -}}
{{- range $part := list $ctl $node -}}
{{- $_ := set $part "serviceMonitor" (merge (dict "autoDetect" true) ($part.serviceMonitor | default dict)) -}}
{{- end -}}
{{- $classes := $v.storageClasses | default list -}}
{{- if include "awscsi.true" (dig "defaultStorageClass" "enabled" false $v) -}}
{{- $classes = prepend $classes (dict "name" "ebs-csi-default-sc" "annotations" (dict "storageclass.kubernetes.io/is-default-class" "true") "volumeBindingMode" "WaitForFirstConsumer" "allowVolumeExpansion" true) -}}
{{- end -}}
{{- $_ := set $v "storageClasses" $classes -}}
{{- $ignored := list -}}
{{- if eq (toString $ctl.batching) "false" -}}{{- $ignored = append $ignored "controller.batching=false: this driver always batches EC2 Describe calls" -}}{{- end -}}
{{- if include "awscsi.true" (dig "volumeModificationFeature" "enabled" false $ctl) -}}{{- $ignored = append $ignored "controller.volumeModificationFeature.enabled (and sidecars.volumemodifier): volume-modifier-for-k8s is not served; modify volumes with VolumeAttributesClasses" -}}{{- end -}}
{{- if include "awscsi.true" ($ctl.enableNodeLocalVolumes | default false) -}}{{- $ignored = append $ignored "controller.enableNodeLocalVolumes: node-local volumes (local-ebs:// handles) are not supported" -}}{{- end -}}
{{- if include "awscsi.true" ($ctl.sdkDebugLog | default false) -}}{{- $ignored = append $ignored "controller.sdkDebugLog: no AWS SDK wire log; controller.logLevel 4 or more logs every CSI request and response" -}}{{- end -}}
{{- range $part := list "controller" "node" -}}
{{- if not (empty (dig $part "otelTracing" dict $v)) -}}{{- $ignored = append $ignored (printf "%s.otelTracing: no OpenTelemetry tracing in this driver" $part) -}}{{- end -}}
{{- end -}}
{{- if include "awscsi.true" ($node.enableWindows | default false) -}}
{{- $_ := set $v "windowsDropped" "node.enableWindows is true, but this driver has no Windows node plugin: upstream's DaemonSet ebs-csi-node-windows is not rendered, and an in-place upgrade of an upstream release DELETES it, so Windows nodes lose their EBS driver (their volumes stop attaching and mounting). Keep the upstream driver for clusters with Windows nodes; set node.enableWindows=false to say this cluster has none." -}}
{{- end -}}
{{- if or (contains "metadata-labeler" (toString ($node.metadataSources | default ""))) (include "awscsi.true" (dig "sidecars" "metadataLabeler" "enabled" false $v)) -}}{{- $ignored = append $ignored "node.metadataSources metadata-labeler (and sidecars.metadataLabeler): not available; imds and kubernetes are" -}}{{- end -}}
{{- if include "awscsi.true" (dig "helmTester" "enabled" false $v) -}}{{- $ignored = append $ignored "helmTester.enabled: this chart renders no Helm hooks (EKS add-ons cannot run them)" -}}{{- end -}}
{{- if include "awscsi.true" ($v.fips | default false) -}}{{- $ignored = append $ignored "fips: FIPS endpoints are used (AWS_USE_FIPS_ENDPOINT), but the image has no -fips variant and no FIPS-validated crypto module" -}}{{- end -}}
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
