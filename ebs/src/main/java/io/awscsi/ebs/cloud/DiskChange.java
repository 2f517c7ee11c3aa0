package io.awscsi.ebs.cloud;

/** A ModifyVolume target: 0 or an empty string leaves that property as it is. */
public record DiskChange(int sizeGiB, String volumeType, int iops, int throughput) {

  public DiskChange {
    volumeType = volumeType == null ? "" : volumeType;
  }

  public boolean isEmpty() {
    return sizeGiB == 0 && volumeType.isEmpty() && iops == 0 && throughput == 0;
  }
}
