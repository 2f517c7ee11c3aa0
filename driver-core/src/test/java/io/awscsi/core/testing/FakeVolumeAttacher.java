package io.awscsi.core.testing;

import io.awscsi.core.provider.PublishRequest;
import io.awscsi.core.provider.VolumeAttacher;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records attach and detach calls; publish answers a fixed device path. */
public final class FakeVolumeAttacher implements VolumeAttacher {

  public static final String DEVICE_PATH = "/dev/xvdba";

  private final List<PublishRequest> published = new CopyOnWriteArrayList<>();
  private final List<String> unpublished = new CopyOnWriteArrayList<>();
  private final boolean readonly;
  private volatile CallGate gate = CallGate.opened();

  public FakeVolumeAttacher(boolean supportsReadonly) {
    this.readonly = supportsReadonly;
  }

  @Override
  public Map<String, String> publish(PublishRequest request) {
    published.add(request);
    gate.pass();
    return Map.of("devicePath", DEVICE_PATH);
  }

  @Override
  public void unpublish(String volumeId, String nodeId, Map<String, String> secrets) {
    unpublished.add(volumeId + "/" + nodeId);
    gate.pass();
  }

  @Override
  public boolean supportsReadonly() {
    return readonly;
  }

  public FakeVolumeAttacher holdAt(CallGate gate) {
    this.gate = gate;
    return this;
  }

  public List<PublishRequest> published() {
    return List.copyOf(published);
  }

  /** {@code volumeId/nodeId} of each detach. */
  public List<String> unpublished() {
    return List.copyOf(unpublished);
  }
}
