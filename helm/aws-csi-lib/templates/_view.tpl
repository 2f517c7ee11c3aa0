{{- /*
The view: one driver's values as the templates of this library read them. Its layout is upstream's EBS chart layout
(aws-ebs-csi-driver 2.64.0), with the EFS chart's own settings added where EBS has none. Each application chart
builds it from its values (aws-ebs-csi-driver: almost as is; aws-efs-csi-driver: renames; aws-csi-driver: the
shared sections merged with the per-driver ones) and every key is read with a default, so a view may leave out
what it does not use. Keys (all optional unless marked):

  nameOverride             app.kubernetes.io/name (default aws-<driver>-csi-driver); part of every selector
  customLabels             labels on every object and pod
  image                    repository, tag (default the chart's appVersion), pullPolicy, containerRegistry (a prefix
                           of every image, upstream's meaning)
  imagePullSecrets         names (strings or {name: x})
  region                   AWS_REGION for controller and node
  fips                     AWS_USE_FIPS_ENDPOINT=true on every plugin container
  portRangeUpperBound      EFS node: PORT_RANGE_UPPER_BOUND (efs-utils.conf port_range_upper_bound, upstream EFS's)
  proxy                    http_proxy, no_proxy: HTTP(S)_PROXY / NO_PROXY on every container
  awsAccessSecret          name, keyId, accessKey: static credentials from a Secret (optional) on the controller
  debugLogs                plugin --log-level debug, sidecars --v=7
  nodeComponentOnly        no controller
  useOldCSIDriver          CSIDriver without fsGroupPolicy
  nodeAllocatableUpdatePeriodSeconds   EBS CSIDriver (Kubernetes >= 1.33)
  csiDriver                create (default true), helmHook (CSIDriver as pre-install/pre-upgrade hook, kept on
                           uninstall: upstream EFS's useHelmHooksForCSIDriver)
  controller               enabled, name, replicaCount, updateStrategy, revisionHistoryLimit, priorityClassName,
                           logLevel (klog number or info|debug), loggingFormat, enableMetrics, httpEndpoint,
                           healthPort, metricsPort, enablePrometheusAnnotations, serviceMonitor {enabled,
                           forceEnable, autoDetect, labels, interval, relabelings}, env, envFrom, javaOpts,
                           resources, nodeSelector, affinity, tolerations, topologySpreadConstraints, podAnnotations,
                           podLabels, deploymentAnnotations, additionalLabels, securityContext (pod),
                           containerSecurityContext, volumes, volumeMounts, initContainers, dnsPolicy, dnsConfig,
                           hostNetwork, socketDirVolume, podDisruptionBudget {enabled, maxUnavailable, minAvailable,
                           unhealthyPodEvictionPolicy}, serviceAccount {create, name, annotations,
                           automountServiceAccountToken}, livenessProbe, readinessProbe, startupProbe (replace the
                           defaults), additionalArgs (upstream flags are translated or dropped, see
                           awscsi.pluginArgs), region, awsEc2EndpointConfigMap;
                           EBS: extraVolumeTags, k8sTagClusterId, extraCreateMetadata, defaultFsType,
                           modifyVolumeRequestHandlerTimeout;
                           EFS: tags, deleteAccessPointRootDir, regionalStsEndpoints, provisionerSecretAccess
                           {enabled, secretNames, namespace}, fileSystemIdRefs {enabled} (get on ConfigMaps and
                           Secrets, any namespace)
  node                     enableLinux, updateStrategy, revisionHistoryLimit, priorityClassName, logLevel,
                           loggingFormat, enableMetrics, healthPort, metricsPort, enablePrometheusAnnotations,
                           serviceMonitor, env, envFrom, javaOpts, resources, nodeSelector, affinity, tolerations,
                           tolerateAllTaints, podAnnotations, podLabels, daemonSetAnnotations, additionalLabels,
                           securityContext, containerSecurityContext, volumes, volumeMounts, initContainers,
                           dnsPolicy, dnsConfig, hostNetwork, hostAliases (EFS: fs id -> {ip, region}),
                           terminationGracePeriodSeconds, kubeletPath, probeDirVolume, namespaceOverride,
                           serviceAccount {create, name, annotations, automountServiceAccountToken,
                           disableMutation}, livenessProbe, readinessProbe, startupProbe, additionalArgs,
                           metadataSources, selinux;
                           EBS: volumeAttachLimit, reservedVolumeAttachments, legacyXFS;
                           EFS: volMetricsOptIn, volMetricsRefreshPeriod (minutes, or a duration),
                           volMetricsFsRateLimit, forceUnmountAfterTimeout, unmountTimeout, maxInflightMountCalls
                           (passed with --max-inflight-mount-calls-opt-in), efsUtilsConfOverrides
                           ("section:key=value,...": --efs-utils-conf-overrides)
  additionalDaemonSets     name -> node settings: one more node DaemonSet <driver>-csi-node-<name> each (EBS)
  sidecars                 provisioner, attacher, resizer, snapshotter: image, logLevel, additionalArgs, env,
                           resources (default controller.resources), securityContext (default
                           controller.containerSecurityContext), leaderElection {enabled, leaseDuration,
                           renewDeadline, retryPeriod}, additionalClusterRoleRules, metricsPort, timeout,
                           workerThreads (resizer: workers), kubeApiQps, kubeApiBurst, retryIntervalMax;
                           snapshotter.forceEnable; livenessProbe: image, additionalArgs, resources,
                           securityContext, probeTimeout; nodeDriverRegistrar: image, logLevel, additionalArgs, env,
                           resources, securityContext, healthPort, livenessProbe
  storageClasses           entries: name, annotations, labels, parameters, mountOptions, allowedTopologies,
                           reclaimPolicy, volumeBindingMode, allowVolumeExpansion
  volumeSnapshotClasses    entries: name, annotations, labels, deletionPolicy, parameters (EBS)
  volumeGroupSnapshotClasses  the same entries, VolumeGroupSnapshotClasses (EBS; only where the group API is served)
  ignored                  "key: why" lines the chart found set but cannot apply; NOTES.txt lists them
*/ -}}
