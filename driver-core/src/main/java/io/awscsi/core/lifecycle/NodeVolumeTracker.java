package io.awscsi.core.lifecycle;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What this node process has done to each volume since it started: its lifecycle state, the staging path with the
 * arguments it was staged with, and each published target with its arguments. Arguments are compared as opaque
 * fingerprints made by the caller. A volume it has never seen is UNKNOWN, so the provider checks the host itself.
 * An unstaged volume stays known as NODE_READY: one small entry per volume this node has staged since it started.
 */
public final class NodeVolumeTracker {

  private record Entry(VolumeState state, String stagingPath, String stageFingerprint, Map<String, String> targets) {}

  private final VolumeLifecycle lifecycle;
  private final Map<String, Entry> volumes = new ConcurrentHashMap<>();

  public NodeVolumeTracker(VolumeLifecycle lifecycle) {
    this.lifecycle = lifecycle;
  }

  public VolumeState state(String volumeId) {
    Entry e = volumes.get(volumeId);
    return e == null ? VolumeState.UNKNOWN : e.state();
  }

  /** The volume this process staged at {@code path} and has not unstaged, if any. */
  public Optional<String> stagedAt(String path) {
    return volumes.entrySet().stream().filter(e -> path.equals(e.getValue().stagingPath())).map(Map.Entry::getKey)
        .findFirst();
  }

  /** Decides a call; {@code path} is the staging path for NODE_STAGE/UNSTAGE and the target path otherwise. */
  public Decision decide(Operation op, String volumeId, String path, String fingerprint) {
    return lifecycle.decide(state(volumeId), op, repeat(op, volumeId, path, fingerprint), volumeId);
  }

  private Repeat repeat(Operation op, String volumeId, String path, String fingerprint) {
    Entry e = volumes.get(volumeId);
    if (e == null) {
      return Repeat.FIRST;
    }
    return switch (op) {
      case NODE_STAGE -> e.stagingPath() == null ? Repeat.FIRST
          : e.stagingPath().equals(path) && e.stageFingerprint().equals(fingerprint) ? Repeat.SAME : Repeat.CONFLICTING;
      case NODE_PUBLISH -> {
        String known = e.targets().get(path);
        yield known == null ? Repeat.FIRST : known.equals(fingerprint) ? Repeat.SAME : Repeat.CONFLICTING;
      }
      default -> Repeat.FIRST;
    };
  }

  /** Records a call that succeeded. */
  public void succeeded(Operation op, String volumeId, String path, String fingerprint) {
    volumes.compute(volumeId, (id, old) -> {
      Entry e = old != null ? old : new Entry(VolumeState.NODE_READY, null, null, Map.of());
      Map<String, String> targets = new HashMap<>(e.targets());
      return switch (op) {
        case NODE_STAGE -> new Entry(VolumeState.VOL_READY, path, fingerprint, targets);
        case NODE_PUBLISH -> {
          targets.put(path, fingerprint);
          yield new Entry(VolumeState.PUBLISHED, e.stagingPath(), e.stageFingerprint(), Map.copyOf(targets));
        }
        case NODE_UNPUBLISH -> {
          targets.remove(path);
          VolumeState next = !targets.isEmpty() ? VolumeState.PUBLISHED
              : lifecycle.stagingRequired() && e.stagingPath() != null ? VolumeState.VOL_READY : VolumeState.NODE_READY;
          yield next == VolumeState.NODE_READY && targets.isEmpty() && e.stagingPath() == null
              ? null : new Entry(next, e.stagingPath(), e.stageFingerprint(), Map.copyOf(targets));
        }
        // Keep an unstaged volume as NODE_READY (no staging path, no targets): the next stage is a fresh start, and a
        // NodePublish before it is refused instead of bind-mounting an empty staging directory.
        case NODE_UNSTAGE -> new Entry(VolumeState.NODE_READY, null, null, Map.of());
      };
    });
  }
}
