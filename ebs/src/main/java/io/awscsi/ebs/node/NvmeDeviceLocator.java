package io.awscsi.ebs.node;

import io.awscsi.core.errors.DriverException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Finds the block device of an attached EBS volume, as upstream does, and checks it is that volume before anyone
 * formats or mounts it:
 * <ol>
 *   <li>the {@code devicePath} of the publish context, if it exists (a udev link such as {@code /dev/xvdba} to
 *       {@code nvme1n1}, followed);</li>
 *   <li>the by-id link {@code nvme-Amazon_Elastic_Block_Store_vol0123...} that udev makes from the serial;</li>
 *   <li>every block device in sysfs whose serial is the volume id without the dash (no udev needed).</li>
 * </ol>
 * A candidate whose serial names another volume (a stale link left by an earlier attachment) is refused and the
 * search goes on. Attachment completes before the device shows up, so the search is repeated for a bounded time and
 * then fails retryably, naming every path searched.
 *
 * <p>The roots and the identity reader are parameters: the same code finds loop devices of the local backend and
 * devices in a fake tree in tests.
 */
public final class NvmeDeviceLocator {

  private static final Logger LOG = LogManager.getLogger(NvmeDeviceLocator.class);
  /** Prefix of the by-id links that udev's EBS rule creates. */
  public static final String BY_ID_PREFIX = "nvme-Amazon_Elastic_Block_Store_";
  /** Publish-context key set by ControllerPublishVolume. */
  public static final String DEVICE_PATH_KEY = "devicePath";

  private final Path byIdDirectory;
  private final Path sysBlock;
  private final Path devDirectory;
  private final DeviceIdentityReader identities;
  private final Duration wait;
  private final Duration pollInterval;

  public NvmeDeviceLocator(Path byIdDirectory, Path sysBlock, Path devDirectory, DeviceIdentityReader identities,
      Duration wait, Duration pollInterval) {
    this.byIdDirectory = byIdDirectory;
    this.sysBlock = sysBlock;
    this.devDirectory = devDirectory;
    this.identities = identities;
    this.wait = wait;
    this.pollInterval = pollInterval;
  }

  /** The file name of the by-id link that udev's EBS rule creates for a volume. */
  public static String byIdName(String volumeId) {
    return BY_ID_PREFIX + VolumeIds.serialForm(volumeId);
  }

  /** The real host: {@code /dev/disk/by-id}, {@code /sys/block}, {@code /dev}, NVMe serials from sysfs. */
  public static NvmeDeviceLocator forHost(Duration wait) {
    var sysBlock = Path.of("/sys/block");
    return new NvmeDeviceLocator(Path.of("/dev/disk/by-id"), sysBlock, Path.of("/dev"),
        new NvmeSerialReader(sysBlock), wait, Duration.ofMillis(100));
  }

  /**
   * The device of the volume, waiting for it to appear.
   *
   * @return the resolved device path (no symlink)
   * @throws DriverException Unavailable when no device of this volume appeared in time (the caller retries)
   */
  public Path locate(String volumeId, Map<String, String> publishContext) {
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      var searched = new ArrayList<String>();
      var found = findOnce(volumeId, publishContext.getOrDefault(DEVICE_PATH_KEY, ""), searched);
      if (found.isPresent()) {
        return found.get();
      }
      if (System.nanoTime() >= deadline) {
        throw DriverException.unavailable("no block device of volume " + volumeId + " appeared within " + wait
            + "; searched: " + String.join("; ", searched) + ". The attachment may still be in progress "
            + "(the call is retried); if it persists, check the VolumeAttachment and the instance's block devices");
      }
      try {
        Thread.sleep(pollInterval);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw DriverException.aborted("interrupted while waiting for the device of volume " + volumeId);
      }
    }
  }

  /** The identity of a device path (followed if a link), when the device has one. */
  public Optional<String> identityOf(Path device) {
    try {
      return identities.identityOf(device.toRealPath().getFileName().toString());
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** False only when the device positively names another volume; a device without identity cannot be refuted. */
  public boolean mayBelongTo(Path device, String volumeId) {
    return identityOf(device).map(identity -> VolumeIds.matches(identity, volumeId)).orElse(true);
  }

  private Optional<Path> findOnce(String volumeId, String devicePath, List<String> searched) {
    if (!devicePath.isEmpty()) {
      var candidate = verified(Path.of(devicePath), volumeId, "publish_context devicePath", searched);
      if (candidate.isPresent()) {
        return candidate;
      }
    }
    var byId = byIdDirectory.resolve(byIdName(volumeId));
    var candidate = verified(byId, volumeId, "by-id link", searched);
    if (candidate.isPresent()) {
      return candidate;
    }
    return scanSysBlock(volumeId, searched);
  }

  /**
   * The candidate's real path if it exists and does not name another volume. A device without a readable identity
   * (Xen {@code xvd} devices have no serial) is accepted, because the source names it for this volume; upstream
   * skips the check the same way.
   */
  private Optional<Path> verified(Path candidate, String volumeId, String source, List<String> searched) {
    Path device;
    try {
      device = candidate.toRealPath();
    } catch (IOException e) {
      searched.add(source + " " + candidate + " (does not exist)");
      return Optional.empty();
    }
    var identity = identities.identityOf(device.getFileName().toString());
    if (identity.isEmpty()) {
      LOG.warn("using {} {} -> {} for volume {} without a serial to check it against", source, candidate, device,
          volumeId);
      return Optional.of(device);
    }
    if (!VolumeIds.matches(identity.get(), volumeId)) {
      LOG.warn("refusing {} {} -> {} for volume {}: the device is {} (stale link)", source, candidate, device,
          volumeId, identity.get());
      searched.add(source + " " + candidate + " -> " + device + " (refused: the device is " + identity.get()
          + ", a stale link to another volume)");
      return Optional.empty();
    }
    return Optional.of(device);
  }

  private Optional<Path> scanSysBlock(String volumeId, List<String> searched) {
    try (Stream<Path> entries = Files.list(sysBlock)) {
      for (var entry : entries.toList()) {
        var name = entry.getFileName().toString();
        var identity = identities.identityOf(name);
        if (identity.isPresent() && VolumeIds.matches(identity.get(), volumeId)) {
          var device = devDirectory.resolve(name);
          if (Files.exists(device)) {
            return Optional.of(device);
          }
          searched.add(sysBlock.resolve(name) + " has the serial but " + device + " does not exist");
          return Optional.empty();
        }
      }
      searched.add("the serials of the block devices in " + sysBlock + " (none is " + VolumeIds.serialForm(volumeId)
          + ")");
    } catch (IOException e) {
      searched.add(sysBlock + " (cannot list: " + e.getMessage() + ")");
    }
    return Optional.empty();
  }
}
