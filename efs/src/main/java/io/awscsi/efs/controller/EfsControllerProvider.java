package io.awscsi.efs.controller;

import io.awscsi.core.host.Mounter;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.ControllerProvider;
import io.awscsi.core.provider.Readiness;
import io.awscsi.core.provider.VolumeProvisioner;
import io.awscsi.efs.cloud.EfsApiCalls;
import io.awscsi.efs.cloud.EfsClientFactory;
import io.awscsi.efs.cloud.EfsCloudFactory;
import io.awscsi.efs.mount.EfsMountBackend;
import io.awscsi.efs.mount.FileSystemRootMounts;
import java.util.function.Supplier;
import software.amazon.awssdk.services.efs.EfsClient;
import software.amazon.awssdk.services.sts.StsClient;

/** The EFS controller: volume provisioning only (upstream advertises CREATE_DELETE_VOLUME and nothing else). */
public final class EfsControllerProvider implements ControllerProvider, AutoCloseable {

  private final EfsVolumeProvisioner provisioner;
  private final EfsCloudFactory clouds;

  private EfsControllerProvider(EfsVolumeProvisioner provisioner, EfsCloudFactory clouds) {
    this.provisioner = provisioner;
    this.clouds = clouds;
  }

  /**
   * Builds the controller.
   *
   * @param efs the client of the driver's own account (SDK retries off: {@link EfsApiCalls} retries per API)
   * @param roleClients builds a client with given credentials, for cross-account roles
   * @param sts STS for AssumeRole, asked for only when a provisioner secret names a role
   * @param mounter mounts file systems for efs-dir volumes and for --delete-access-point-root-dir
   */
  public static EfsControllerProvider create(EfsControllerOptions options, EfsClient efs,
      EfsClientFactory roleClients, Supplier<StsClient> sts, Mounter mounter, MetricsRegistry metrics) {
    EfsApiCalls calls = new EfsApiCalls(metrics, EfsApiCalls.RetrySettings.DEFAULT);
    return create(options, new EfsCloudFactory(efs, roleClients, sts, calls), mounter);
  }

  /** Builds the controller over a prepared cloud factory (tests choose their retry settings there). */
  public static EfsControllerProvider create(EfsControllerOptions options, EfsCloudFactory clouds, Mounter mounter) {
    EfsMountBackend backend = options.mountBackend().create(mounter, options.localRoot(),
        () -> clouds.defaultCloud()::describeAccessPoint);
    VolumeDirectories directories = new VolumeDirectories(new FileSystemRootMounts(backend, mounter,
        options.workDir()));
    return new EfsControllerProvider(new EfsVolumeProvisioner(options, clouds, new AccessPointGidAllocator(),
        directories), clouds);
  }

  @Override
  public VolumeProvisioner provisioner() {
    return provisioner;
  }

  /**
   * Always ready, as upstream: Probe must stay cheap, and an unreachable EFS API or a missing mount helper is reported
   * by the call that needs it, with what to fix.
   */
  @Override
  public Readiness readiness() {
    return Readiness.ready();
  }

  @Override
  public void close() {
    clouds.close();
  }
}
