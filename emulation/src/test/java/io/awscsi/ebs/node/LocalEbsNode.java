package io.awscsi.ebs.node;

import io.awscsi.core.host.CommandRunner;
import io.awscsi.core.host.HostTools;
import io.awscsi.core.host.ScratchDisks;
import io.awscsi.core.provider.AccessMode;
import io.awscsi.core.provider.AccessType;
import io.awscsi.core.provider.CapacityRange;
import io.awscsi.core.provider.NodeExpandRequest;
import io.awscsi.core.provider.NodeInfo;
import io.awscsi.core.provider.NodePublishRequest;
import io.awscsi.core.provider.StageRequest;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.ebs.volume.PublishContextKeys;
import io.awscsi.emulation.ebs.LoopDeviceBackend;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.UnaryOperator;

/**
 * An EBS node on this machine for tests and the benchmark: the real node provider over the local loop-device
 * backend, real host tools, and kubelet-like staging and target paths under a scratch directory. Closing it unmounts
 * everything, releases every loop device and deletes every file.
 */
public final class LocalEbsNode implements AutoCloseable {

  private final ScratchDisks scratch = new ScratchDisks();
  private final LoopDeviceBackend backend;
  private final HostTools host;
  private final VolumeDeviceLocator locator;
  private final EbsNodeProvider provider;

  public LocalEbsNode(boolean legacyXfs) {
    this(legacyXfs, UnaryOperator.identity());
  }

  /** With the node's command runner wrapped, e.g. to time the host tools. */
  public LocalEbsNode(boolean legacyXfs, UnaryOperator<CommandRunner> runnerWrapper) {
    backend = LoopDeviceBackend.open(scratch.root().resolve("state"), new io.awscsi.core.host.LoopDevices(
        scratch.runner()), LoopDeviceBackend.Retention.THROW_AWAY);
    host = HostTools.over(runnerWrapper.apply(scratch.runner()));
    locator = backend.locator(Duration.ofSeconds(2));
    provider = EbsNodeProvider.create(() -> new NodeInfo("i-local", 0, Map.of()), locator, host, legacyXfs);
  }

  public static String newVolumeId() {
    var bytes = new byte[9];
    ThreadLocalRandom.current().nextBytes(bytes);
    return "vol-0" + HexFormat.of().formatHex(bytes).substring(0, 16);
  }

  public LoopDeviceBackend backend() {
    return backend;
  }

  public HostTools host() {
    return host;
  }

  public VolumeDeviceLocator locator() {
    return locator;
  }

  public EbsNodeProvider provider() {
    return provider;
  }

  public Path root() {
    return scratch.root();
  }

  /** The kubelet's staging path of a volume (not created: the driver creates it). */
  public Path stagingPath(String volumeId) {
    return scratch.root().resolve("plugins/kubernetes.io/csi/ebs.csi.aws.com").resolve(volumeId).resolve("globalmount");
  }

  /** The kubelet's publish target of a volume for one pod. */
  public Path targetPath(String volumeId, String pod) {
    return scratch.root().resolve("pods").resolve(pod).resolve("volumes/kubernetes.io~csi").resolve(volumeId)
        .resolve("mount");
  }

  public static VolumeCapability fileSystem(String fsType, String... flags) {
    return new VolumeCapability(AccessMode.SINGLE_NODE_WRITER, new AccessType.Mount(fsType, List.of(flags), ""));
  }

  public static VolumeCapability block() {
    return VolumeCapability.block(AccessMode.SINGLE_NODE_WRITER);
  }

  /** Attaches the volume (as the controller's attachment would) and returns the publish context it yields. */
  public Map<String, String> attach(String volumeId, long sizeBytes) {
    var link = backend.attached(volumeId, sizeBytes);
    return Map.of(PublishContextKeys.DEVICE_PATH, link.toString());
  }

  public void stage(String volumeId, Map<String, String> publishContext, VolumeCapability capability,
      Map<String, String> volumeContext) {
    provider.stager().orElseThrow().stage(new StageRequest(volumeId, publishContext, stagingPath(volumeId),
        capability, volumeContext, Map.of()));
  }

  public void publish(String volumeId, Map<String, String> publishContext, VolumeCapability capability,
      String pod, boolean readOnly) {
    publish(volumeId, publishContext, capability, pod, readOnly, Map.of());
  }

  public void publish(String volumeId, Map<String, String> publishContext, VolumeCapability capability,
      String pod, boolean readOnly, Map<String, String> volumeContext) {
    provider.publisher().publish(new NodePublishRequest(volumeId, publishContext, stagingPath(volumeId),
        targetPath(volumeId, pod), capability, readOnly, volumeContext, Map.of()));
  }

  public void unpublish(String volumeId, String pod) {
    provider.publisher().unpublish(volumeId, targetPath(volumeId, pod));
  }

  public void unstage(String volumeId) {
    provider.stager().orElseThrow().unstage(volumeId, stagingPath(volumeId));
  }

  public long expand(String volumeId, Path volumePath, long requiredBytes) {
    return provider.expander().orElseThrow().expand(new NodeExpandRequest(volumeId, volumePath,
        stagingPath(volumeId), new CapacityRange(requiredBytes, 0), null));
  }

  @Override
  public void close() {
    try {
      scratch.unmountAll();
    } finally {
      try {
        backend.close();
      } finally {
        scratch.close();
      }
    }
  }
}
