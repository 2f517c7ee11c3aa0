package io.awscsi.core.testing;

import io.awscsi.core.provider.IdSyntax;
import io.awscsi.core.provider.NodeInfo;
import io.awscsi.core.provider.NodeProvider;
import io.awscsi.core.provider.NodeVolumeExpander;
import io.awscsi.core.provider.Readiness;
import io.awscsi.core.provider.VolumePublisher;
import io.awscsi.core.provider.VolumeStager;
import io.awscsi.core.provider.VolumeStatsReader;
import java.util.Map;
import java.util.Optional;

/** A node made of the parts a test hands it; parts left out are absent, so their capabilities are too. */
public final class FakeNodeProvider implements NodeProvider {

  public static final NodeInfo NODE = new NodeInfo("i-0123456789abcdef0", 25,
      Map.of("topology.ebs.csi.aws.com/zone", "us-east-1a"));

  private final VolumePublisher publisher;
  private VolumeStager stager;
  private NodeVolumeExpander expander;
  private VolumeStatsReader stats;
  private boolean volumeMountGroup;
  private IdSyntax ids = IdSyntax.ANY;
  private volatile Readiness readiness = Readiness.ready();

  public FakeNodeProvider(VolumePublisher publisher) {
    this.publisher = publisher;
  }

  public FakeNodeProvider() {
    this(new FakeVolumePublisher());
  }

  public FakeNodeProvider withStager(VolumeStager stager) {
    this.stager = stager;
    return this;
  }

  public FakeNodeProvider withExpander(NodeVolumeExpander expander) {
    this.expander = expander;
    return this;
  }

  public FakeNodeProvider withStats(VolumeStatsReader stats) {
    this.stats = stats;
    return this;
  }

  public FakeNodeProvider withIds(IdSyntax ids) {
    this.ids = ids;
    return this;
  }

  @Override
  public IdSyntax ids() {
    return ids;
  }

  public FakeNodeProvider withVolumeMountGroup() {
    this.volumeMountGroup = true;
    return this;
  }

  public FakeNodeProvider readiness(Readiness readiness) {
    this.readiness = readiness;
    return this;
  }

  @Override
  public NodeInfo nodeInfo() {
    return NODE;
  }

  @Override
  public VolumePublisher publisher() {
    return publisher;
  }

  @Override
  public Optional<VolumeStager> stager() {
    return Optional.ofNullable(stager);
  }

  @Override
  public Optional<NodeVolumeExpander> expander() {
    return Optional.ofNullable(expander);
  }

  @Override
  public Optional<VolumeStatsReader> stats() {
    return Optional.ofNullable(stats);
  }

  @Override
  public boolean supportsVolumeMountGroup() {
    return volumeMountGroup;
  }

  @Override
  public Readiness readiness() {
    return readiness;
  }
}
