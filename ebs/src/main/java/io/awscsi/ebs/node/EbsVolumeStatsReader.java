package io.awscsi.ebs.node;

import io.awscsi.core.host.HostTools;
import io.awscsi.core.provider.VolumeStats;
import io.awscsi.core.provider.VolumeStatsReader;
import java.nio.file.Path;

/** NodeGetVolumeStats for EBS: bytes and inodes of a mounted file system, the size of a block volume. */
public final class EbsVolumeStatsReader implements VolumeStatsReader {

  private final HostTools host;
  private final PublishedVolumes published;

  public EbsVolumeStatsReader(VolumeDeviceLocator locator, HostTools host) {
    this.host = host;
    this.published = new PublishedVolumes(host.mounter(), locator);
  }

  @Override
  public VolumeStats stats(String volumeId, Path volumePath) {
    var path = NodeRequests.cleanPath(volumePath, "volume_path");
    return HostFailures.call("reading the stats of volume " + volumeId + " at " + path,
        () -> switch (published.at(volumeId, path, "volume_path")) {
          case PublishedVolumes.Published.Block(Path deviceFile) ->
              new VolumeStats.Block(host.stats().deviceSize(deviceFile));
          case PublishedVolumes.Published.FileSystem fileSystem -> {
            var usage = host.stats().usage(path);
            yield new VolumeStats.FileSystem(usage.totalBytes(), usage.usedBytes(), usage.availableBytes(),
                usage.totalInodes(), usage.usedInodes(), usage.freeInodes());
          }
        });
  }
}
