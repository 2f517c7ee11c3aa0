package io.awscsi.ebs.node;

import io.awscsi.core.host.HostTools;
import io.awscsi.core.provider.IdSyntax;
import io.awscsi.core.provider.NodeInfo;
import io.awscsi.core.provider.NodeProvider;
import io.awscsi.core.provider.NodeVolumeExpander;
import io.awscsi.core.provider.Readiness;
import io.awscsi.core.provider.VolumePublisher;
import io.awscsi.core.provider.VolumeStager;
import io.awscsi.core.provider.VolumeStatsReader;
import io.awscsi.ebs.volume.EbsIds;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The node side of {@code ebs.csi.aws.com}: staging, publishing, expansion and stats of EBS volumes on this host.
 * Node identity (NodeGetInfo) comes from the instance metadata and is handed in.
 */
public final class EbsNodeProvider implements NodeProvider {

  private final Supplier<NodeInfo> nodeInfo;
  private final EbsVolumeStager stager;
  private final EbsVolumePublisher publisher;
  private final EbsNodeVolumeExpander expander;
  private final EbsVolumeStatsReader stats;

  public EbsNodeProvider(Supplier<NodeInfo> nodeInfo, EbsVolumeStager stager, EbsVolumePublisher publisher,
      EbsNodeVolumeExpander expander, EbsVolumeStatsReader stats) {
    this.nodeInfo = nodeInfo;
    this.stager = stager;
    this.publisher = publisher;
    this.expander = expander;
    this.stats = stats;
  }

  /**
   * All node parts over one locator and one set of host tools.
   *
   * @param legacyXfs make xfs file systems that kernels up to 5.4 can mount ({@code --legacy-xfs})
   */
  public static EbsNodeProvider create(Supplier<NodeInfo> nodeInfo, VolumeDeviceLocator locator, HostTools host,
      boolean legacyXfs) {
    return new EbsNodeProvider(nodeInfo,
        new EbsVolumeStager(locator, host, legacyXfs),
        new EbsVolumePublisher(locator, host),
        new EbsNodeVolumeExpander(locator, host, Duration.ofSeconds(15), Duration.ofMillis(200)),
        new EbsVolumeStatsReader(locator, host));
  }

  @Override
  public NodeInfo nodeInfo() {
    return nodeInfo.get();
  }

  @Override
  public VolumePublisher publisher() {
    return publisher;
  }

  @Override
  public Optional<VolumeStager> stager() {
    return Optional.of(stager);
  }

  @Override
  public Optional<NodeVolumeExpander> expander() {
    return Optional.of(expander);
  }

  @Override
  public Optional<VolumeStatsReader> stats() {
    return Optional.of(stats);
  }

  @Override
  public IdSyntax ids() {
    return EbsIds.SYNTAX;
  }

  @Override
  public Readiness readiness() {
    return Readiness.ready();
  }
}
