package io.awscsi.core.testing;

import io.awscsi.core.provider.StageRequest;
import io.awscsi.core.provider.VolumeStager;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records stage and unstage calls without touching the host. */
public final class FakeVolumeStager implements VolumeStager {

  private final List<StageRequest> staged = new CopyOnWriteArrayList<>();
  private final List<Path> unstaged = new CopyOnWriteArrayList<>();
  private volatile CallGate gate = CallGate.opened();

  @Override
  public void stage(StageRequest request) {
    staged.add(request);
    gate.pass();
  }

  @Override
  public void unstage(String volumeId, Path stagingPath) {
    unstaged.add(stagingPath);
    gate.pass();
  }

  public FakeVolumeStager holdAt(CallGate gate) {
    this.gate = gate;
    return this;
  }

  public List<StageRequest> staged() {
    return List.copyOf(staged);
  }

  public List<Path> unstaged() {
    return List.copyOf(unstaged);
  }
}
