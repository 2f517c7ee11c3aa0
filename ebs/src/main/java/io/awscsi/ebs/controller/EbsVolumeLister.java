package io.awscsi.ebs.controller;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.CallDeadline;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.Page;
import io.awscsi.core.provider.PublishedVolume;
import io.awscsi.core.provider.Volume;
import io.awscsi.core.provider.VolumeLister;
import io.awscsi.core.provider.VolumeSource;
import io.awscsi.ebs.cloud.Attachment;
import io.awscsi.ebs.cloud.Disk;
import io.awscsi.ebs.cloud.EbsCloud;
import io.awscsi.ebs.cloud.ListChunk;
import java.util.Map;

/**
 * ListVolumes with the nodes each volume is attached to, and ControllerGetVolume: what the external-attacher needs
 * to reconcile VolumeAttachments with EC2 (beyond upstream, which implements neither). Every volume of the account
 * and region is listed, statically provisioned ones included, since the attacher reconciles those too.
 */
final class EbsVolumeLister implements VolumeLister {

  private final EbsCloud ec2;
  private final EbsControllerOptions options;

  EbsVolumeLister(EbsCloud ec2, EbsControllerOptions options) {
    this.ec2 = ec2;
    this.options = options;
  }

  @Override
  public Page<PublishedVolume> listVolumes(int maxEntries, String startingToken) {
    CallDeadline deadline = CallDeadlines.current(options.defaultCallTimeout());
    ListTokens.Position at = ListTokens.decode(startingToken);
    try {
      ListChunk<Disk> chunk;
      try {
        chunk = ec2.listDisks(ListTokens.ec2PageSize(maxEntries, 5, 500), at.ec2Token(), deadline);
      } catch (AwsCallException e) {
        if (e.error() instanceof AwsCallError.InvalidRequest && !at.ec2Token().isEmpty()) {
          throw ListTokens.invalid(startingToken);
        }
        throw e;
      }
      return EbsSnapshotManager.page(chunk, at, maxEntries, startingToken).map(EbsVolumeLister::published);
    } catch (AwsCallException e) {
      throw Ec2Failures.toDriver(e, "ListVolumes");
    }
  }

  @Override
  public PublishedVolume getVolume(String volumeId) {
    CallDeadline deadline = CallDeadlines.current(options.defaultCallTimeout());
    try {
      return published(ec2.disk(volumeId, deadline)
          .orElseThrow(() -> DriverException.notFound("volume " + volumeId + " does not exist")));
    } catch (AwsCallException e) {
      throw Ec2Failures.toDriver(e, "ControllerGetVolume " + volumeId);
    }
  }

  static PublishedVolume published(Disk disk) {
    Volume volume = new Volume(disk.volumeId(), disk.sizeBytes(), Map.of(), ZoneSelector.accessibleTopology(
        disk.zone(), disk.outpostArn()), new VolumeSource.Empty());
    return new PublishedVolume(volume, disk.attachments().stream()
        .filter(a -> a.state() == Attachment.State.ATTACHED).map(Attachment::instanceId).toList());
  }
}
