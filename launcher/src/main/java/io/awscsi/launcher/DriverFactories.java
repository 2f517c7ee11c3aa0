package io.awscsi.launcher;

import io.awscsi.aws.Environment;
import io.awscsi.aws.metadata.InstanceMetadata;
import io.awscsi.aws.metadata.InstanceMetadataResolver;
import io.awscsi.aws.metadata.MetadataUnavailableException;
import io.awscsi.aws.metadata.NodeTopology;
import io.awscsi.aws.sdk.AwsClientConfig;
import io.awscsi.aws.sdk.AwsEndpoints;
import io.awscsi.aws.sdk.AwsService;
import io.awscsi.core.host.HostTool;
import io.awscsi.core.host.HostTools;
import io.awscsi.core.host.ProcessCommandRunner;
import io.awscsi.core.host.SupervisedProcess;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.ControllerProvider;
import io.awscsi.core.provider.DriverProvider;
import io.awscsi.core.provider.NodeInfo;
import io.awscsi.core.provider.NodeProvider;
import io.awscsi.ebs.controller.EbsControllerOptions;
import io.awscsi.ebs.controller.EbsControllerProvider;
import io.awscsi.ebs.limits.VolumeAttachLimitSettings;
import io.awscsi.ebs.limits.VolumeAttachLimits;
import io.awscsi.ebs.node.EbsNodeProvider;
import io.awscsi.ebs.node.VolumeDeviceLocator;
import io.awscsi.efs.cloud.EfsCloudFactory;
import io.awscsi.efs.cloud.SdkEfsCloud;
import io.awscsi.efs.controller.EfsControllerOptions;
import io.awscsi.efs.controller.EfsControllerProvider;
import io.awscsi.efs.controller.KubernetesValueReader;
import io.awscsi.efs.efsutils.EfsUtilsConfig;
import io.awscsi.efs.efsutils.EfsUtilsNode;
import io.awscsi.efs.mount.EfsMountBackend;
import io.awscsi.efs.mount.EfsUtilsMountBackend;
import io.awscsi.efs.node.EfsNodeOptions;
import io.awscsi.efs.node.EfsNodeProvider;
import io.awscsi.launcher.kube.KubernetesClientProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.efs.EfsClient;
import software.amazon.awssdk.services.sts.StsClient;

/**
 * Builds one driver's provider from the options: AWS clients (through aws-common's one client configuration),
 * instance metadata for the node, and the EBS or EFS parts for the mode. Everything that needs closing is closed by
 * the returned provider's {@code resources()}, in reverse order of creation.
 */
public final class DriverFactories {

  private static final Logger LOG = LogManager.getLogger(DriverFactories.class);
  private static final Duration DEVICE_WAIT = Duration.ofSeconds(30);

  private DriverFactories() {}

  /**
   * A built driver, the node info still being read when it runs a node (see {@link DeferredNodeInfo}), and what to
   * start once it serves: a node's startup-taint removal, which cannot succeed before kubelet has registered the
   * driver anyway, so its child JVM does not compete with the node's own start for CPU.
   */
  public record Built(DriverProvider provider, Optional<DeferredNodeInfo> nodeInfo, Runnable afterStart) {

    /** Waits for the node info; the reason when it could not be read, and the driver cannot serve. */
    public Optional<String> awaitStartFailure() {
      return nodeInfo.flatMap(DeferredNodeInfo::awaitFailure);
    }
  }

  /** The serving driver: every part built for AWS. */
  public static Built create(DriverOptions o, MetricsRegistry metrics, Map<String, String> envMap) {
    return create(o, metrics, envMap, DriverSeams.Opener.NONE);
  }

  /**
   * @param seams opened first, and closed last with the driver's resources: the parts a caller puts in place of
   *     those built for AWS
   */
  public static Built create(DriverOptions o, MetricsRegistry metrics, Map<String, String> envMap,
      DriverSeams.Opener seams) {
    Environment env = Environment.of(envMap);
    Resources resources = new Resources();
    try {
      DriverSeams opened = resources.add(seams.open(o));
      return switch (o.driver()) {
        case EBS -> ebs(o, metrics, env, resources, opened);
        case EFS -> efs(o, metrics, env, resources, opened);
      };
    } catch (RuntimeException e) {
      resources.close();
      throw e;
    }
  }

  /** Releases what a driver that never served opened (clients, seams), logging what fails. */
  public static void closeQuietly(DriverProvider provider) {
    try {
      provider.resources().close();
    } catch (Exception e) {
      LOG.warn("releasing the resources of a driver that did not start failed: {}", e.getMessage());
    }
  }

  private static Built ebs(DriverOptions o, MetricsRegistry metrics, Environment env, Resources resources,
      DriverSeams seams) {
    KubernetesClientProvider kube = resources.add(KubernetesClientProvider.fromDefaultConfig());
    Supplier<InstanceMetadataResolver> resolver = resolver(o.metadataSources(), metadataEnvironment(o, env), kube,
        resources);
    Supplier<InstanceMetadata> metadata = metadata(resolver);
    HostTools host = o.mode().node() ? HostTools.create() : null;
    ControllerProvider controller = null;
    if (o.mode().controller()) {
      AwsClientConfig aws = clientConfig(o, env, metadata);
      Ec2Client ec2 = resources.add(aws.configure(Ec2Client.builder(), AwsService.EC2,
          c -> c.retryStrategy(AwsRetryStrategy.doNotRetry())).endpointOverride(endpoint(env, AwsService.EC2)
              .orElse(null)).build());
      EbsControllerOptions options = EbsControllerOptions.defaults(aws.region().id())
          .withK8sTagClusterId(o.ebs().k8sTagClusterId())
          .withModifyVolumeRequestHandlerTimeout(o.ebs().modifyVolumeRequestHandlerTimeout())
          .withWarnOnInvalidTag(o.ebs().warnOnInvalidTag())
          .withExtraTags(o.ebs().extraTags());
      controller = seams.controller(EbsControllerProvider.create(options, ec2, metrics));
    }
    NodeProvider node = null;
    DeferredNodeInfo info = null;
    if (o.mode().node()) {
      VolumeAttachLimits limits = VolumeAttachLimits.withSettings(
          new VolumeAttachLimitSettings(o.ebs().volumeAttachLimit(), o.ebs().reservedVolumeAttachments()));
      Function<InstanceMetadata, NodeInfo> nodeInfo = self -> new NodeInfo(self.instanceId(),
          limits.maxVolumesPerNode(self), NodeTopology.segments(self, o.driver().csiName()));
      DeferredNodeInfo atStart = DeferredNodeInfo.start(() -> nodeInfo.apply(metadata.get()));
      info = atStart;
      // Each NodeGetInfo counts the ENIs again, as upstream does: the kubelet asks every
      // nodeAllocatableUpdatePeriodSeconds (MutableCSINodeAllocatableCount) and updates CSINode's count.
      Supplier<NodeInfo> current = () -> {
        atStart.get();
        return nodeInfo.apply(resolver.get().refresh(metadata.get()));
      };
      VolumeDeviceLocator locator = seams.ebsDeviceLocator().orElseGet(() -> VolumeDeviceLocator.forHost(DEVICE_WAIT));
      node = info.gate(EbsNodeProvider.create(current, locator, host, o.ebs().legacyXfs()));
    }
    return new Built(new DriverProvider(o.driver().csiName(), BuildInfo.version(), Optional.ofNullable(controller),
        Optional.ofNullable(node), true, resources), Optional.ofNullable(info), afterStart("ebs", o, env, resources));
  }

  private static Built efs(DriverOptions o, MetricsRegistry metrics, Environment env, Resources resources,
      DriverSeams seams) {
    KubernetesClientProvider kube = resources.add(KubernetesClientProvider.fromDefaultConfig());
    Supplier<InstanceMetadata> metadata = metadata(resolver(o.metadataSources(), metadataEnvironment(o, env), kube,
        resources));
    HostTools host = HostTools.create();
    Optional<EfsMountBackend.Factory> mounts = seams.efsMountBackend();
    AwsClientConfig aws = clientConfig(o, env, metadata);
    Supplier<EfsClient> efsClient = memoize(() -> resources.add(efsClient(aws, env, aws.credentialsFor(AwsService.EFS))));
    Supplier<EfsCloudFactory> clouds = memoize(() -> EfsCloudFactory.create(efsClient.get(),
        credentials -> resources.add(efsClient(aws, env, credentials)),
        memoize(() -> resources.add(aws.configure(StsClient.builder(), AwsService.STS)
            .endpointOverride(endpoint(env, AwsService.STS).orElse(null)).build())), metrics));
    ControllerProvider controller = null;
    String zone = "";
    if (o.mode().controller()) {
      if (o.mode().node()) {
        zone = metadata.get().availabilityZone();
      }
      controller = seams.controller(resources.add(EfsControllerProvider.create(new EfsControllerOptions(
          o.efs().tags(), o.efs().deleteAccessPointRootDir(), o.efs().workDir(), zone,
          mounts.isEmpty() && !o.mode().node() ? Optional.of(efsUtils(o, env)) : Optional.empty()),
          clouds.get(), host.mounter(), new KubernetesValueReader(kube), metrics, mounts)));
    }
    NodeProvider node = null;
    if (o.mode().node()) {
      // The EFS publisher needs the zone when it is built (mount target choice), so EFS reads metadata up front.
      InstanceMetadata self = metadata.get();
      NodeInfo info = new NodeInfo(self.instanceId(), o.efs().volumeAttachLimit(),
          NodeTopology.segments(self, o.driver().csiName()));
      EfsNodeOptions options = new EfsNodeOptions(o.efs().volMetricsOptIn(), o.efs().volMetricsRefreshPeriod(),
          o.efs().volMetricsFsRateLimit(), o.efs().forceUnmountAfterTimeout(), o.efs().unmountTimeout(),
          o.efs().maxInflightMountCalls(), mounts.isEmpty() ? Optional.of(efsUtils(o, env)) : Optional.empty());
      // efs-utils leaves access point roots to EFS; a backend given in its place may read them (the cloud is built
      // on that read).
      EfsMountBackend backend = mounts.isPresent()
          ? mounts.get().create(host.mounter(), () -> SdkEfsCloud.create(efsClient.get(), metrics)::describeAccessPoint)
          : new EfsUtilsMountBackend(host.mounter(), options.efsUtils().map(u -> u.directories().stateDir())
              .orElse(EfsUtilsMountBackend.DEFAULT_STATE_DIRECTORY), () -> { });
      node = resources.add(EfsNodeProvider.create(options, info, host.mounter(), host.runner(), backend, metrics));
    }
    return new Built(new DriverProvider(o.driver().csiName(), BuildInfo.version(), Optional.ofNullable(controller),
        Optional.ofNullable(node), true, resources), Optional.empty(), afterStart("efs", o, env, resources));
  }

  /** efs-utils as the node sets it up: the directories, the configuration from flags and environment, the watchdog. */
  private static EfsUtilsNode.Options efsUtils(DriverOptions o, Environment env) {
    Path watchdog = o.efs().watchdogPath().isEmpty()
        ? ProcessCommandRunner.create().find(HostTool.EFS_MOUNT_WATCHDOG)
            .orElse(Path.of(HostTool.EFS_MOUNT_WATCHDOG.executable()))
        : Path.of(o.efs().watchdogPath());
    EfsUtilsConfig config = EfsUtilsConfig.fromEnvironment(env.variables(),
        o.logLevel().intLevel() >= Level.DEBUG.intLevel(), o.efs().cloudWatchLogEnabled(),
        o.efs().efsUtilsConfOverrides());
    return new EfsUtilsNode.Options(o.efs().efsUtilsDirectories(), config, watchdog,
        SupervisedProcess.Policy.DEFAULT);
  }

  private static EfsClient efsClient(AwsClientConfig aws, Environment env,
      software.amazon.awssdk.auth.credentials.AwsCredentialsProvider credentials) {
    return aws.configure(EfsClient.builder(), AwsService.EFS, c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()))
        .endpointOverride(endpoint(env, AwsService.EFS).orElse(null))
        .credentialsProvider(credentials).build();
  }

  /** Instance metadata, resolved once on first use (the controller needs it only without AWS_REGION). */
  private static Supplier<InstanceMetadata> metadata(Supplier<InstanceMetadataResolver> resolver) {
    return memoize(() -> {
      try {
        InstanceMetadata m = resolver.get().resolve();
        LOG.info("instance metadata from {}: {} ({}) in {}", resolver.get().sourceNames(), m.instanceId(),
            m.instanceType(), m.availabilityZone());
        return m;
      } catch (MetadataUnavailableException e) {
        throw new IllegalStateException(e.getMessage(), e);
      }
    });
  }

  /**
   * The environment the instance metadata sources read: {@code --imds-endpoint}, when given, in place of the SDK's
   * {@code AWS_EC2_METADATA_SERVICE_ENDPOINT} (the IMDS source reads the endpoint from there).
   */
  static Environment metadataEnvironment(DriverOptions o, Environment env) {
    return o.imdsEndpoint().isBlank() ? env
        : env.with(io.awscsi.aws.metadata.ImdsMetadataSource.ENDPOINT_VARIABLE, o.imdsEndpoint().strip());
  }

  private static Supplier<InstanceMetadataResolver> resolver(List<String> sources, Environment env,
      KubernetesClientProvider kube, Resources resources) {
    return memoize(() -> resources.add(metadataResolver(sources, env, kube)));
  }

  /** The instance metadata sources of {@code --metadata-sources}, asked in that order. */
  static InstanceMetadataResolver metadataResolver(List<String> sources, Environment env,
      Supplier<io.fabric8.kubernetes.client.KubernetesClient> kube) {
    return InstanceMetadataResolver.standard(String.join(",", sources), env, kube);
  }

  /** The AWS clients' settings: region (else the instance's), upstream's {@code --user-agent-extra}. */
  static AwsClientConfig clientConfig(DriverOptions o, Environment env, Supplier<InstanceMetadata> metadata) {
    return AwsClientConfig.builder(env).regionFallback(() -> metadata.get().region())
        .userAgentExtra(o.userAgentExtra()).build();
  }

  /**
   * The endpoint from the environment map, set explicitly: the SDK reads AWS_ENDPOINT_URL* from the process
   * environment only, and the local runtime hands drivers their environment as a map.
   */
  private static Optional<java.net.URI> endpoint(Environment env, AwsService service) {
    return AwsEndpoints.fromEnvironment(env).resolve(service).map(AwsEndpoints.Endpoint::uri);
  }

  /** A node removes its startup taint (in a child process) once it serves; a controller has nothing to start. */
  private static Runnable afterStart(String driver, DriverOptions o, Environment env, Resources resources) {
    if (!o.mode().node()) {
      return () -> { };
    }
    return () -> StartupTaintProcess.start(driver, env.variables(), o.logFormat(), o.logLevel())
        .ifPresent(resources::add);
  }

  private static <T> Supplier<T> memoize(Supplier<T> supplier) {
    return new Supplier<>() {
      private T value;

      @Override
      public synchronized T get() {
        if (value == null) {
          value = supplier.get();
        }
        return value;
      }
    };
  }

  /** What the driver must close at shutdown, closed last-created first. */
  static final class Resources implements AutoCloseable {
    private final Deque<AutoCloseable> items = new ArrayDeque<>();

    synchronized <T extends AutoCloseable> T add(T item) {
      items.push(item);
      return item;
    }

    @Override
    public synchronized void close() {
      while (!items.isEmpty()) {
        try {
          items.pop().close();
        } catch (Exception e) {
          LOG.warn("closing {} failed: {}", e.getClass().getSimpleName(), e.getMessage());
        }
      }
    }
  }
}
