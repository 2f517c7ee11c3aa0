package io.awscsi.realism.ec2;

import io.awscsi.realism.proxy.QueryParams;

/** The modifiable configuration of a volume; {@code iops} and {@code throughput} are null when not reported. */
public record VolumeConfig(int size, String volumeType, Integer iops, Integer throughput, boolean multiAttach) {

  /** This configuration with the changes a ModifyVolume request asks for. */
  public VolumeConfig modifiedBy(QueryParams params) {
    return new VolumeConfig(
        params.get("Size").map(Integer::parseInt).orElse(size),
        params.get("VolumeType").orElse(volumeType),
        params.get("Iops").map(Integer::valueOf).orElse(iops),
        params.get("Throughput").map(Integer::valueOf).orElse(throughput),
        params.get("MultiAttachEnabled").map(Boolean::parseBoolean).orElse(multiAttach));
  }
}
