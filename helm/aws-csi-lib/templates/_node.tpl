{{- /*
Node DaemonSets of one driver: the privileged plugin (mode node) with the kubelet directory under Bidirectional mount
propagation, node-driver-registrar and livenessprobe. EBS adds /dev and a preStop hook that waits for detaches
during a drain; EFS runs in the host network (efs-proxy listens on the node's loopback and a restarted plugin must
reach the proxies and state in /var/run/efs of the mounts that already exist). One DaemonSet <d>-csi-node, plus one
per additionalDaemonSets entry (<d>-csi-node-<name>, its settings over node's), as upstream.
node.kubeletRegistration=builtin makes the pod one container: the plugin registers itself with the kubelet on
plugins_registry (mounted at /registration) and serves /livez and /readyz for its own probes (healthz port, or the
metrics port when metrics are on); no node-driver-registrar, no livenessprobe.
*/ -}}
{{- define "awscsi.nodes" -}}
{{- $c := . -}}
{{- $n := .v.node | default dict -}}
{{- if ne (toString (ternary true $n.enableLinux (kindIs "invalid" $n.enableLinux))) "false" }}
{{ include "awscsi.node" (dict "c" $c "n" $n "app" $c.nodeApp) }}
{{- end }}
{{- range $suffix, $extra := (.v.additionalDaemonSets | default dict) }}
{{ include "awscsi.node" (dict "c" $c "n" (mergeOverwrite (deepCopy $n) (deepCopy ($extra | default dict))) "app" (printf "%s-%s" $c.nodeApp $suffix)) }}
{{- end }}
{{- end -}}

{{- define "awscsi.node" -}}
{{- $c := .c -}}
{{- $v := $c.v -}}
{{- $n := .n -}}
{{- $s := $v.sidecars | default dict -}}
{{- $d := $c.d -}}
{{- $app := .app -}}
{{- $kubelet := trimSuffix "/" ($n.kubeletPath | default "/var/lib/kubelet") -}}
{{- $pluginDir := printf "%s/plugins/%s/" $kubelet $c.csi -}}
{{- $hostNetwork := or (eq $d "efs") (include "awscsi.true" ($n.hostNetwork | default false)) -}}
{{- $metrics := include "awscsi.true" ($n.enableMetrics | default false) -}}
{{- $healthPort := $n.healthPort | default (ternary 9808 9809 (eq $d "ebs")) -}}
{{- $metricsPort := $n.metricsPort | default (ternary 3302 3312 (eq $d "ebs")) -}}
{{- $r := $s.nodeDriverRegistrar | default dict -}}
{{- $registrarPort := $r.healthPort | default (ternary 9809 9810 (eq $d "ebs")) -}}
{{- $disableMutation := or (include "awscsi.true" (dig "serviceAccount" "disableMutation" false $n)) (include "awscsi.true" ($n.disableTaintWatcher | default false)) -}}
{{- $selinux := and (eq $d "ebs") (include "awscsi.true" ($n.selinux | default false)) -}}
{{- $sources := toString ($n.metadataSources | default "") -}}
{{- $builtin := eq (toString ($n.kubeletRegistration | default "sidecar")) "builtin" -}}
{{- $probePort := ternary "metrics" "healthz" (and $builtin (not (not $metrics))) -}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: {{ $app }}
  namespace: {{ $n.namespaceOverride | default $c.ns }}
  labels:
    {{- include "awscsi.labels" $c | nindent 4 }}
    {{- with $n.additionalLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with $n.daemonSetAnnotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  {{- if or (kindIs "float64" $n.revisionHistoryLimit) (kindIs "int" $n.revisionHistoryLimit) (kindIs "int64" $n.revisionHistoryLimit) }}
  revisionHistoryLimit: {{ $n.revisionHistoryLimit }}
  {{- end }}
  selector:
    matchLabels:
      app: {{ $app }}
      {{- include "awscsi.selectorLabels" $c | nindent 6 }}
  {{- with $n.updateStrategy }}
  updateStrategy:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  template:
    metadata:
      labels:
        app: {{ $app }}
        {{- include "awscsi.labels" $c | nindent 8 }}
        {{- with $n.additionalLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
        {{- with $n.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with $n.podAnnotations }}
      annotations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    spec:
      serviceAccountName: {{ dig "serviceAccount" "name" (printf "%s-csi-node-sa" $d) $n }}
      priorityClassName: {{ $n.priorityClassName | default "system-node-critical" }}
      terminationGracePeriodSeconds: {{ $n.terminationGracePeriodSeconds | default 30 }}
      hostNetwork: {{ not (not $hostNetwork) }}
      {{- if $n.dnsPolicy }}
      dnsPolicy: {{ $n.dnsPolicy }}
      {{- else if $hostNetwork }}
      # Names resolve through the node's resolver: mounts do not depend on cluster DNS.
      dnsPolicy: Default
      {{- end }}
      {{- with $n.dnsConfig }}
      dnsConfig:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $n.hostAliases }}
      # upstream EFS: file system id -> mount target address, for file systems whose DNS name does not resolve here.
      hostAliases:
        {{- range $fs, $to := . }}
        - ip: {{ $to.ip | quote }}
          hostnames:
            - {{ printf "%s.efs.%s.amazonaws.com" $fs $to.region }}
        {{- end }}
      {{- end }}
      nodeSelector:
        kubernetes.io/os: linux
        {{- with $n.nodeSelector }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with $n.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      tolerations:
        {{- include "awscsi.nodeTolerations" (dict "c" $c "n" $n) | nindent 8 }}
      securityContext:
        {{- toYaml ($n.securityContext | default (dict "runAsNonRoot" false "runAsUser" 0 "runAsGroup" 0 "fsGroup" 0)) | nindent 8 }}
      {{- include "awscsi.pullSecrets" $c | nindent 6 }}
      {{- with $n.initContainers }}
      initContainers:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: {{ printf "%s-plugin" $d }}
          image: {{ include "awscsi.image" $c }}
          imagePullPolicy: {{ dig "image" "pullPolicy" "IfNotPresent" $v }}
          terminationMessagePolicy: FallbackToLogsOnError
          {{- $args := list "--driver" $d "--mode" "node" "--endpoint=$(CSI_ENDPOINT)" (printf "--log-level=%s" (include "awscsi.logLevel" (dict "level" $n.logLevel "debug" $v.debugLogs))) (printf "--log-format=%s" ($n.loggingFormat | default "text")) (printf "--kubelet-dir=%s" $kubelet) }}
          {{- if $metrics }}{{- $args = append $args (printf "--http-endpoint=0.0.0.0:%v" $metricsPort) }}
          {{- else if $builtin }}{{- $args = append $args (printf "--http-endpoint=0.0.0.0:%v" $healthPort) }}{{- end }}
          {{- if $builtin }}
          {{- $args = concat $args (list (printf "--kubelet-registration-path=%scsi.sock" $pluginDir) "--plugin-registration-path=/registration") }}
          {{- end }}
          {{- if eq $d "ebs" }}
          {{- if not (or (kindIs "invalid" $n.volumeAttachLimit) (eq (toString $n.volumeAttachLimit) "")) }}{{- $args = append $args (printf "--volume-attach-limit=%v" $n.volumeAttachLimit) }}{{- end }}
          {{- if not (or (kindIs "invalid" $n.reservedVolumeAttachments) (eq (toString $n.reservedVolumeAttachments) "")) }}{{- $args = append $args (printf "--reserved-volume-attachments=%v" $n.reservedVolumeAttachments) }}{{- end }}
          {{- if include "awscsi.true" ($n.legacyXFS | default false) }}{{- $args = append $args "--legacy-xfs" }}{{- end }}
          {{- /* upstream's node.metadataSources, rendered as upstream does, less its ALPHA metadata-labeler (NOTES.txt lists it) */}}
          {{- $sourceNames := list }}
          {{- range (splitList "," $sources) }}{{- if and (trim .) (ne (trim .) "metadata-labeler") }}{{- $sourceNames = append $sourceNames (trim .) }}{{- end }}{{- end }}
          {{- with $sourceNames }}{{- $args = append $args (printf "--metadata-sources=%s" (join "," .)) }}{{- end }}
          {{- else }}
          {{- if include "awscsi.true" ($n.volMetricsOptIn | default false) }}
          {{- $args = concat $args (list "--vol-metrics-opt-in" (printf "--vol-metrics-refresh-period=%s" (include "awscsi.minutes" ($n.volMetricsRefreshPeriod | default 240))) (printf "--vol-metrics-fs-rate-limit=%v" ($n.volMetricsFsRateLimit | default 5))) }}
          {{- end }}
          {{- if include "awscsi.true" ($n.forceUnmountAfterTimeout | default false) }}
          {{- $args = concat $args (list "--force-unmount-after-timeout" (printf "--unmount-timeout=%v" ($n.unmountTimeout | default "30s"))) }}
          {{- end }}
          {{- /* the limit counts only with upstream's opt-in flag. Upstream's EFS chart: node.maxInflightMountCallsOptIn
          (the limit alone does nothing, default 10); the combined chart has no opt-in key: its limit opts in. Same for
          node.volumeAttachLimitOptIn / volumeAttachLimit (default 20), upstream's EFS keys. */}}
          {{- $inflightSet := not (or (kindIs "invalid" $n.maxInflightMountCalls) (eq (toString $n.maxInflightMountCalls) "")) }}
          {{- $inflightOptIn := ternary (include "awscsi.true" $n.maxInflightMountCallsOptIn) $inflightSet (hasKey $n "maxInflightMountCallsOptIn") }}
          {{- if $inflightOptIn }}{{- $args = concat $args (list "--max-inflight-mount-calls-opt-in" (printf "--max-inflight-mount-calls=%v" (ternary $n.maxInflightMountCalls 10 $inflightSet))) }}{{- end }}
          {{- if include "awscsi.true" ($n.volumeAttachLimitOptIn | default false) }}{{- $args = concat $args (list "--volume-attach-limit-opt-in" (printf "--volume-attach-limit=%v" ($n.volumeAttachLimit | default 20))) }}{{- end }}
          {{- with $n.efsUtilsConfOverrides }}{{- $args = append $args (printf "--efs-utils-conf-overrides=%s" (toString .)) }}{{- end }}
          {{- end }}
          args:
            {{- include "awscsi.pluginArgs" (dict "defaults" $args "extra" $n.additionalArgs) | nindent 12 }}
          env:
            - name: CSI_ENDPOINT
              value: unix:/csi/csi.sock
            - name: CSI_NODE_NAME
              valueFrom:
                fieldRef:
                  fieldPath: spec.nodeName
            {{- with $v.region }}
            - name: AWS_REGION
              value: {{ . | quote }}
            {{- end }}
            {{- if $disableMutation }}
            # No patch on nodes (RBAC below): the startup taint stays for the operator to remove.
            - name: DISABLE_TAINT_WATCHER
              value: "true"
            {{- end }}
            {{- if and $sources (not (contains "imds" $sources)) }}
            # node.metadataSources without imds: instance metadata from the Kubernetes Node only.
            - name: AWS_EC2_METADATA_DISABLED
              value: "true"
            {{- end }}
            {{- if include "awscsi.true" ($v.fips | default false) }}
            - name: AWS_USE_FIPS_ENDPOINT
              value: "true"
            {{- end }}
            {{- if and (eq $d "efs") (not (or (kindIs "invalid" $v.portRangeUpperBound) (eq (toString $v.portRangeUpperBound) ""))) }}
            # efs-utils.conf port_range_upper_bound of the TLS proxies' local ports (the node writes it; 21049 at least)
            - name: PORT_RANGE_UPPER_BOUND
              value: {{ toString $v.portRangeUpperBound | quote }}
            {{- end }}
            {{- include "awscsi.proxyEnv" $c | nindent 12 }}
            {{- with $n.javaOpts }}
            - name: JAVA_OPTS
              value: {{ . | quote }}
            {{- end }}
            {{- with $n.env }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          {{- with $n.envFrom }}
          envFrom:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          volumeMounts:
            - name: kubelet-dir
              mountPath: {{ $kubelet }}
              mountPropagation: Bidirectional
            - name: plugin-dir
              mountPath: /csi
            {{- if $builtin }}
            - name: registration-dir
              mountPath: /registration
            {{- end }}
            - name: tmp
              mountPath: /tmp
            {{- if eq $d "ebs" }}
            - name: device-dir
              mountPath: /dev
            {{- else }}
            - name: efs-state-dir
              mountPath: /var/run/efs
            - name: efs-utils-config
              mountPath: /var/amazon/efs
            - name: efs-utils-config-legacy
              mountPath: /etc/amazon/efs-legacy
            {{- end }}
            {{- if $selinux }}
            - name: selinux-sysfs
              mountPath: /sys/fs/selinux
            - name: selinux-config
              mountPath: /etc/selinux/config
              readOnly: true
            {{- end }}
            {{- with $n.volumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          ports:
            {{- if eq $probePort "healthz" }}
            - name: healthz
              containerPort: {{ $healthPort }}
              protocol: TCP
            {{- end }}
            {{- if $metrics }}
            - name: metrics
              containerPort: {{ $metricsPort }}
              protocol: TCP
            {{- end }}
          livenessProbe:
            {{- include "awscsi.probe" (dict "override" $n.livenessProbe "default" (dict "httpGet" (dict "path" "/healthz" "port" $probePort) "initialDelaySeconds" 10 "timeoutSeconds" 3 "periodSeconds" 10 "failureThreshold" 5)) | nindent 12 }}
          {{- if $builtin }}
          {{- /* builtin: ready once the kubelet reported the driver registered */}}
          readinessProbe:
            {{- include "awscsi.probe" (dict "override" $n.readinessProbe "default" (dict "httpGet" (dict "path" "/readyz" "port" $probePort) "initialDelaySeconds" 5 "timeoutSeconds" 3 "periodSeconds" 10 "failureThreshold" 3)) | nindent 12 }}
          {{- else if $n.readinessProbe }}
          readinessProbe:
            {{- toYaml $n.readinessProbe | nindent 12 }}
          {{- else if eq $d "ebs" }}
          # upstream EBS: ready once the livenessprobe sidecar's /healthz (the plugin's CSI Probe) answers.
          readinessProbe:
            httpGet:
              path: /healthz
              port: healthz
            timeoutSeconds: 3
            periodSeconds: 5
            failureThreshold: 3
          {{- end }}
          {{- with $n.startupProbe }}
          startupProbe:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- with $n.resources }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          securityContext:
            {{- $default := dict "privileged" true "readOnlyRootFilesystem" (eq $d "ebs") }}
            {{- if $selinux }}{{- $_ := set $default "seLinuxOptions" (dict "type" "spc_t") }}{{- end }}
            {{- toYaml ($n.containerSecurityContext | default $default) | nindent 12 }}
          {{- if eq $d "ebs" }}
          lifecycle:
            preStop:
              exec:
                command: ["/opt/aws-csi-driver/bin/aws-csi-driver", "pre-stop-hook"]
          {{- end }}
        {{- if not $builtin }}
        {{- /* node-driver-registrar: registers the plugin with the kubelet; /healthz (--http-endpoint) fails while the registration has not succeeded */}}
        {{- $args := list "--csi-address=$(ADDRESS)" "--kubelet-registration-path=$(DRIVER_REG_SOCK_PATH)" (printf "--v=%v" (include "awscsi.sidecarVerbosity" (dict "c" $c "level" $r.logLevel))) (printf "--http-endpoint=0.0.0.0:%v" $registrarPort) }}
        {{- /* upstream's port names: EBS healthz-ndr; EFS has none (healthz-reg here). Sidecar resources: EBS upstream's 10m/32Mi, 32Mi limit when not given; EFS none. */}}
        {{- $regPort := ternary "healthz-ndr" "healthz-reg" (eq $d "ebs") }}
        {{- $sidecarResources := ternary (dict "requests" (dict "cpu" "10m" "memory" "32Mi") "limits" (dict "memory" "32Mi")) dict (eq $d "ebs") }}
        - name: {{ ternary "node-driver-registrar" "csi-driver-registrar" (eq $d "ebs") }}
          image: {{ include "awscsi.sidecarImage" (dict "c" $c "s" $r) }}
          imagePullPolicy: {{ include "awscsi.pullPolicy" (dict "c" $c "s" $r) }}
          terminationMessagePolicy: FallbackToLogsOnError
          args:
            {{- include "awscsi.mergeArgs" (dict "defaults" $args "extra" $r.additionalArgs) | nindent 12 }}
          env:
            - name: ADDRESS
              value: /csi/csi.sock
            - name: DRIVER_REG_SOCK_PATH
              value: {{ printf "%scsi.sock" $pluginDir }}
            {{- if eq $d "efs" }}
            - name: KUBE_NODE_NAME
              valueFrom:
                fieldRef:
                  fieldPath: spec.nodeName
            {{- end }}
            {{- include "awscsi.proxyEnv" $c | nindent 12 }}
            {{- with $r.env }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          ports:
            - name: {{ $regPort }}
              containerPort: {{ $registrarPort }}
              protocol: TCP
          livenessProbe:
            {{- include "awscsi.probe" (dict "override" $r.livenessProbe "default" (dict "httpGet" (dict "path" "/healthz" "port" $regPort) "initialDelaySeconds" 30 "timeoutSeconds" 15 "periodSeconds" 90)) | nindent 12 }}
          volumeMounts:
            - name: plugin-dir
              mountPath: /csi
            - name: registration-dir
              mountPath: /registration
            - name: probe-dir
              mountPath: {{ $pluginDir }}
          {{- with ($r.resources | default $sidecarResources) }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          securityContext:
            {{- toYaml ($r.securityContext | default (dict "readOnlyRootFilesystem" true "allowPrivilegeEscalation" false)) | nindent 12 }}
        {{- $l := $s.livenessProbe | default dict }}
        {{- include "awscsi.livenessSidecar" (dict "c" $c "l" $l "socketDir" "/csi" "port" $healthPort "resources" ($l.resources | default $sidecarResources) "securityContext" ($l.securityContext | default (dict "readOnlyRootFilesystem" true "allowPrivilegeEscalation" false))) | nindent 8 }}
        {{- end }}
      volumes:
        - name: kubelet-dir
          hostPath:
            path: {{ $kubelet }}
            type: Directory
        - name: plugin-dir
          hostPath:
            path: {{ $pluginDir }}
            type: DirectoryOrCreate
        - name: registration-dir
          hostPath:
            path: {{ printf "%s/plugins_registry/" $kubelet }}
            type: Directory
        {{- if not $builtin }}
        - name: probe-dir
          {{- if $n.probeDirVolume }}
          {{- toYaml $n.probeDirVolume | nindent 10 }}
          {{- else }}
          emptyDir: {}
          {{- end }}
        {{- end }}
        - name: tmp
          emptyDir: {}
        {{- if eq $d "ebs" }}
        - name: device-dir
          hostPath:
            path: /dev
            type: Directory
        {{- else }}
        - name: efs-state-dir
          hostPath:
            path: /var/run/efs
            type: DirectoryOrCreate
        - name: efs-utils-config
          hostPath:
            path: /var/amazon/efs
            type: DirectoryOrCreate
        - name: efs-utils-config-legacy
          hostPath:
            path: /etc/amazon/efs
            type: DirectoryOrCreate
        {{- end }}
        {{- if $selinux }}
        - name: selinux-sysfs
          hostPath:
            path: /sys/fs/selinux
            type: Directory
        - name: selinux-config
          hostPath:
            path: /etc/selinux/config
            type: File
        {{- end }}
        {{- with $n.volumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
{{- end -}}
