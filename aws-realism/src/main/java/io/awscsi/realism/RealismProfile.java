package io.awscsi.realism;

import java.time.Duration;
import java.util.Objects;

/**
 * How real the emulated AWS is: latencies of the asynchronous state changes, API throttling and per-resource limits.
 *
 * @param apiCall added to every request before it is answered (API round trip)
 * @param volumeCreation CreateVolume/CopyVolumes: {@code creating} until {@code available}
 * @param volumeAttach AttachVolume: {@code attaching} until {@code attached}
 * @param volumeDetach DetachVolume: {@code detaching} until the attachment is gone
 * @param snapshotCompletion CreateSnapshot: {@code pending} until {@code completed}
 * @param modificationModifying ModifyVolume: time spent in {@code modifying}
 * @param modificationOptimizing ModifyVolume: time spent in {@code optimizing} before {@code completed}
 * @param throttle EC2's per-action token buckets
 * @param efsThrottle EFS's per-action token buckets (a service of its own: its buckets are not EC2's)
 * @param attachmentLimit volumes an instance can hold, its root volume included
 * @param modificationsPerWindow ModifyVolume calls allowed per volume within {@code modificationWindow}
 * @param modificationWindow the rolling window of that limit (24 h on EC2)
 * @param accessPointsPerFileSystem EFS access-point quota per file system
 * @param accountId the account {@code Owner=self} names when the emulator cannot say whose the caller is (no STS);
 *     otherwise the emulator's answer to GetCallerIdentity for the caller's key is used
 * @param volumeInitialization a volume created from a snapshot (or copied) stays {@code initializing} in
 *     DescribeVolumeStatus this long, or less when its VolumeInitializationRate fetches it sooner
 */
public record RealismProfile(
    Latency apiCall,
    Latency volumeCreation,
    Latency volumeAttach,
    Latency volumeDetach,
    Latency snapshotCompletion,
    Latency modificationModifying,
    Latency modificationOptimizing,
    ThrottleLimits throttle,
    ThrottleLimits efsThrottle,
    int attachmentLimit,
    int modificationsPerWindow,
    Duration modificationWindow,
    int accessPointsPerFileSystem,
    String accountId,
    Duration volumeInitialization) {

  public static final String MOTO_ACCOUNT_ID = "123456789012";

  public RealismProfile {
    Objects.requireNonNull(apiCall, "apiCall");
    Objects.requireNonNull(volumeCreation, "volumeCreation");
    Objects.requireNonNull(volumeAttach, "volumeAttach");
    Objects.requireNonNull(volumeDetach, "volumeDetach");
    Objects.requireNonNull(snapshotCompletion, "snapshotCompletion");
    Objects.requireNonNull(modificationModifying, "modificationModifying");
    Objects.requireNonNull(modificationOptimizing, "modificationOptimizing");
    Objects.requireNonNull(throttle, "throttle");
    Objects.requireNonNull(efsThrottle, "efsThrottle");
    Objects.requireNonNull(modificationWindow, "modificationWindow");
    Objects.requireNonNull(accountId, "accountId");
    Objects.requireNonNull(volumeInitialization, "volumeInitialization");
    if (attachmentLimit < 1 || modificationsPerWindow < 1 || accessPointsPerFileSystem < 1) {
      throw new IllegalArgumentException("limits must be at least 1: attachmentLimit " + attachmentLimit
          + ", modificationsPerWindow " + modificationsPerWindow + ", accessPointsPerFileSystem "
          + accessPointsPerFileSystem);
    }
  }

  /** Figures published for real EC2 and EFS, for benchmarks and side-by-side runs. */
  public static RealismProfile realistic() {
    return new RealismProfile(
        Latency.millis(60, 250),
        Latency.millis(1_500, 4_000),
        Latency.millis(2_000, 4_000),
        Latency.millis(2_000, 4_000),
        Latency.millis(8_000, 30_000),
        Latency.millis(2_000, 6_000),
        Latency.millis(10_000, 40_000),
        ThrottleLimits.ec2Defaults(),
        ThrottleLimits.efsDefaults(),
        27, 4, Duration.ofHours(24), 10_000, MOTO_ACCOUNT_ID, Duration.ofMinutes(30));
  }

  /** Same states, limits and throttling as {@link #realistic()}, with latencies small enough for unit tests. */
  public static RealismProfile fast() {
    return new RealismProfile(
        Latency.none(),
        Latency.millis(150, 400),
        Latency.millis(150, 400),
        Latency.millis(150, 400),
        Latency.millis(200, 500),
        Latency.millis(150, 400),
        Latency.millis(300, 700),
        ThrottleLimits.ec2Defaults(),
        ThrottleLimits.efsDefaults(),
        27, 4, Duration.ofHours(24), 10_000, MOTO_ACCOUNT_ID, Duration.ofSeconds(3));
  }

  /** Every state final at once and no throttling; the checks (errors, ClientToken, paging, limits) stay on. */
  public static RealismProfile instant() {
    return new RealismProfile(
        Latency.none(), Latency.none(), Latency.none(), Latency.none(), Latency.none(), Latency.none(),
        Latency.none(), ThrottleLimits.off(), ThrottleLimits.off(), 27, 4, Duration.ofHours(24), 10_000, MOTO_ACCOUNT_ID,
        Duration.ZERO);
  }

  public RealismProfile withApiCall(Latency latency) {
    return new RealismProfile(latency, volumeCreation, volumeAttach, volumeDetach, snapshotCompletion,
        modificationModifying, modificationOptimizing, throttle, efsThrottle, attachmentLimit, modificationsPerWindow,
        modificationWindow, accessPointsPerFileSystem, accountId, volumeInitialization);
  }

  public RealismProfile withVolumeCreation(Latency latency) {
    return new RealismProfile(apiCall, latency, volumeAttach, volumeDetach, snapshotCompletion,
        modificationModifying, modificationOptimizing, throttle, efsThrottle, attachmentLimit, modificationsPerWindow,
        modificationWindow, accessPointsPerFileSystem, accountId, volumeInitialization);
  }

  public RealismProfile withVolumeAttach(Latency latency) {
    return new RealismProfile(apiCall, volumeCreation, latency, volumeDetach, snapshotCompletion,
        modificationModifying, modificationOptimizing, throttle, efsThrottle, attachmentLimit, modificationsPerWindow,
        modificationWindow, accessPointsPerFileSystem, accountId, volumeInitialization);
  }

  public RealismProfile withVolumeDetach(Latency latency) {
    return new RealismProfile(apiCall, volumeCreation, volumeAttach, latency, snapshotCompletion,
        modificationModifying, modificationOptimizing, throttle, efsThrottle, attachmentLimit, modificationsPerWindow,
        modificationWindow, accessPointsPerFileSystem, accountId, volumeInitialization);
  }

  public RealismProfile withSnapshotCompletion(Latency latency) {
    return new RealismProfile(apiCall, volumeCreation, volumeAttach, volumeDetach, latency,
        modificationModifying, modificationOptimizing, throttle, efsThrottle, attachmentLimit, modificationsPerWindow,
        modificationWindow, accessPointsPerFileSystem, accountId, volumeInitialization);
  }

  public RealismProfile withModification(Latency modifying, Latency optimizing) {
    return new RealismProfile(apiCall, volumeCreation, volumeAttach, volumeDetach, snapshotCompletion,
        modifying, optimizing, throttle, efsThrottle, attachmentLimit, modificationsPerWindow,
        modificationWindow, accessPointsPerFileSystem, accountId, volumeInitialization);
  }

  public RealismProfile withThrottle(ThrottleLimits limits) {
    return new RealismProfile(apiCall, volumeCreation, volumeAttach, volumeDetach, snapshotCompletion,
        modificationModifying, modificationOptimizing, limits, efsThrottle, attachmentLimit, modificationsPerWindow,
        modificationWindow, accessPointsPerFileSystem, accountId, volumeInitialization);
  }

  public RealismProfile withEfsThrottle(ThrottleLimits limits) {
    return new RealismProfile(apiCall, volumeCreation, volumeAttach, volumeDetach, snapshotCompletion,
        modificationModifying, modificationOptimizing, throttle, limits, attachmentLimit, modificationsPerWindow,
        modificationWindow, accessPointsPerFileSystem, accountId, volumeInitialization);
  }

  /** The token buckets of {@code service} ("ec2", "efs"); a service without buckets of its own gets EC2's. */
  public ThrottleLimits throttleOf(String service) {
    return service.equals("efs") ? efsThrottle : throttle;
  }

  public RealismProfile withAttachmentLimit(int limit) {
    return new RealismProfile(apiCall, volumeCreation, volumeAttach, volumeDetach, snapshotCompletion,
        modificationModifying, modificationOptimizing, throttle, efsThrottle, limit, modificationsPerWindow,
        modificationWindow, accessPointsPerFileSystem, accountId, volumeInitialization);
  }

  public RealismProfile withModificationRate(int perWindow, Duration window) {
    return new RealismProfile(apiCall, volumeCreation, volumeAttach, volumeDetach, snapshotCompletion,
        modificationModifying, modificationOptimizing, throttle, efsThrottle, attachmentLimit, perWindow,
        window, accessPointsPerFileSystem, accountId, volumeInitialization);
  }

  public RealismProfile withAccessPointsPerFileSystem(int limit) {
    return new RealismProfile(apiCall, volumeCreation, volumeAttach, volumeDetach, snapshotCompletion,
        modificationModifying, modificationOptimizing, throttle, efsThrottle, attachmentLimit, modificationsPerWindow,
        modificationWindow, limit, accountId, volumeInitialization);
  }

  public RealismProfile withVolumeInitialization(Duration duration) {
    return new RealismProfile(apiCall, volumeCreation, volumeAttach, volumeDetach, snapshotCompletion,
        modificationModifying, modificationOptimizing, throttle, efsThrottle, attachmentLimit, modificationsPerWindow,
        modificationWindow, accessPointsPerFileSystem, accountId, duration);
  }

  /** A profile by its command-line name: realistic, fast or instant. */
  public static RealismProfile named(String name) {
    return switch (name) {
      case "realistic" -> realistic();
      case "fast" -> fast();
      case "instant" -> instant();
      default -> throw new IllegalArgumentException(
          "unknown realism profile '" + name + "': use realistic, fast or instant");
    };
  }
}
