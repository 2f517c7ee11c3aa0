package io.awscsi.core.testing;

import io.awscsi.core.provider.ControllerProvider;
import io.awscsi.core.provider.GroupSnapshotManager;
import io.awscsi.core.provider.IdSyntax;
import io.awscsi.core.provider.Readiness;
import io.awscsi.core.provider.SnapshotManager;
import io.awscsi.core.provider.VolumeAttacher;
import io.awscsi.core.provider.VolumeExpander;
import io.awscsi.core.provider.VolumeLister;
import io.awscsi.core.provider.VolumeModifier;
import io.awscsi.core.provider.VolumeProvisioner;
import java.util.Optional;

/** A controller made of the parts a test hands it; parts left out are absent, so their capabilities are too. */
public final class FakeControllerProvider implements ControllerProvider {

  private final VolumeProvisioner provisioner;
  private VolumeAttacher attacher;
  private VolumeExpander expander;
  private VolumeModifier modifier;
  private SnapshotManager snapshots;
  private VolumeLister lister;
  private GroupSnapshotManager groupSnapshots;
  private volatile Readiness readiness = Readiness.ready();
  private IdSyntax ids = IdSyntax.ANY;

  public FakeControllerProvider(VolumeProvisioner provisioner) {
    this.provisioner = provisioner;
  }

  public FakeControllerProvider() {
    this(new FakeVolumeProvisioner());
  }

  public FakeControllerProvider withAttacher(VolumeAttacher attacher) {
    this.attacher = attacher;
    return this;
  }

  public FakeControllerProvider withExpander(VolumeExpander expander) {
    this.expander = expander;
    return this;
  }

  public FakeControllerProvider withModifier(VolumeModifier modifier) {
    this.modifier = modifier;
    return this;
  }

  public FakeControllerProvider withSnapshots(SnapshotManager snapshots) {
    this.snapshots = snapshots;
    return this;
  }

  public FakeControllerProvider withGroupSnapshots(GroupSnapshotManager groupSnapshots) {
    this.groupSnapshots = groupSnapshots;
    return this;
  }

  @Override
  public Optional<GroupSnapshotManager> groupSnapshots() {
    return Optional.ofNullable(groupSnapshots);
  }

  public FakeControllerProvider withLister(VolumeLister lister) {
    this.lister = lister;
    return this;
  }

  /** Readiness answered from now on (Probe, /healthz). */
  public FakeControllerProvider readiness(Readiness readiness) {
    this.readiness = readiness;
    return this;
  }

  /** The id shapes driver-core checks at the edge from now on. */
  public FakeControllerProvider withIds(IdSyntax syntax) {
    this.ids = syntax;
    return this;
  }

  @Override
  public IdSyntax ids() {
    return ids;
  }

  @Override
  public VolumeProvisioner provisioner() {
    return provisioner;
  }

  @Override
  public Optional<VolumeAttacher> attacher() {
    return Optional.ofNullable(attacher);
  }

  @Override
  public Optional<VolumeExpander> expander() {
    return Optional.ofNullable(expander);
  }

  @Override
  public Optional<VolumeModifier> modifier() {
    return Optional.ofNullable(modifier);
  }

  @Override
  public Optional<SnapshotManager> snapshots() {
    return Optional.ofNullable(snapshots);
  }

  @Override
  public Optional<VolumeLister> lister() {
    return Optional.ofNullable(lister);
  }

  @Override
  public Readiness readiness() {
    return readiness;
  }
}
