package io.awscsi.ebs.controller;

import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.CallDeadline;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.ControllerProvider;
import io.awscsi.core.provider.GroupSnapshotManager;
import io.awscsi.core.provider.IdSyntax;
import io.awscsi.core.provider.Readiness;
import io.awscsi.core.provider.SnapshotManager;
import io.awscsi.core.provider.VolumeAttacher;
import io.awscsi.core.provider.VolumeExpander;
import io.awscsi.core.provider.VolumeLister;
import io.awscsi.core.provider.VolumeModifier;
import io.awscsi.core.provider.VolumeProvisioner;
import io.awscsi.ebs.cloud.EbsCloud;
import io.awscsi.ebs.cloud.SdkEbsCloud;
import io.awscsi.ebs.volume.EbsIds;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import software.amazon.awssdk.services.ec2.Ec2Client;

/**
 * The controller side of {@code ebs.csi.aws.com}: every part works against EC2, so every capability is advertised
 * (CREATE_DELETE_VOLUME, CLONE_VOLUME, PUBLISH_UNPUBLISH_VOLUME, EXPAND_VOLUME, MODIFY_VOLUME,
 * CREATE_DELETE_SNAPSHOT, LIST_SNAPSHOTS, LIST_VOLUMES, LIST_VOLUMES_PUBLISHED_NODES, GET_VOLUME), and the
 * GroupController service's CREATE_DELETE_GET_VOLUME_GROUP_SNAPSHOT (EC2's CreateSnapshots).
 */
public final class EbsControllerProvider implements ControllerProvider {

  private static final Logger LOG = LogManager.getLogger(EbsControllerProvider.class);
  private static final Duration ZONE_LOOKUP_TIMEOUT = Duration.ofSeconds(30);

  private final EbsCloud ec2;
  private final EbsVolumeProvisioner provisioner;
  private final EbsVolumeAttacher attacher;
  private final EbsVolumeResizer resizer;
  private final EbsSnapshotManager snapshots;
  private final EbsGroupSnapshotManager groupSnapshots;
  private final EbsVolumeLister lister;

  private EbsControllerProvider(EbsControllerOptions options, EbsCloud ec2, MetricsRegistry metrics) {
    this.ec2 = ec2;
    ResourceTags tags = new ResourceTags(options.extraTags(), options.k8sTagClusterId(), options.warnOnInvalidTag());
    this.provisioner = new EbsVolumeProvisioner(ec2, options, tags);
    this.attacher = new EbsVolumeAttacher(ec2, options, metrics);
    this.resizer = new EbsVolumeResizer(ec2, options, tags);
    this.snapshots = new EbsSnapshotManager(ec2, options, tags);
    this.groupSnapshots = new EbsGroupSnapshotManager(ec2, options, tags);
    this.lister = new EbsVolumeLister(ec2, options);
  }

  /**
   * Builds the provider. {@code client} must be built without SDK retries
   * ({@code overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()))}): the facade retries each EC2
   * action itself, under its own rate limit and the call's deadline. Deadlines are read from
   * {@code io.grpc.Context.current()} on the calling thread at the start of each operation, so the gRPC handler must
   * call the provider on the thread (or a {@code Context.wrap}ped task) that carries the call's context.
   */
  public static EbsControllerProvider create(EbsControllerOptions options, Ec2Client client, MetricsRegistry metrics) {
    SdkEbsCloud ec2 = new SdkEbsCloud(client, options.batching(), options.rateLimits(), options.retryPolicy(),
        metrics);
    EbsControllerProvider provider = new EbsControllerProvider(options, ec2, metrics);
    warmUpZones(ec2);
    return provider;
  }

  /** The provider on any {@link EbsCloud} (the handler tests' in-memory one); nothing is called at start. */
  static EbsControllerProvider on(EbsCloud cloud, EbsControllerOptions options) {
    return new EbsControllerProvider(options, cloud, new MetricsRegistry());
  }

  /**
   * The region's zones, wanted by the first CreateVolume anyway: fetched at start, they also tell readiness early
   * whether EC2 answers (readiness comes from the driver's own calls only). In the background: start does not wait
   * for EC2.
   */
  private static void warmUpZones(EbsCloud ec2) {
    Thread.ofVirtual().name("ebs-zones").start(() -> {
      try {
        ec2.availabilityZones(CallDeadline.after(ZONE_LOOKUP_TIMEOUT));
      } catch (AwsCallException e) {
        LOG.warn("EC2 DescribeAvailabilityZones at start failed: {}; CreateVolume will ask again", e.getMessage());
      }
    });
  }

  @Override
  public IdSyntax ids() {
    return EbsIds.SYNTAX;
  }

  @Override
  public VolumeProvisioner provisioner() {
    return provisioner;
  }

  @Override
  public Optional<VolumeAttacher> attacher() {
    return Optional.of(attacher);
  }

  @Override
  public Optional<VolumeExpander> expander() {
    return Optional.of(resizer);
  }

  @Override
  public Optional<VolumeModifier> modifier() {
    return Optional.of(resizer);
  }

  @Override
  public Optional<SnapshotManager> snapshots() {
    return Optional.of(snapshots);
  }

  @Override
  public Optional<GroupSnapshotManager> groupSnapshots() {
    return Optional.of(groupSnapshots);
  }

  @Override
  public Optional<VolumeLister> lister() {
    return Optional.of(lister);
  }

  /** Whether EC2 answered the driver's latest calls; makes no call itself. */
  @Override
  public Readiness readiness() {
    return ec2.reachability().readiness();
  }

  /** Describe calls made by each batcher so far (for the benchmark and diagnostics). */
  public Map<String, Long> batchedDescribeCalls() {
    return ec2.batchedLookups();
  }
}
