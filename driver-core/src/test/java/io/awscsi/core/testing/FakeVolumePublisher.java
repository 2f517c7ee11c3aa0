package io.awscsi.core.testing;

import io.awscsi.core.provider.NodePublishRequest;
import io.awscsi.core.provider.VolumePublisher;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records publish and unpublish calls without touching the host. */
public final class FakeVolumePublisher implements VolumePublisher {

  private final List<NodePublishRequest> published = new CopyOnWriteArrayList<>();
  private final List<Path> unpublished = new CopyOnWriteArrayList<>();
  private volatile CallGate gate = CallGate.opened();

  @Override
  public void publish(NodePublishRequest request) {
    published.add(request);
    gate.pass();
  }

  @Override
  public void unpublish(String volumeId, Path targetPath) {
    unpublished.add(targetPath);
    gate.pass();
  }

  public FakeVolumePublisher holdAt(CallGate gate) {
    this.gate = gate;
    return this;
  }

  public List<NodePublishRequest> published() {
    return List.copyOf(published);
  }

  public List<Path> unpublished() {
    return List.copyOf(unpublished);
  }
}
