package io.awscsi.ebs.node;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.HostTools;
import io.awscsi.core.host.OnlineResizeNotPermittedException;
import io.awscsi.core.provider.NodeExpandRequest;
import io.awscsi.core.provider.NodeVolumeExpander;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * NodeExpandVolume for EBS: after EC2 enlarged the volume, grow its mounted file system to the device's new size
 * (resize2fs or xfs_growfs, online). Block volumes need nothing. Returns the device size.
 */
public final class EbsNodeVolumeExpander implements NodeVolumeExpander {

  private static final Logger LOG = LogManager.getLogger(EbsNodeVolumeExpander.class);

  private final HostTools host;
  private final PublishedVolumes published;
  private final Duration growthWait;
  private final Duration pollInterval;

  /**
   * @param growthWait how long to wait for the device to reach the requested size (NVMe reports a resize a moment
   *     after EC2 finishes it)
   */
  public EbsNodeVolumeExpander(VolumeDeviceLocator locator, HostTools host, Duration growthWait,
      Duration pollInterval) {
    this.host = host;
    this.published = new PublishedVolumes(host.mounter(), locator);
    this.growthWait = growthWait;
    this.pollInterval = pollInterval;
  }

  @Override
  public long expand(NodeExpandRequest request) {
    var volumePath = NodeRequests.cleanPath(request.volumePath(), "volume_path");
    var volumeId = request.volumeId();
    var action = "expanding volume " + volumeId + " at " + volumePath;
    return HostFailures.call(action, () -> switch (published.at(volumeId, volumePath, "volume_path")) {
      case PublishedVolumes.Published.Block(Path deviceFile) -> host.stats().deviceSize(deviceFile);
      case PublishedVolumes.Published.FileSystem(var mount, Path device) -> {
        long deviceSize = awaitDeviceSize(volumeId, device, request.capacity().requiredBytes());
        if (host.resizer().needsResize(device, volumePath, mount.fsType())) {
          try {
            host.resizer().resizeOnline(device, volumePath, mount.fsType());
          } catch (OnlineResizeNotPermittedException e) {
            throw DriverException.failedPrecondition("volume " + volumeId + " cannot be expanded while published: "
                + e.getMessage());
          }
          LOG.info("NodeExpandVolume: grew {} ({} {}) at {} to {} bytes", volumeId, device, mount.fsType(),
              volumePath, deviceSize);
        }
        yield deviceSize;
      }
    });
  }

  /** The device's size once it is at least the required size; Unavailable (retry) if it does not get there. */
  private long awaitDeviceSize(String volumeId, Path device, long requiredBytes) {
    long deadline = System.nanoTime() + growthWait.toNanos();
    while (true) {
      long size = host.stats().deviceSize(device);
      if (size >= requiredBytes) {
        return size;
      }
      if (System.nanoTime() >= deadline) {
        throw DriverException.unavailable("device " + device + " of volume " + volumeId + " is " + size
            + " bytes, less than the requested " + requiredBytes + " after waiting " + growthWait
            + "; the EC2 modification may still be in progress (the call is retried)");
      }
      try {
        Thread.sleep(pollInterval);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw DriverException.aborted("interrupted while waiting for volume " + volumeId + " to grow");
      }
    }
  }
}
