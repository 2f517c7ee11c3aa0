package io.awscsi.ebs.node;

import static io.awscsi.ebs.volume.PublishContextKeys.DEVICE_PATH;

import io.awscsi.core.errors.DriverException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Pattern;
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
 * A candidate is used only when it is provably the volume's: its identity (NVMe serial, the loop backend's backing
 * file) names the volume. A candidate whose identity names another volume (a stale link left by an earlier
 * attachment), or that has no identity at all, is refused and the search goes on; the only devices accepted without
 * an identity are those the backend says cannot have one (Xen {@code xvd} disks, which have no serial). A
 * {@code devicePath} outside {@code /dev} is refused outright. Attachment completes before the device shows up, so
 * the search is repeated for a bounded time and then fails retryably, naming every path searched.
 *
 * <p>Named for what it does rather than for NVMe: the roots and the identity reader are parameters, so the same
 * search finds Xen disks, NVMe namespaces, a stand-in backend's devices (whose identity is not a serial) and devices
 * in a fake tree in tests.
 */
public final class VolumeDeviceLocator {

  private static final Logger LOG = LogManager.getLogger(VolumeDeviceLocator.class);
  /** Prefix of the by-id links that udev's EBS rule creates. */
  public static final String BY_ID_PREFIX = "nvme-Amazon_Elastic_Block_Store_";

  /**
   * The volume attribute (upstream's {@code partition}) naming the partition of the volume to stage or publish
   * instead of the whole device, for static PVs of disks made elsewhere; {@code "0"} or empty is the whole device.
   */
  public static final String PARTITION_KEY = "partition";

  /** Xen's EBS disks ({@code xvdf}, {@code xvdba}): whole disks without a serial in sysfs. */
  public static final Predicate<String> XEN_DISK = Pattern.compile("xvd[a-z]{1,2}").asMatchPredicate();

  private final Path byIdDirectory;
  private final Path sysBlock;
  private final Path sysDevBlock;
  private final Path devDirectory;
  private final DeviceIdentityReader identities;
  private final Predicate<String> acceptedWithoutIdentity;
  private final Duration wait;
  private final Duration pollInterval;

  /** On EC2: devices without an identity are accepted only when they are Xen disks ({@link #XEN_DISK}). */
  public VolumeDeviceLocator(Path byIdDirectory, Path sysBlock, Path devDirectory, DeviceIdentityReader identities,
      Duration wait, Duration pollInterval) {
    this(byIdDirectory, sysBlock, devDirectory, identities, XEN_DISK, wait, pollInterval);
  }

  /**
   * @param sysBlock {@code /sys/block}; {@code /sys/dev/block} (devices by number) is its sibling {@code ../dev/block}
   * @param acceptedWithoutIdentity kernel names of devices that cannot have an identity and are used without one
   */
  public VolumeDeviceLocator(Path byIdDirectory, Path sysBlock, Path devDirectory, DeviceIdentityReader identities,
      Predicate<String> acceptedWithoutIdentity, Duration wait, Duration pollInterval) {
    this.byIdDirectory = byIdDirectory;
    this.sysBlock = sysBlock;
    this.sysDevBlock = sysBlock.resolveSibling("dev").resolve("block");
    this.devDirectory = devDirectory;
    this.identities = identities;
    this.acceptedWithoutIdentity = acceptedWithoutIdentity;
    this.wait = wait;
    this.pollInterval = pollInterval;
  }

  /** The file name of the by-id link that udev's EBS rule creates for a volume. */
  public static String byIdName(String volumeId) {
    return BY_ID_PREFIX + VolumeIds.serialForm(volumeId);
  }

  /** The real host: {@code /dev/disk/by-id}, {@code /sys/block}, {@code /dev}, NVMe serials from sysfs. */
  public static VolumeDeviceLocator forHost(Duration wait) {
    var sysBlock = Path.of("/sys/block");
    return new VolumeDeviceLocator(Path.of("/dev/disk/by-id"), sysBlock, Path.of("/dev"),
        new NvmeSerialReader(sysBlock), wait, Duration.ofMillis(100));
  }

  /**
   * The device of the volume, waiting for it to appear.
   *
   * @return the resolved device path (no symlink)
   * @throws DriverException Unavailable when no device of this volume appeared in time (the caller retries)
   */
  public Path locate(String volumeId, Map<String, String> publishContext) {
    var devicePath = devicePath(publishContext.getOrDefault(DEVICE_PATH, ""));
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      var searched = new ArrayList<String>();
      var found = findOnce(volumeId, devicePath, searched);
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

  /**
   * The device to use for the volume: the whole device, or the partition the volume context names
   * ({@link #PARTITION_KEY}), found among the whole device's partitions in sysfs, so it is provably the volume's too.
   *
   * @throws DriverException InvalidArgument naming {@code volume_context.partition} when it is not a partition number;
   *     FailedPrecondition when the device has no such partition
   */
  public Path locate(String volumeId, Map<String, String> publishContext, Map<String, String> volumeContext) {
    var partition = partition(volumeContext);
    var device = locate(volumeId, publishContext);
    if (partition == 0) {
      return device;
    }
    var name = device.getFileName().toString();
    try (Stream<Path> children = Files.list(sysBlock.resolve(name))) {
      for (var child : children.toList()) {
        var number = child.resolve("partition");
        if (Files.isRegularFile(number) && Files.readString(number).strip().equals(Integer.toString(partition))) {
          var partitionDevice = devDirectory.resolve(child.getFileName().toString());
          if (Files.exists(partitionDevice)) {
            return partitionDevice;
          }
        }
      }
    } catch (IOException e) {
      LOG.warn("cannot list the partitions of {}: {}", device, e.getMessage());
    }
    throw DriverException.failedPrecondition("volume " + volumeId + " (" + device + ") has no partition "
        + partition + " (volume_context." + PARTITION_KEY + "); check the PersistentVolume's volumeAttributes and "
        + "the disk's partition table");
  }

  /**
   * The partition number the volume context names; 0 for the whole device. Upstream ignores {@code "0"} and appends
   * any other value to the device name; a value that is not a number here is refused instead of failing at mount.
   */
  static int partition(Map<String, String> volumeContext) {
    var value = volumeContext.getOrDefault(PARTITION_KEY, "").strip();
    if (value.isEmpty()) {
      return 0;
    }
    if (!value.matches("\\d{1,4}")) {
      throw DriverException.invalidArgument("volume_context." + PARTITION_KEY, "volume_context." + PARTITION_KEY
          + " must be a partition number such as \"1\" (\"0\" or empty: the whole device), got \""
          + (value.length() > 32 ? value.substring(0, 32) + "..." : value) + "\"");
    }
    return Integer.parseInt(value);
  }

  /**
   * The publish context's device path, if any: absolute, clean and inside {@code /dev} (as EC2's device names are) or
   * the by-id directory (the loop backend's links).
   *
   * @throws DriverException InvalidArgument naming {@code publish_context.devicePath} otherwise
   */
  private Optional<Path> devicePath(String value) {
    if (value.isEmpty()) {
      return Optional.empty();
    }
    if (value.length() > 256 || value.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
      throw DriverException.invalidArgument("publish_context." + DEVICE_PATH, "publish_context."
          + DEVICE_PATH + " must be a device path such as /dev/xvdba (printable, at most 256 characters)");
    }
    Path path;
    try {
      path = Path.of(value);
    } catch (InvalidPathException e) {
      throw DriverException.invalidArgument("publish_context." + DEVICE_PATH, "publish_context."
          + DEVICE_PATH + " is not a path");
    }
    boolean inside = (path.startsWith(devDirectory) && !path.equals(devDirectory))
        || (path.startsWith(byIdDirectory) && !path.equals(byIdDirectory));
    if (!path.isAbsolute() || !path.normalize().equals(path) || !inside) {
      throw DriverException.invalidArgument("publish_context." + DEVICE_PATH, "publish_context."
          + DEVICE_PATH + " " + value + " is not a device path inside " + devDirectory + " (or the by-id links "
          + byIdDirectory + ") such as " + devDirectory.resolve("xvdba"));
    }
    return Optional.of(path);
  }

  /** The kernel name ({@code nvme1n1}, {@code loop3}) of the block device with this {@code major:minor}. */
  public Optional<String> kernelNameOf(String deviceNumber) {
    if (!deviceNumber.matches("\\d{1,10}:\\d{1,10}")) {
      return Optional.empty();
    }
    try {
      return Optional.of(sysDevBlock.resolve(deviceNumber).toRealPath().getFileName().toString());
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * Whether the block device with this {@code major:minor} (mountinfo's device field, a device file's rdev) is
   * provably this volume's: its identity names the volume, or it is a device that cannot have one (Xen).
   */
  public boolean isDeviceOf(String deviceNumber, String volumeId) {
    return wholeDeviceOf(deviceNumber).map(name -> provablyOf(name, volumeId)).orElse(false);
  }

  /**
   * The kernel name of the whole device for this {@code major:minor}: the device itself, or the disk a partition
   * belongs to (a partition has no identity of its own; its disk's names the volume).
   */
  private Optional<String> wholeDeviceOf(String deviceNumber) {
    var name = kernelNameOf(deviceNumber);
    if (name.isEmpty() || !Files.isRegularFile(sysDevBlock.resolve(deviceNumber).resolve("partition"))) {
      return name;
    }
    try {
      return Optional.of(sysDevBlock.resolve(deviceNumber).toRealPath().getParent().getFileName().toString());
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** What the device with this {@code major:minor} is, for messages: its name and identity. */
  public String describe(String deviceNumber) {
    return kernelNameOf(deviceNumber)
        .map(name -> name + identities.identityOf(name).map(identity -> " (" + identity + ")")
            .orElse(" (no volume identity)"))
        .orElse("device " + deviceNumber + " (not a block device of this host)");
  }

  private boolean provablyOf(String kernelName, String volumeId) {
    return identities.identityOf(kernelName).map(identity -> VolumeIds.matches(identity, volumeId))
        .orElseGet(() -> acceptedWithoutIdentity.test(kernelName));
  }

  private Optional<Path> findOnce(String volumeId, Optional<Path> devicePath, List<String> searched) {
    if (devicePath.isPresent()) {
      var candidate = verified(devicePath.get(), volumeId, "publish_context devicePath", searched);
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
   * The candidate's real path if it exists and is provably the volume's. A device without a readable identity is
   * accepted only when it cannot have one (Xen {@code xvd} disks have no serial; upstream accepts those too).
   */
  private Optional<Path> verified(Path candidate, String volumeId, String source, List<String> searched) {
    Path device;
    try {
      device = candidate.toRealPath();
    } catch (IOException e) {
      searched.add(source + " " + candidate + " (does not exist)");
      return Optional.empty();
    }
    var name = device.getFileName().toString();
    var identity = identities.identityOf(name);
    if (identity.isEmpty()) {
      if (acceptedWithoutIdentity.test(name) && device.startsWith(devDirectory)) {
        LOG.warn("using {} {} -> {} for volume {}: a Xen disk has no serial to check it against", source,
            candidate, device, volumeId);
        return Optional.of(device);
      }
      searched.add(source + " " + candidate + " -> " + device + " (refused: it has no identity that proves it is "
          + volumeId + ")");
      return Optional.empty();
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
