package io.awscsi.launcher;

import io.awscsi.core.errors.DriverException;
import io.awscsi.ebs.controller.AttachmentObserver;
import io.awscsi.ebs.local.LoopDeviceBackend;
import io.awscsi.ebs.volume.EbsIds;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Mirrors what the EBS controller did in EC2 onto the local loop-device backend (local runtime and csi-sanity). Only
 * ids of EBS shape reach the backend (whose file names derive from them). A failed attach, detach or resize fails the
 * call with UNAVAILABLE so the CO retries it; other failures to mirror are logged.
 */
final class LoopAttachmentObserver implements AttachmentObserver {

  private static final Logger LOG = LogManager.getLogger(LoopAttachmentObserver.class);

  private final LoopDeviceBackend loops;

  LoopAttachmentObserver(LoopDeviceBackend loops) {
    this.loops = loops;
  }

  @Override
  public void attached(String volumeId, String nodeId, long sizeBytes, String devicePath) {
    mirrorOrFail("attach", volumeId, () -> loops.attached(volumeId, sizeBytes));
  }

  @Override
  public void detached(String volumeId, String nodeId) {
    mirrorOrFail("detach", volumeId, () -> loops.detached(volumeId));
  }

  @Override
  public void resized(String volumeId, long sizeBytes) {
    mirrorOrFail("resize", volumeId, () -> loops.resized(volumeId, sizeBytes));
  }

  @Override
  public void deleted(String volumeId) {
    mirror("delete", volumeId, () -> loops.deleted(volumeId));
  }

  @Override
  public void snapshotCreated(String snapshotId, String sourceVolumeId) {
    if (EbsIds.isSnapshotId(snapshotId)) {
      mirror("snapshot", sourceVolumeId, () -> loops.snapshotted(snapshotId, sourceVolumeId));
    }
  }

  @Override
  public void createdFrom(String volumeId, String sourceId) {
    if (EbsIds.isVolumeId(sourceId) || EbsIds.isSnapshotId(sourceId)) {
      mirror("restore", volumeId, () -> loops.createdFrom(volumeId, sourceId));
    }
  }

  @Override
  public void snapshotDeleted(String snapshotId) {
    if (EbsIds.isSnapshotId(snapshotId)) {
      try {
        loops.snapshotDeleted(snapshotId);
      } catch (RuntimeException e) {
        LOG.warn("loop backend: could not delete the copy of snapshot {}: {}", snapshotId, e.getMessage());
      }
    }
  }

  private static void mirrorOrFail(String what, String volumeId, Runnable action) {
    if (ebsShaped(what, volumeId)) {
      try {
        action.run();
      } catch (RuntimeException e) {
        throw DriverException.unavailable("the loop-device backend could not " + what + " " + volumeId + ": "
            + e.getMessage() + "; the call will be retried", e);
      }
    }
  }

  private static void mirror(String what, String volumeId, Runnable action) {
    if (ebsShaped(what, volumeId)) {
      try {
        action.run();
      } catch (RuntimeException e) {
        LOG.warn("loop backend: could not mirror {} of {}: {}", what, volumeId, e.getMessage());
      }
    }
  }

  private static boolean ebsShaped(String what, String volumeId) {
    if (!EbsIds.isVolumeId(volumeId)) {
      LOG.warn("loop backend: not mirroring {} of {}: not an EBS volume id", what, volumeId);
      return false;
    }
    return true;
  }
}
