{{- /*
The controller Deployment of one driver: the plugin (mode controller) and the Kubernetes CSI sidecars that call it
over a socket in an emptyDir. EBS: provisioner, attacher, resizer, snapshotter (when snapshots are served) and
livenessprobe. EFS: provisioner and livenessprobe. Every controller sidecar runs with leader election.
Selector and pod labels are upstream's (app: <d>-csi-controller, app.kubernetes.io/name, app.kubernetes.io/instance).
*/ -}}
{{- define "awscsi.controller" -}}
{{- $c := . -}}
{{- $v := .v -}}
{{- $ctl := $v.controller | default dict -}}
{{- $s := $v.sidecars | default dict -}}
{{- $d := .d -}}
{{- /* upstream EFS: the app label (and selector) is controller.name */ -}}
{{- $app := ternary ($ctl.name | default .controllerApp) .controllerApp (eq $d "efs") -}}
{{- $socketDir := "/var/lib/csi/sockets/pluginproxy" -}}
{{- $rootDirDeletion := and (eq $d "efs") (include "awscsi.true" ($ctl.deleteAccessPointRootDir | default false)) -}}
{{- $snapshots := include "awscsi.snapshotsEnabled" $c -}}
{{- $metrics := include "awscsi.true" ($ctl.enableMetrics | default false) -}}
{{- $healthPort := $ctl.healthPort | default (ternary 9808 9909 (eq $d "ebs")) -}}
{{- $metricsPort := $ctl.metricsPort | default 3301 -}}
{{- $containerSecurity := $ctl.containerSecurityContext | default dict -}}
{{- /* sidecars.livenessProbe.enabled false: no livenessprobe container; the plugin's own /livez is the liveness probe */ -}}
{{- $livenessSidecar := ne (toString (dig "livenessProbe" "enabled" true $s)) "false" -}}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $ctl.name | default $app }}
  namespace: {{ .ns }}
  labels:
    {{- include "awscsi.labels" $c | nindent 4 }}
    {{- with $ctl.additionalLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with $ctl.deploymentAnnotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  replicas: {{ $ctl.replicaCount | default 2 }}
  {{- if or (kindIs "float64" $ctl.revisionHistoryLimit) (kindIs "int" $ctl.revisionHistoryLimit) (kindIs "int64" $ctl.revisionHistoryLimit) }}
  revisionHistoryLimit: {{ $ctl.revisionHistoryLimit }}
  {{- end }}
  {{- with $ctl.updateStrategy }}
  strategy:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  selector:
    matchLabels:
      app: {{ $app }}
      {{- include "awscsi.selectorLabels" $c | nindent 6 }}
  template:
    metadata:
      labels:
        app: {{ $app }}
        {{- include "awscsi.labels" $c | nindent 8 }}
        {{- with $ctl.additionalLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
        {{- with $ctl.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- /* upstream EFS: prometheus.io annotations on the controller pod with enableMetrics and
      enablePrometheusAnnotations (default true) */}}
      {{- $podScrape := and (eq $d "efs") (include "awscsi.true" ($ctl.enableMetrics | default false)) (include "awscsi.true" (ternary true $ctl.enablePrometheusAnnotations (kindIs "invalid" $ctl.enablePrometheusAnnotations))) }}
      {{- if or $ctl.podAnnotations $podScrape }}
      annotations:
        {{- with $ctl.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
        {{- if $podScrape }}
        prometheus.io/scrape: "true"
        prometheus.io/port: {{ $ctl.metricsPort | default 3301 | quote }}
        {{- end }}
      {{- end }}
    spec:
      serviceAccountName: {{ dig "serviceAccount" "name" (printf "%s-csi-controller-sa" $d) $ctl }}
      priorityClassName: {{ $ctl.priorityClassName | default "system-cluster-critical" }}
      {{- if include "awscsi.true" ($ctl.hostNetwork | default false) }}
      hostNetwork: true
      {{- end }}
      {{- with $ctl.dnsPolicy }}
      dnsPolicy: {{ . }}
      {{- end }}
      {{- with $ctl.dnsConfig }}
      dnsConfig:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      nodeSelector:
        kubernetes.io/os: linux
        {{- with $ctl.nodeSelector }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with $ctl.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $ctl.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $ctl.topologySpreadConstraints }}
      {{- /* upstream: each constraint gets the controller's labelSelector */}}
      {{- $selector := dict "labelSelector" (dict "matchLabels" (dict "app" $app)) }}
      {{- $constraints := list }}
      {{- range . }}{{- $constraints = append $constraints (mergeOverwrite (deepCopy .) $selector) }}{{- end }}
      topologySpreadConstraints:
        {{- toYaml $constraints | nindent 8 }}
      {{- end }}
      {{- with $ctl.securityContext }}
      securityContext:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- include "awscsi.pullSecrets" $c | nindent 6 }}
      {{- with $ctl.initContainers }}
      initContainers:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: {{ printf "%s-plugin" $d }}
          image: {{ include "awscsi.image" $c }}
          imagePullPolicy: {{ dig "image" "pullPolicy" "IfNotPresent" $v }}
          terminationMessagePolicy: FallbackToLogsOnError
          {{- $args := list "--driver" $d "--mode" "controller" "--endpoint=$(CSI_ENDPOINT)" (printf "--log-level=%s" (include "awscsi.logLevel" (dict "level" $ctl.logLevel "debug" $v.debugLogs))) (printf "--log-format=%s" ($ctl.loggingFormat | default "text")) }}
          {{- /* Always served: the readiness probe reads /readyz there (the metrics Service needs enableMetrics). */}}
          {{- $httpEndpoint := $ctl.httpEndpoint | default (printf "0.0.0.0:%v" $metricsPort) }}
          {{- $readyPort := regexFind "[0-9]+$" $httpEndpoint | int }}
          {{- $args = append $args (printf "--http-endpoint=%s" $httpEndpoint) }}
          {{- if eq $d "ebs" }}
          {{- with $ctl.extraVolumeTags }}{{- $args = append $args (printf "--extra-tags=%s" (include "awscsi.joinTags" (dict "tags" . "kv" "=" "sep" ","))) }}{{- end }}
          {{- with $ctl.k8sTagClusterId }}{{- $args = append $args (printf "--k8s-tag-cluster-id=%s" .) }}{{- end }}
          {{- with $ctl.modifyVolumeRequestHandlerTimeout }}{{- $args = append $args (printf "--modify-volume-request-handler-timeout=%s" .) }}{{- end }}
          {{- /* upstream's controller.userAgentExtra (default "helm"), rendered as upstream does */}}
          {{- with $ctl.userAgentExtra }}{{- $args = append $args (printf "--user-agent-extra=%s" .) }}{{- end }}
          {{- else }}
          {{- with $ctl.tags }}{{- $args = append $args (printf "--tags=%s" (include "awscsi.joinTags" (dict "tags" . "kv" ":" "sep" " "))) }}{{- end }}
          {{- if $rootDirDeletion }}{{- $args = append $args "--delete-access-point-root-dir" }}{{- end }}
          {{- end }}
          args:
            {{- include "awscsi.pluginArgs" (dict "defaults" $args "extra" $ctl.additionalArgs) | nindent 12 }}
          env:
            - name: CSI_ENDPOINT
              value: {{ printf "unix://%s/csi.sock" $socketDir }}
            - name: CSI_NODE_NAME
              valueFrom:
                fieldRef:
                  fieldPath: spec.nodeName
            {{- with ($ctl.region | default $v.region) }}
            - name: AWS_REGION
              value: {{ . | quote }}
            {{- end }}
            {{- with $v.awsAccessSecret }}
            {{- if .name }}
            # Static credentials, only when this Secret exists (upstream's awsAccessSecret); IRSA or Pod Identity otherwise.
            - name: AWS_ACCESS_KEY_ID
              valueFrom:
                secretKeyRef:
                  name: {{ .name }}
                  key: {{ .keyId | default "key_id" }}
                  optional: true
            - name: AWS_SECRET_ACCESS_KEY
              valueFrom:
                secretKeyRef:
                  name: {{ .name }}
                  key: {{ .accessKey | default "access_key" }}
                  optional: true
            {{- end }}
            {{- end }}
            {{- if eq $d "ebs" }}
            # EC2 endpoint from the aws-meta ConfigMap when it exists, as upstream.
            - name: AWS_EC2_ENDPOINT
              valueFrom:
                configMapKeyRef:
                  name: aws-meta
                  key: endpoint
                  optional: true
            {{- end }}
            {{- if include "awscsi.true" ($v.fips | default false) }}
            - name: AWS_USE_FIPS_ENDPOINT
              value: "true"
            {{- end }}
            {{- if include "awscsi.true" ($ctl.regionalStsEndpoints | default false) }}
            - name: AWS_STS_REGIONAL_ENDPOINTS
              value: regional
            {{- end }}
            {{- include "awscsi.proxyEnv" $c | nindent 12 }}
            {{- with $ctl.javaOpts }}
            - name: JAVA_OPTS
              value: {{ . | quote }}
            {{- end }}
            {{- with $ctl.env }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          {{- with $ctl.envFrom }}
          envFrom:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          volumeMounts:
            - name: socket-dir
              mountPath: {{ $socketDir }}
            # The JVM and Netty's native transport write to /tmp; the root file system is read-only.
            - name: tmp
              mountPath: /tmp
            {{- if $rootDirDeletion }}
            - name: efs-state-dir
              mountPath: /var/run/efs
            {{- end }}
            {{- with $ctl.volumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          ports:
            - name: healthz
              containerPort: {{ $healthPort }}
              protocol: TCP
            {{- if $metrics }}
            - name: metrics
              containerPort: {{ $metricsPort }}
              protocol: TCP
            {{- end }}
          # Liveness: the livenessprobe sidecar's /healthz calls the plugin's CSI Probe, which says only whether the
          # process serves, so a controller cut off from AWS is not restarted in a loop. Readiness: the plugin's own
          # /readyz, not ready while AWS does not answer the driver's calls. Neither makes an AWS call.
          livenessProbe:
            {{- $livenessPath := ternary (dict "path" "/healthz" "port" "healthz") (dict "path" "/livez" "port" $readyPort) $livenessSidecar }}
            {{- /* upstream's values probe the livenessprobe sidecar's healthz port: without the sidecar nothing listens there */}}
            {{- $livenessOverride := $ctl.livenessProbe }}
            {{- if and (not $livenessSidecar) $livenessOverride }}{{- if eq (toString (dig "httpGet" "port" "" $livenessOverride)) "healthz" }}{{- $livenessOverride = dict }}{{- end }}{{- end }}
            {{- include "awscsi.probe" (dict "override" $livenessOverride "default" (dict "httpGet" $livenessPath "initialDelaySeconds" 10 "timeoutSeconds" 60 "periodSeconds" 10 "failureThreshold" 10)) | nindent 12 }}
          readinessProbe:
            {{- include "awscsi.probe" (dict "override" $ctl.readinessProbe "default" (dict "httpGet" (dict "path" "/readyz" "port" $readyPort) "initialDelaySeconds" 10 "timeoutSeconds" 10 "periodSeconds" 10 "failureThreshold" 5)) | nindent 12 }}
          {{- with $ctl.startupProbe }}
          startupProbe:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- with $ctl.resources }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          securityContext:
            {{- if $rootDirDeletion }}
            # --delete-access-point-root-dir mounts the file system in this container (mount.efs): root and privileged.
            privileged: true
            runAsUser: 0
            runAsNonRoot: false
            readOnlyRootFilesystem: false
            {{- else }}
            {{- toYaml $containerSecurity | nindent 12 }}
            {{- end }}
        {{- /* csi-provisioner */}}
        {{- $p := $s.provisioner | default dict }}
        {{- $args := list "--csi-address=$(ADDRESS)" (printf "--v=%v" (include "awscsi.sidecarVerbosity" (dict "c" $c "level" $p.logLevel))) (printf "--timeout=%v" ($p.timeout | default "60s")) }}
        {{- if and (eq $d "ebs") (not (include "awscsi.vacServed" $c)) }}
        {{- $args = append $args "--feature-gates=Topology=true,VolumeAttributesClass=false" }}
        {{- else }}
        {{- $args = append $args "--feature-gates=Topology=true" }}
        {{- end }}
        {{- if include "awscsi.true" (ternary true $ctl.extraCreateMetadata (kindIs "invalid" $ctl.extraCreateMetadata)) }}{{- $args = append $args "--extra-create-metadata" }}{{- end }}
        {{- $args = concat $args (include "awscsi.leaderElectionArgs" $p | fromJsonArray) }}
        {{- if eq $d "ebs" }}{{- $args = append $args (printf "--default-fstype=%s" ($ctl.defaultFsType | default "ext4")) }}{{- end }}
        {{- $args = concat $args (list (printf "--kube-api-qps=%v" ($p.kubeApiQps | default 20)) (printf "--kube-api-burst=%v" ($p.kubeApiBurst | default 100)) (printf "--worker-threads=%v" ($p.workerThreads | default 100)) (printf "--retry-interval-max=%v" ($p.retryIntervalMax | default "30m"))) }}
        {{- if $metrics }}{{- $args = append $args (printf "--http-endpoint=0.0.0.0:%v" ($p.metricsPort | default 3302)) }}{{- end }}
        - name: csi-provisioner
          image: {{ include "awscsi.sidecarImage" (dict "c" $c "s" $p) }}
          imagePullPolicy: {{ include "awscsi.pullPolicy" (dict "c" $c "s" $p) }}
          terminationMessagePolicy: FallbackToLogsOnError
          args:
            {{- include "awscsi.mergeArgs" (dict "defaults" $args "extra" $p.additionalArgs "group" (eq $d "ebs")) | nindent 12 }}
          env:
            - name: ADDRESS
              value: {{ printf "%s/csi.sock" $socketDir }}
            {{- if eq $d "ebs" }}
            # VolumeAttributesClass through the v1beta1 API where v1 is not served (Kubernetes 1.31-1.33).
            - name: ENABLE_VAC_FALLBACK
              value: "true"
            {{- end }}
            {{- include "awscsi.proxyEnv" $c | nindent 12 }}
            {{- with $p.env }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          {{- with $ctl.envFrom }}
          envFrom:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- if $metrics }}
          ports:
            - name: metrics-prov
              containerPort: {{ $p.metricsPort | default 3302 }}
              protocol: TCP
          {{- end }}
          volumeMounts:
            - name: socket-dir
              mountPath: {{ $socketDir }}
          {{- with ($p.resources | default $ctl.resources) }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          securityContext:
            {{- toYaml ($p.securityContext | default $containerSecurity) | nindent 12 }}
        {{- if eq $d "ebs" }}
        {{- /* csi-attacher */}}
        {{- $a := $s.attacher | default dict }}
        {{- $args := list "--csi-address=$(ADDRESS)" (printf "--v=%v" (include "awscsi.sidecarVerbosity" (dict "c" $c "level" $a.logLevel))) (printf "--timeout=%v" ($a.timeout | default "6m")) }}
        {{- $args = concat $args (include "awscsi.leaderElectionArgs" $a | fromJsonArray) }}
        {{- $args = concat $args (list (printf "--kube-api-qps=%v" ($a.kubeApiQps | default 20)) (printf "--kube-api-burst=%v" ($a.kubeApiBurst | default 100)) (printf "--worker-threads=%v" ($a.workerThreads | default 100)) (printf "--retry-interval-max=%v" ($a.retryIntervalMax | default "5m"))) }}
        {{- if semverCompare ">=1.33-0" $c.root.Capabilities.KubeVersion.Version }}{{- $args = append $args "--feature-gates=MutableCSINodeAllocatableCount=true" }}{{- end }}
        {{- if $metrics }}{{- $args = append $args (printf "--http-endpoint=0.0.0.0:%v" ($a.metricsPort | default 3303)) }}{{- end }}
        - name: csi-attacher
          image: {{ include "awscsi.sidecarImage" (dict "c" $c "s" $a) }}
          imagePullPolicy: {{ include "awscsi.pullPolicy" (dict "c" $c "s" $a) }}
          terminationMessagePolicy: FallbackToLogsOnError
          args:
            {{- include "awscsi.mergeArgs" (dict "defaults" $args "extra" $a.additionalArgs "group" (eq $d "ebs")) | nindent 12 }}
          env:
            - name: ADDRESS
              value: {{ printf "%s/csi.sock" $socketDir }}
            {{- include "awscsi.proxyEnv" $c | nindent 12 }}
            {{- with $a.env }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          {{- with $ctl.envFrom }}
          envFrom:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- if $metrics }}
          ports:
            - name: metrics-attach
              containerPort: {{ $a.metricsPort | default 3303 }}
              protocol: TCP
          {{- end }}
          volumeMounts:
            - name: socket-dir
              mountPath: {{ $socketDir }}
          {{- with ($a.resources | default $ctl.resources) }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          securityContext:
            {{- toYaml ($a.securityContext | default $containerSecurity) | nindent 12 }}
        {{- /* csi-resizer: expansion, and ControllerModifyVolume through VolumeAttributesClasses */}}
        {{- $r := $s.resizer | default dict }}
        {{- $args := list "--csi-address=$(ADDRESS)" (printf "--v=%v" (include "awscsi.sidecarVerbosity" (dict "c" $c "level" $r.logLevel))) (printf "--timeout=%v" ($r.timeout | default "60s")) "--handle-volume-inuse-error=false" }}
        {{- if include "awscsi.true" (ternary true $ctl.extraCreateMetadata (kindIs "invalid" $ctl.extraCreateMetadata)) }}{{- $args = append $args "--extra-modify-metadata" }}{{- end }}
        {{- if not (include "awscsi.vacServed" $c) }}{{- $args = append $args "--feature-gates=VolumeAttributesClass=false" }}{{- end }}
        {{- $args = concat $args (include "awscsi.leaderElectionArgs" $r | fromJsonArray) }}
        {{- $args = concat $args (list (printf "--kube-api-qps=%v" ($r.kubeApiQps | default 20)) (printf "--kube-api-burst=%v" ($r.kubeApiBurst | default 100)) (printf "--workers=%v" ($r.workers | default ($r.workerThreads | default 100))) (printf "--retry-interval-max=%v" ($r.retryIntervalMax | default "30m"))) }}
        {{- if $metrics }}{{- $args = append $args (printf "--http-endpoint=0.0.0.0:%v" ($r.metricsPort | default 3304)) }}{{- end }}
        - name: csi-resizer
          image: {{ include "awscsi.sidecarImage" (dict "c" $c "s" $r) }}
          imagePullPolicy: {{ include "awscsi.pullPolicy" (dict "c" $c "s" $r) }}
          terminationMessagePolicy: FallbackToLogsOnError
          args:
            {{- include "awscsi.mergeArgs" (dict "defaults" $args "extra" $r.additionalArgs "group" (eq $d "ebs")) | nindent 12 }}
          env:
            - name: ADDRESS
              value: {{ printf "%s/csi.sock" $socketDir }}
            # VolumeAttributesClass through the v1beta1 API where v1 is not served (Kubernetes 1.31-1.33).
            - name: ENABLE_VAC_FALLBACK
              value: "true"
            {{- include "awscsi.proxyEnv" $c | nindent 12 }}
            {{- with $r.env }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          {{- with $ctl.envFrom }}
          envFrom:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- if $metrics }}
          ports:
            - name: metrics-resizer
              containerPort: {{ $r.metricsPort | default 3304 }}
              protocol: TCP
          {{- end }}
          volumeMounts:
            - name: socket-dir
              mountPath: {{ $socketDir }}
          {{- with ($r.resources | default $ctl.resources) }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          securityContext:
            {{- toYaml ($r.securityContext | default $containerSecurity) | nindent 12 }}
        {{- if $snapshots }}
        {{- /* csi-snapshotter */}}
        {{- $n := $s.snapshotter | default dict }}
        {{- $args := list "--csi-address=$(ADDRESS)" (printf "--v=%v" (include "awscsi.sidecarVerbosity" (dict "c" $c "level" $n.logLevel))) }}
        {{- $args = concat $args (include "awscsi.leaderElectionArgs" $n | fromJsonArray) }}
        {{- if include "awscsi.true" (ternary true $ctl.extraCreateMetadata (kindIs "invalid" $ctl.extraCreateMetadata)) }}{{- $args = append $args "--extra-create-metadata" }}{{- end }}
        {{- $args = concat $args (list (printf "--kube-api-qps=%v" ($n.kubeApiQps | default 20)) (printf "--kube-api-burst=%v" ($n.kubeApiBurst | default 100)) (printf "--worker-threads=%v" ($n.workerThreads | default 100)) (printf "--retry-interval-max=%v" ($n.retryIntervalMax | default "30m"))) }}
        {{- if $metrics }}{{- $args = append $args (printf "--http-endpoint=0.0.0.0:%v" ($n.metricsPort | default 3306)) }}{{- end }}
        - name: csi-snapshotter
          image: {{ include "awscsi.sidecarImage" (dict "c" $c "s" $n) }}
          imagePullPolicy: {{ include "awscsi.pullPolicy" (dict "c" $c "s" $n) }}
          terminationMessagePolicy: FallbackToLogsOnError
          args:
            {{- include "awscsi.mergeArgs" (dict "defaults" $args "extra" $n.additionalArgs "group" (eq $d "ebs")) | nindent 12 }}
          env:
            - name: ADDRESS
              value: {{ printf "%s/csi.sock" $socketDir }}
            {{- include "awscsi.proxyEnv" $c | nindent 12 }}
            {{- with $n.env }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          {{- with $ctl.envFrom }}
          envFrom:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- if $metrics }}
          ports:
            - name: metrics-snap
              containerPort: {{ $n.metricsPort | default 3306 }}
              protocol: TCP
          {{- end }}
          volumeMounts:
            - name: socket-dir
              mountPath: {{ $socketDir }}
          {{- with ($n.resources | default $ctl.resources) }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          securityContext:
            {{- toYaml ($n.securityContext | default $containerSecurity) | nindent 12 }}
        {{- end }}
        {{- end }}
        {{- /* livenessprobe: /healthz for the plugin's probes and, on the same port, /metrics (--http-endpoint) */}}
        {{- $l := $s.livenessProbe | default dict }}
        {{- if $livenessSidecar }}
        {{- include "awscsi.livenessSidecar" (dict "c" $c "l" $l "socketDir" $socketDir "port" $healthPort "resources" ($l.resources | default (ternary (dict "requests" (dict "cpu" "10m" "memory" "32Mi") "limits" (dict "memory" "32Mi")) $ctl.resources (eq $d "ebs"))) "securityContext" ($l.securityContext | default $containerSecurity)) | nindent 8 }}
        {{- end }}
      volumes:
        - name: socket-dir
          {{- if $ctl.socketDirVolume }}
          {{- toYaml $ctl.socketDirVolume | nindent 10 }}
          {{- else }}
          emptyDir: {}
          {{- end }}
        - name: tmp
          emptyDir: {}
        {{- if $rootDirDeletion }}
        - name: efs-state-dir
          emptyDir: {}
        {{- end }}
        {{- with $ctl.volumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
{{- end -}}

{{/*
The livenessprobe sidecar. --http-endpoint serves /healthz (the CSI Probe) and /metrics on one port; an
additionalArgs --health-port or --metrics-address (deprecated forms, which livenessprobe refuses together with
--http-endpoint) replaces it. Input: dict "c" "l" (its values) "socketDir" "port" "resources" "securityContext".
*/}}
{{- define "awscsi.livenessSidecar" -}}
{{- $extra := .l.additionalArgs | default list -}}
{{- $legacy := false -}}
{{- range $extra }}{{- if regexMatch "^--?(health-port|metrics-address)" (toString .) }}{{- $legacy = true }}{{- end }}{{- end -}}
{{- $args := list (printf "--csi-address=%s/csi.sock" .socketDir) (printf "--probe-timeout=%v" (.l.probeTimeout | default "60s")) -}}
{{- if not $legacy }}{{- $args = append $args (printf "--http-endpoint=0.0.0.0:%v" .port) }}{{- end -}}
- name: liveness-probe
  image: {{ include "awscsi.sidecarImage" (dict "c" .c "s" .l) }}
  imagePullPolicy: {{ include "awscsi.pullPolicy" (dict "c" .c "s" .l) }}
  terminationMessagePolicy: FallbackToLogsOnError
  args:
    {{- include "awscsi.mergeArgs" (dict "defaults" $args "extra" $extra) | nindent 4 }}
  {{- $proxy := include "awscsi.proxyEnv" .c }}
  {{- if or .l.env $proxy }}
  env:
    {{- $proxy | nindent 4 }}
    {{- with .l.env }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- end }}
  volumeMounts:
    - name: {{ ternary "socket-dir" "plugin-dir" (eq .socketDir "/var/lib/csi/sockets/pluginproxy") }}
      mountPath: {{ .socketDir }}
  {{- with .resources }}
  resources:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .securityContext }}
  securityContext:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}
