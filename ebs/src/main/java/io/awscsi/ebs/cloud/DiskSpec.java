package io.awscsi.ebs.cloud;

import java.util.Map;

/**
 * What to create: a new volume (optionally from {@code snapshotId}) or, with {@code sourceVolumeId}, a copy of an
 * existing volume (EC2 CopyVolumes: same zone as the source). 0 for {@code iops}, {@code throughput} and
 * {@code initializationRate} means "EC2's default"; empty strings mean "not set" ({@code outpostArn}: in the
 * region; a copy stays where its source is).
 */
public record DiskSpec(
    int sizeGiB,
    String volumeType,
    int iops,
    int throughput,
    boolean encrypted,
    String kmsKeyId,
    String zone,
    String zoneId,
    String outpostArn,
    String snapshotId,
    String sourceVolumeId,
    boolean multiAttach,
    int initializationRate,
    Map<String, String> tags) {

  public DiskSpec {
    kmsKeyId = kmsKeyId == null ? "" : kmsKeyId;
    zone = zone == null ? "" : zone;
    zoneId = zoneId == null ? "" : zoneId;
    outpostArn = outpostArn == null ? "" : outpostArn;
    snapshotId = snapshotId == null ? "" : snapshotId;
    sourceVolumeId = sourceVolumeId == null ? "" : sourceVolumeId;
    tags = Map.copyOf(tags);
  }

  public boolean isCopy() {
    return !sourceVolumeId.isEmpty();
  }
}
