package io.awscsi.efs.controller;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.efs.cloud.EfsCloud;
import io.awscsi.efs.cloud.MountTarget;
import io.awscsi.efs.volume.VolumeContextKeys;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * How nodes (and the controller) reach a file system in another account, where the file system's DNS name does not
 * resolve: as upstream, {@code crossaccount} when the secret asks for DNS, else the mount target IP of the {@code az}
 * parameter's zone, else a map of every zone's mount target IP from which each node picks its own.
 */
final class CrossAccountMountTargets {

  private static final Logger LOG = LogManager.getLogger(CrossAccountMountTargets.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private CrossAccountMountTargets() {}

  /** The volume context of a new volume; empty for a file system in the driver's own account. */
  static Map<String, String> volumeContext(EfsCloud cloud, String fileSystemId, String az,
      ProvisionerSecrets secrets) {
    if (!secrets.crossAccount()) {
      return Map.of();
    }
    if (secrets.crossAccountDns()) {
      return Map.of(VolumeContextKeys.CROSS_ACCOUNT, "true");
    }
    List<MountTarget> targets = availableTargets(cloud, fileSystemId);
    if (targets.isEmpty()) {
      return Map.of();
    }
    if (!az.isEmpty()) {
      return Map.of(VolumeContextKeys.MOUNT_TARGET_IP, pick(targets, az).ipAddress());
    }
    Map<String, String> byZone = new TreeMap<>();
    targets.forEach(t -> byZone.putIfAbsent(t.availabilityZone(), t.ipAddress()));
    try {
      return Map.of(VolumeContextKeys.MOUNT_TARGET_IP_MAP, JSON.writeValueAsString(byZone));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the mount target map", e);
    }
  }

  /**
   * Options for the controller's own mount of the file system root: {@code tls,iam} as upstream, and for another
   * account {@code crossaccount} or the mount target IP in {@code preferredZone} (any zone's when it has none).
   */
  static List<String> controllerMountOptions(EfsCloud cloud, String fileSystemId, String preferredZone,
      ProvisionerSecrets secrets) {
    List<String> options = new ArrayList<>(List.of("tls", "iam"));
    if (secrets.crossAccount()) {
      if (secrets.crossAccountDns()) {
        options.add("crossaccount");
      } else {
        List<MountTarget> targets = availableTargets(cloud, fileSystemId);
        if (!targets.isEmpty()) {
          options.add("mounttargetip=" + pick(targets, preferredZone).ipAddress());
        }
      }
    }
    return options;
  }

  /** A mount target in the zone, else the first one (targets are sorted by id, so the choice is stable). */
  private static MountTarget pick(List<MountTarget> targets, String zone) {
    Optional<MountTarget> inZone = targets.stream().filter(t -> t.availabilityZone().equals(zone)).findFirst();
    if (inZone.isEmpty() && !zone.isEmpty()) {
      LOG.warn("no available mount target in zone {}; using {} in {}", zone, targets.getFirst().ipAddress(),
          targets.getFirst().availabilityZone());
    }
    return inZone.orElse(targets.getFirst());
  }

  /**
   * Available mount targets sorted by id. A failure that may pass (throttling, outage) fails the call so it is retried;
   * any other (e.g. the role may not DescribeMountTargets) is logged and leaves the choice to DNS, as upstream does.
   */
  private static List<MountTarget> availableTargets(EfsCloud cloud, String fileSystemId) {
    try {
      return cloud.listMountTargets(fileSystemId).stream().filter(MountTarget::available)
          .sorted(Comparator.comparing(MountTarget::mountTargetId)).toList();
    } catch (AwsCallException e) {
      if (e.error() instanceof AwsCallError.Throttled || e.error() instanceof AwsCallError.Unavailable) {
        throw CloudFailures.toDriver(e, "looking up the mount targets of " + fileSystemId);
      }
      LOG.warn("cannot describe the mount targets of {} ({}); nodes will resolve the mount target by DNS",
          fileSystemId, e.getMessage());
      return List.of();
    }
  }
}
