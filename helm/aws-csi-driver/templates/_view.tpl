{{- /*
This chart's values -> one driver's view (aws-csi-lib templates/_view.tpl). controller, node and sidecars are shared
by both drivers; ebs.* and efs.* hold each driver's own settings (service accounts, ports, CSIDriver, EFS node
resources), merged over the shared ones here. Input: dict "root" "d".
*/ -}}
{{- define "aws-csi-driver.view" -}}
{{- $V := .root.Values | toYaml | fromYaml -}}
{{- $d := .d -}}
{{- $drv := index $V $d -}}
{{- $app := printf "%s-csi-controller" $d -}}
{{- $ctl := deepCopy $V.controller -}}
{{- $_ := set $ctl "serviceAccount" $drv.controller.serviceAccount -}}
{{- $_ := set $ctl "healthPort" $drv.controller.healthPort -}}
{{- $_ := set $ctl "metricsPort" $drv.controller.metricsPort -}}
{{- $_ := set $ctl "securityContext" $ctl.podSecurityContext -}}
{{- if eq $d "efs" }}{{- $_ := set $ctl "provisionerSecretAccess" (dig "controller" "provisionerSecretAccess" dict $drv) }}{{- end -}}
{{- if empty $ctl.affinity -}}
{{- $notOn := dict "key" "eks.amazonaws.com/compute-type" "operator" "NotIn" "values" (list "fargate" "auto" "hybrid") -}}
{{- $preferred := list (dict "weight" 1 "preference" (dict "matchExpressions" (list $notOn))) -}}
{{- $spread := list (dict "weight" 100 "podAffinityTerm" (dict "labelSelector" (dict "matchLabels" (dict "app" $app)) "topologyKey" "kubernetes.io/hostname")) -}}
{{- $_ := set $ctl "affinity" (dict "nodeAffinity" (dict "preferredDuringSchedulingIgnoredDuringExecution" $preferred) "podAntiAffinity" (dict "preferredDuringSchedulingIgnoredDuringExecution" $spread)) -}}
{{- end -}}
{{- $sm := $V.serviceMonitor | default dict -}}
{{- $_ := set $ctl "serviceMonitor" $sm -}}
{{- $node := deepCopy $V.node -}}
{{- $_ := set $node "serviceAccount" $drv.node.serviceAccount -}}
{{- $_ := set $node "healthPort" $drv.node.healthPort -}}
{{- $_ := set $node "metricsPort" $drv.node.metricsPort -}}
{{- $_ := set $node "serviceMonitor" $sm -}}
{{- with (dig "node" "resources" dict $drv) }}{{- $_ := set $node "resources" . }}{{- end -}}
{{- $excluded := dict "key" "eks.amazonaws.com/compute-type" "operator" "NotIn" "values" (index $V.node (printf "%sExcludedComputeTypes" $d)) -}}
{{- $_ := set $node "affinity" (dict "nodeAffinity" (dict "requiredDuringSchedulingIgnoredDuringExecution" (dict "nodeSelectorTerms" (list (dict "matchExpressions" (list $excluded)))))) -}}
{{- $classes := list -}}
{{- if and (eq $d "ebs") $V.defaultStorageClass.enabled -}}
{{- $dsc := $V.defaultStorageClass -}}
{{- $classes = append $classes (dict "name" $dsc.name "annotations" (ternary (dict "storageclass.kubernetes.io/is-default-class" "true") dict (not (not $dsc.isDefault))) "reclaimPolicy" $dsc.reclaimPolicy "parameters" $dsc.parameters "volumeBindingMode" "WaitForFirstConsumer" "allowVolumeExpansion" true) -}}
{{- end -}}
{{- if and (eq $d "efs") $V.efsStorageClass.fileSystemId -}}
{{- $e := $V.efsStorageClass -}}
{{- $params := dict "provisioningMode" "efs-ap" "fileSystemId" $e.fileSystemId "directoryPerms" $e.directoryPerms -}}
{{- with $e.basePath }}{{- $_ := set $params "basePath" . }}{{- end -}}
{{- $classes = append $classes (dict "name" $e.name "reclaimPolicy" $e.reclaimPolicy "volumeBindingMode" "Immediate" "parameters" $params) -}}
{{- end -}}
{{- range $i, $entry := ($V.storageClasses | default list) -}}
{{- if eq (include "aws-csi-driver.classDriver" (dict "V" $V "entry" $entry "index" $i)) $d -}}
{{- $classes = append $classes (omit $entry "driver" "provisioner") -}}
{{- end -}}
{{- end -}}
{{- $snapshotClasses := list -}}
{{- if eq $d "ebs" -}}
{{- if $V.defaultVolumeSnapshotClass.enabled }}{{- $snapshotClasses = append $snapshotClasses (omit $V.defaultVolumeSnapshotClass "enabled") }}{{- end -}}
{{- $snapshotClasses = concat $snapshotClasses ($V.volumeSnapshotClasses | default list) -}}
{{- end -}}
{{- $groupSnapshotClasses := ternary ($V.volumeGroupSnapshotClasses | default list) list (eq $d "ebs") -}}
{{- $image := deepCopy ($V.image | default dict) -}}
{{- if empty ($image.repository | default "") }}{{- $_ := set $image "repository" (printf "aws-csi-driver-%s" $d) }}{{- end -}}
{{- $v := dict "image" $image "imagePullSecrets" $V.imagePullSecrets "region" $V.region "controller" $ctl "node" $node "sidecars" $V.sidecars "csiDriver" (dict "create" $drv.csiDriver.create) "storageClasses" $classes "volumeSnapshotClasses" $snapshotClasses "volumeGroupSnapshotClasses" $groupSnapshotClasses -}}
{{- with (dig "csiDriver" "nodeAllocatableUpdatePeriodSeconds" nil $drv) }}{{- $_ := set $v "nodeAllocatableUpdatePeriodSeconds" . }}{{- end -}}
{{- toYaml $v -}}
{{- end -}}

{{/*
The driver of a storageClasses entry: its `driver` (ebs|efs) or `provisioner`, else what its parameters name (EFS
parameters such as provisioningMode or fileSystemId, EBS ones such as type or iops), else the one driver enabled.
Never a silent default to the other driver: an entry that says nothing while both drivers are enabled stops the
render with a message naming it.
*/}}
{{- define "aws-csi-driver.classDriver" -}}
{{- $e := .entry -}}
{{- $efsKeys := list "provisioningMode" "fileSystemId" "fileSystemIdConfigRef" "fileSystemIdSecretRef" "directoryPerms" "gidRangeStart" "gidRangeEnd" "basePath" "subPathPattern" "ensureUniqueDirectory" "reuseAccessPoint" "uid" "gid" "az" "enforceZoneAffinity" "enableTagging" -}}
{{- $ebsKeys := list "type" "iops" "iopsPerGB" "allowAutoIOPSPerGBIncrease" "allowAutoIOPSIncreaseOnModify" "throughput" "encrypted" "kmsKeyId" "csi.storage.k8s.io/fstype" "fstype" "blockSize" "inodeSize" "bytesPerInode" "numberOfInodes" "ext4BigAlloc" "ext4ClusterSize" "ext4EncryptionSupport" "volumeInitializationRate" "blockAttachUntilInitialized" "blockExpress" -}}
{{- $efs := false -}}{{- $ebs := false -}}
{{- range $k, $_ := ($e.parameters | default dict) -}}
{{- if has $k $efsKeys }}{{- $efs = true }}{{- end -}}
{{- if or (has $k $ebsKeys) (hasPrefix "tagSpecification" $k) }}{{- $ebs = true }}{{- end -}}
{{- end -}}
{{- if $e.driver -}}{{ $e.driver }}
{{- else if $e.provisioner -}}{{ trimSuffix ".csi.aws.com" $e.provisioner }}
{{- else if and $efs (not $ebs) -}}efs
{{- else if and $ebs (not $efs) -}}ebs
{{- else if and .V.ebs.enabled (not .V.efs.enabled) -}}ebs
{{- else if and .V.efs.enabled (not .V.ebs.enabled) -}}efs
{{- else -}}{{ fail (printf "storageClasses[%d] (%s): say which driver it is for, with driver: ebs or driver: efs (its parameters do not tell)" .index $e.name) }}
{{- end -}}
{{- end -}}

{{- define "aws-csi-driver.enabledDrivers" -}}
{{- $enabled := list -}}
{{- range $d := list "ebs" "efs" -}}
{{- if (index $.Values $d).enabled -}}{{- $enabled = append $enabled $d -}}{{- end -}}
{{- end -}}
{{- toJson $enabled -}}
{{- end -}}
