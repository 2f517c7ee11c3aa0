package io.awscsi.efs.controller;

import io.awscsi.aws.metadata.NodeTopology;
import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.CapabilityCheck;
import io.awscsi.core.provider.Volume;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.core.provider.VolumeProvisioner;
import io.awscsi.core.provider.VolumeRequest;
import io.awscsi.core.provider.VolumeSource;
import io.awscsi.efs.cloud.AccessPoint;
import io.awscsi.efs.cloud.EfsCloud;
import io.awscsi.efs.cloud.EfsCloudFactory;
import io.awscsi.efs.cloud.FileSystem;
import io.awscsi.efs.mount.PosixDirectory;
import io.awscsi.efs.volume.EfsCapabilities;
import io.awscsi.efs.volume.VolumeContextKeys;
import io.awscsi.efs.volume.VolumeHandle;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * CreateVolume, DeleteVolume and ValidateVolumeCapabilities for EFS: access-point volumes (efs-ap) and, beyond
 * upstream, directory volumes (efs-dir). Capacity is not enforced by EFS and is echoed back.
 */
public final class EfsVolumeProvisioner implements VolumeProvisioner {

  private static final Logger LOG = LogManager.getLogger(EfsVolumeProvisioner.class);

  private final EfsControllerOptions options;
  private final EfsCloudFactory clouds;
  private final AccessPointVolumes accessPoints;
  private final VolumeDirectories directories;
  private final FileSystemIdRefs.Reader refs;
  /**
   * What each name was created with by this process, in either mode: the one record that also spans modes, so a name
   * cannot get a directory volume after an access-point volume (or the reverse) while the first exists.
   */
  private final Map<String, Created> created = new ConcurrentHashMap<>();

  private record Created(RequestFingerprint fingerprint, String volumeId) {}

  EfsVolumeProvisioner(EfsControllerOptions options, EfsCloudFactory clouds, AccessPointGidAllocator allocator,
      VolumeDirectories directories, FileSystemIdRefs.Reader refs) {
    this.options = options;
    this.clouds = clouds;
    this.accessPoints = new AccessPointVolumes(options.tags(), allocator);
    this.directories = directories;
    this.refs = refs;
  }

  @Override
  public Volume createVolume(VolumeRequest request) {
    EfsCapabilities.unsupported(request.capabilities()).ifPresent(reason -> {
      throw DriverException.invalidArgument("volume_capabilities", reason);
    });
    EfsVolumeParameters parameters = EfsVolumeParameters.parse(request.parameters(), options.tags(), refs);
    RequestFingerprint fingerprint = RequestFingerprint.of(request);
    Created before = created.get(request.name());
    if (before != null && !before.fingerprint().equals(fingerprint)) {
      throw DriverException.alreadyExists("volume " + request.name() + " already exists as " + before.volumeId()
          + " with other parameters or capabilities (" + String.join("; ", fingerprint.differences(
              before.fingerprint())) + "); use another name or delete that volume first");
    }
    ProvisionerSecrets secrets = ProvisionerSecrets.parse(request.secrets());
    EfsCloud cloud = cloudFor(secrets);
    String fileSystemId = parameters.fileSystemId();
    List<Map<String, String>> topology = topology(cloud, parameters);
    long requested = RecordedCapacity.requested(request.capacity());
    VolumeHandle handle;
    long capacity;
    switch (parameters.mode()) {
      case ACCESS_POINT -> {
        AccessPoint accessPoint = accessPoints.create(request.name(), parameters, request.capacity(), cloud,
            fingerprint);
        handle = VolumeHandle.ofAccessPoint(fileSystemId, accessPoint.accessPointId());
        capacity = AccessPointTags.capacity(accessPoint.tags()).orElse(requested);
      }
      case DIRECTORY -> {
        String directory = parameters.volumePath(request.name());
        handle = VolumeHandle.ofDirectory(fileSystemId, directory);
        accessPoints.requireNoAccessPointFor(request.name(), fileSystemId, directory, cloud);
        capacity = directories.create(fileSystemId, mountOptions(cloud, fileSystemId, parameters.az(), secrets),
            new DirectoryLedger.Entry(handle.volumeId(), parameters.basePath(), directory, requested,
                fingerprint.hash()),
            request.capacity(),
            parameters.uid() == EfsVolumeParameters.UNSET ? PosixDirectory.KEEP : parameters.uid(),
            parameters.gid() == EfsVolumeParameters.UNSET ? PosixDirectory.KEEP : parameters.gid(),
            PosixDirectory.mode(parameters.directoryPerms()));
      }
      default -> throw new IllegalStateException("unknown mode " + parameters.mode());
    }
    Map<String, String> context = CrossAccountMountTargets.volumeContext(cloud, fileSystemId, parameters.az(),
        secrets);
    created.put(request.name(), new Created(fingerprint, handle.volumeId()));
    LOG.info("CreateVolume: volume {} is {}", request.name(), handle.volumeId());
    return new Volume(handle.volumeId(), capacity, context, topology, new VolumeSource.Empty());
  }

  @Override
  public void deleteVolume(String volumeId, Map<String, String> secrets) {
    VolumeHandle handle;
    try {
      handle = VolumeHandle.parse(volumeId);
    } catch (DriverException e) {
      // Not a volume this driver could have made, so there is nothing to delete (csi-sanity expects success).
      LOG.info("DeleteVolume: {} is not an EFS volume id ({}); nothing to delete", volumeId, e.getMessage());
      return;
    }
    ProvisionerSecrets parsed = ProvisionerSecrets.parse(secrets);
    EfsCloud cloud = cloudFor(parsed);
    created.values().removeIf(c -> c.volumeId().equals(handle.volumeId()));
    if (handle.hasAccessPoint()) {
      accessPoints.delete(handle, cloud, options.deleteAccessPointRootDir()
          ? (h, path) -> directories.remove(h.fileSystemId(),
              mountOptions(cloud, h.fileSystemId(), options.zone(), parsed), path, h.volumeId())
          : null);
      return;
    }
    if (!options.deleteAccessPointRootDir()) {
      // Data is kept by default, as upstream keeps access-point directories unless the flag is set.
      LOG.info("DeleteVolume: keeping the directory of {} (--delete-access-point-root-dir is off)", volumeId);
      return;
    }
    DirectoryDeletion decision = directories.removeRecorded(handle.fileSystemId(),
        mountOptions(cloud, handle.fileSystemId(), options.zone(), parsed), handle);
    switch (decision) {
      case DirectoryDeletion.Keep(String reason) ->
          LOG.warn("DeleteVolume: keeping the directory {} of {}: {}", handle.path(), volumeId, reason);
      case DirectoryDeletion.Gone gone -> LOG.info("DeleteVolume: the directory of {} is already gone", volumeId);
      case DirectoryDeletion.Remove removed -> { }
    }
  }

  @Override
  public CapabilityCheck validateCapabilities(String volumeId, List<VolumeCapability> capabilities,
      Map<String, String> volumeContext, Map<String, String> parameters) {
    VolumeHandle handle;
    try {
      handle = VolumeHandle.parse(volumeId);
    } catch (DriverException e) {
      throw DriverException.notFound("volume " + volumeId + " does not exist: " + e.getMessage());
    }
    if (!crossAccount(volumeContext)) {
      // A cross-account volume is only visible with the role in the provisioner secret, which this call lacks.
      requireExists(handle);
    }
    Optional<String> unsupported = EfsCapabilities.unsupported(capabilities);
    return unsupported.<CapabilityCheck>map(CapabilityCheck.Unsupported::new)
        .orElseGet(CapabilityCheck.Confirmed::new);
  }

  private void requireExists(VolumeHandle handle) {
    EfsCloud cloud = clouds.defaultCloud();
    try {
      if (handle.hasAccessPoint()) {
        if (cloud.describeAccessPoint(handle.accessPointId()).isEmpty()) {
          throw DriverException.notFound("volume " + handle.volumeId() + " does not exist: access point "
              + handle.accessPointId() + " not found");
        }
      } else {
        cloud.describeFileSystem(handle.fileSystemId());
      }
    } catch (AwsCallException e) {
      if (e.error() instanceof AwsCallError.NotFound) {
        throw DriverException.notFound("volume " + handle.volumeId() + " does not exist: file system "
            + handle.fileSystemId() + " not found");
      }
      throw CloudFailures.toDriver(e, "checking volume " + handle.volumeId());
    }
  }

  private static boolean crossAccount(Map<String, String> volumeContext) {
    return volumeContext.keySet().stream().anyMatch(k -> k.equalsIgnoreCase(VolumeContextKeys.CROSS_ACCOUNT)
        || k.equalsIgnoreCase(VolumeContextKeys.MOUNT_TARGET_IP)
        || k.equalsIgnoreCase(VolumeContextKeys.MOUNT_TARGET_IP_MAP));
  }

  private EfsCloud cloudFor(ProvisionerSecrets secrets) {
    return secrets.crossAccount() ? clouds.forRole(secrets.roleArn(), secrets.externalId()) : clouds.defaultCloud();
  }

  private static List<String> mountOptions(EfsCloud cloud, String fileSystemId, String zone,
      ProvisionerSecrets secrets) {
    return CrossAccountMountTargets.controllerMountOptions(cloud, fileSystemId, zone, secrets);
  }

  /** With enforceZoneAffinity, a One Zone file system pins the volume to its zone, as upstream does. */
  private static List<Map<String, String>> topology(EfsCloud cloud, EfsVolumeParameters parameters) {
    if (!parameters.enforceZoneAffinity()) {
      return List.of();
    }
    try {
      FileSystem fs = cloud.describeFileSystem(parameters.fileSystemId());
      return fs.oneZone() ? List.of(Map.of(NodeTopology.WELL_KNOWN_ZONE_KEY, fs.availabilityZone())) : List.of();
    } catch (AwsCallException e) {
      throw CloudFailures.toDriver(e, "describing file system " + parameters.fileSystemId());
    }
  }
}
