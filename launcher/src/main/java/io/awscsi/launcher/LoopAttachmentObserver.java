package io.awscsi.launcher;

import io.awscsi.ebs.controller.AttachmentObserver;
import io.awscsi.ebs.local.LoopDeviceBackend;

/** Mirrors what the EBS controller did in EC2 onto the local loop-device backend (local runtime and csi-sanity). */
final class LoopAttachmentObserver implements AttachmentObserver {

  private final LoopDeviceBackend loops;

  LoopAttachmentObserver(LoopDeviceBackend loops) {
    this.loops = loops;
  }

  @Override
  public void attached(String volumeId, String nodeId, long sizeBytes, String devicePath) {
    loops.attached(volumeId, sizeBytes);
  }

  @Override
  public void detached(String volumeId, String nodeId) {
    loops.detached(volumeId);
  }

  @Override
  public void resized(String volumeId, long sizeBytes) {
    loops.resized(volumeId, sizeBytes);
  }

  @Override
  public void deleted(String volumeId) {
    loops.deleted(volumeId);
  }
}
