package io.awscsi.efs.controller;

import io.awscsi.core.host.Mounter;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.ControllerProvider;
import io.awscsi.core.provider.IdSyntax;
import io.awscsi.core.provider.Readiness;
import io.awscsi.core.provider.VolumeProvisioner;
import io.awscsi.efs.cloud.EfsCloudFactory;
import io.awscsi.efs.efsutils.EfsUtilsOnFirstMount;
import io.awscsi.efs.mount.EfsMountBackend;
import io.awscsi.efs.mount.EfsUtilsMountBackend;
import io.awscsi.efs.mount.FileSystemRootMounts;
import io.awscsi.efs.volume.EfsIds;
import java.util.Optional;

/** The EFS controller: volume provisioning only (upstream advertises CREATE_DELETE_VOLUME and nothing else). */
public final class EfsControllerProvider implements ControllerProvider, AutoCloseable {

  private final EfsVolumeProvisioner provisioner;
  private final EfsCloudFactory clouds;
  private final EfsUtilsOnFirstMount efsUtils;

  private EfsControllerProvider(EfsVolumeProvisioner provisioner, EfsCloudFactory clouds,
      EfsUtilsOnFirstMount efsUtils) {
    this.provisioner = provisioner;
    this.clouds = clouds;
    this.efsUtils = efsUtils;
  }

  /**
   * Builds the controller.
   *
   * @param clouds the EFS APIs of the driver's account and of cross-account roles ({@link EfsCloudFactory#create});
   *     closed with the provider
   * @param mounter mounts file systems for efs-dir volumes and for --delete-access-point-root-dir
   */
  public static EfsControllerProvider create(EfsControllerOptions options, EfsCloudFactory clouds, Mounter mounter) {
    return create(options, clouds, mounter, FileSystemIdRefs.Reader.NONE, new MetricsRegistry(), Optional.empty());
  }

  /** Builds the controller that mounts with {@code mounts} in place of efs-utils. */
  public static EfsControllerProvider create(EfsControllerOptions options, EfsCloudFactory clouds, Mounter mounter,
      EfsMountBackend.Factory mounts) {
    return create(options, clouds, mounter, FileSystemIdRefs.Reader.NONE, new MetricsRegistry(), Optional.of(mounts));
  }

  /**
   * Builds the controller that reads {@code fileSystemIdConfigRef} / {@code fileSystemIdSecretRef} through the
   * Kubernetes API.
   *
   * @param mounts the mount backend in place of efs-utils' (whose set-up {@link EfsControllerOptions#efsUtils()}
   *     then does not run); empty: efs-utils
   */
  public static EfsControllerProvider create(EfsControllerOptions options, EfsCloudFactory clouds, Mounter mounter,
      KubernetesValueReader kubernetes, MetricsRegistry metrics, Optional<EfsMountBackend.Factory> mounts) {
    return create(options, clouds, mounter, FileSystemIdRefs.Reader.of(kubernetes), metrics, mounts);
  }

  static EfsControllerProvider create(EfsControllerOptions options, EfsCloudFactory clouds, Mounter mounter,
      FileSystemIdRefs.Reader refs, MetricsRegistry metrics, Optional<EfsMountBackend.Factory> mounts) {
    EfsUtilsOnFirstMount efsUtils = mounts.isEmpty()
        ? options.efsUtils().map(o -> new EfsUtilsOnFirstMount(o, metrics)).orElse(null)
        : null;
    EfsMountBackend backend = mounts.isPresent()
        ? mounts.get().create(mounter, () -> clouds.defaultCloud()::describeAccessPoint)
        : new EfsUtilsMountBackend(mounter, options.efsUtils().map(o -> o.directories().stateDir())
            .orElse(EfsUtilsMountBackend.DEFAULT_STATE_DIRECTORY), efsUtils == null ? () -> { } : efsUtils);
    VolumeDirectories directories = new VolumeDirectories(new FileSystemRootMounts(backend, mounter,
        options.workDir()));
    return new EfsControllerProvider(new EfsVolumeProvisioner(options, clouds, new AccessPointGidAllocator(),
        directories, refs), clouds, efsUtils);
  }

  @Override
  public VolumeProvisioner provisioner() {
    return provisioner;
  }

  /**
   * Whether EFS answered the driver's latest calls; makes no call itself (a missing mount helper is reported by the
   * call that needs it, with what to fix).
   */
  @Override
  public Readiness readiness() {
    return clouds.reachability().readiness();
  }

  @Override
  public IdSyntax ids() {
    return EfsIds.SYNTAX;
  }

  /** Closes the EFS clients and stops efs-utils' watchdog if a mount started it. */
  @Override
  public void close() {
    if (efsUtils != null) {
      efsUtils.close();
    }
    clouds.close();
  }
}
