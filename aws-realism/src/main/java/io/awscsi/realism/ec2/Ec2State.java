package io.awscsi.realism.ec2;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The proxy's overlay on moto's EC2 state: what is still in progress (creations, attachments, detachments,
 * modifications, snapshots), which ClientTokens were used, and which attachments tests hold. moto holds the final
 * state; this holds the way there. Thread-safe.
 */
public final class Ec2State {

  private final Map<String, VolumeCreation> creations = new HashMap<>();
  private final Map<String, VolumeInitializationProgress> initializations = new HashMap<>();
  private final Map<String, String> copySources = new HashMap<>();
  private final Map<String, List<Attachment>> attachments = new HashMap<>();
  private final Map<String, List<VolumeModification>> modifications = new HashMap<>();
  private final Map<String, SnapshotProgress> snapshots = new HashMap<>();
  private final Map<String, ClientTokenRecord> clientTokens = new HashMap<>();
  private final Set<String> heldVolumes = new HashSet<>();
  /** The Outpost of each volume, snapshot, subnet and instance made on one, by id (moto knows no Outposts). */
  private final Map<String, String> outposts = new HashMap<>();

  public synchronized void reset() {
    creations.clear();
    initializations.clear();
    copySources.clear();
    attachments.clear();
    modifications.clear();
    snapshots.clear();
    clientTokens.clear();
    heldVolumes.clear();
    outposts.clear();
  }

  /** Records that the volume, snapshot, subnet or instance {@code resourceId} is on the Outpost {@code outpostArn}. */
  public synchronized void placeOnOutpost(String resourceId, String outpostArn) {
    outposts.put(resourceId, outpostArn);
  }

  /** The Outpost ARN of a resource made on one; empty for one in the region. */
  public synchronized Optional<String> outpost(String resourceId) {
    return Optional.ofNullable(outposts.get(resourceId));
  }

  public synchronized void addCreation(VolumeCreation creation) {
    creations.put(creation.volumeId(), creation);
  }

  public synchronized boolean creating(String volumeId, Instant now) {
    VolumeCreation creation = creations.get(volumeId);
    return creation != null && creation.creating(now);
  }

  public synchronized void addInitialization(VolumeInitializationProgress initialization) {
    initializations.put(initialization.volumeId(), initialization);
  }

  /** The volume's initialization when it was created from a snapshot or copied through the proxy. */
  public synchronized Optional<VolumeInitializationProgress> initialization(String volumeId) {
    return Optional.ofNullable(initializations.get(volumeId));
  }

  public synchronized void addCopySource(String volumeId, String sourceVolumeId) {
    copySources.put(volumeId, sourceVolumeId);
  }

  public synchronized Optional<String> copySource(String volumeId) {
    return Optional.ofNullable(copySources.get(volumeId));
  }

  /**
   * Attachments of a volume that are not fully detached yet. Detached ones are kept (see {@link #detached}) until the
   * volume is deleted or the instance attaches it again.
   */
  public synchronized List<Attachment> attachments(String volumeId, Instant now) {
    List<Attachment> list = attachments.getOrDefault(volumeId, List.of());
    return list.stream().filter(a -> a.state(now) != AttachmentState.DETACHED).toList();
  }

  public synchronized List<Attachment> attachmentsOnInstance(String instanceId, Instant now) {
    return attachments.values().stream().flatMap(List::stream)
        .filter(a -> a.instanceId().equals(instanceId) && a.state(now) != AttachmentState.DETACHED)
        .toList();
  }

  /**
   * True when the last attachment of this volume to this instance made through the proxy is fully detached; moto may
   * still list it (it keeps a multi-attached volume's older attachments in the instance's block device mapping).
   */
  public synchronized boolean detached(String volumeId, String instanceId, Instant now) {
    return attachments.getOrDefault(volumeId, List.of()).stream()
        .anyMatch(a -> a.instanceId().equals(instanceId) && a.state(now) == AttachmentState.DETACHED);
  }

  public synchronized Optional<Attachment> attachment(String volumeId, String instanceId, Instant now) {
    return attachments(volumeId, now).stream().filter(a -> a.instanceId().equals(instanceId)).findFirst();
  }

  /** Adds or replaces the attachment of this volume to this instance; a held volume's attachment stays attaching. */
  public synchronized Attachment putAttachment(Attachment attachment) {
    Attachment stored = heldVolumes.contains(attachment.volumeId()) && attachment.detachStartedAt() == null
        ? attachment.held() : attachment;
    var list = new ArrayList<>(attachments.getOrDefault(attachment.volumeId(), List.of()));
    list.removeIf(a -> a.instanceId().equals(attachment.instanceId()));
    list.add(stored);
    attachments.put(attachment.volumeId(), List.copyOf(list));
    return stored;
  }

  public synchronized void removeAttachment(String volumeId, String instanceId) {
    var list = new ArrayList<>(attachments.getOrDefault(volumeId, List.of()));
    list.removeIf(a -> a.instanceId().equals(instanceId));
    attachments.put(volumeId, List.copyOf(list));
  }

  /** From now on attachments of this volume stay {@code attaching} (the current one too) until released. */
  public synchronized void hold(String volumeId, Instant now) {
    heldVolumes.add(volumeId);
    attachments.computeIfPresent(volumeId, (id, list) -> list.stream()
        .map(a -> a.state(now) == AttachmentState.ATTACHING ? a.held() : a).toList());
  }

  public synchronized void release(String volumeId, Instant now) {
    heldVolumes.remove(volumeId);
    attachments.computeIfPresent(volumeId, (id, list) -> list.stream().map(a -> a.released(now)).toList());
  }

  public synchronized void addModification(VolumeModification modification) {
    modifications.computeIfAbsent(modification.volumeId(), id -> new ArrayList<>()).add(modification);
  }

  public synchronized Optional<VolumeModification> latestModification(String volumeId) {
    List<VolumeModification> list = modifications.get(volumeId);
    return list == null || list.isEmpty() ? Optional.empty() : Optional.of(list.getLast());
  }

  public synchronized long modificationsSince(String volumeId, Instant since) {
    return modifications.getOrDefault(volumeId, List.of()).stream()
        .filter(m -> !m.startTime().isBefore(since)).count();
  }

  public synchronized void addSnapshot(SnapshotProgress snapshot) {
    snapshots.put(snapshot.snapshotId(), snapshot);
  }

  public synchronized Optional<SnapshotProgress> snapshot(String snapshotId) {
    return Optional.ofNullable(snapshots.get(snapshotId));
  }

  public synchronized void forgetSnapshot(String snapshotId) {
    snapshots.remove(snapshotId);
  }

  /** Drops everything known about a deleted volume except its ClientToken, which EC2 keeps answering with. */
  public synchronized void forgetVolume(String volumeId) {
    creations.remove(volumeId);
    initializations.remove(volumeId);
    copySources.remove(volumeId);
    attachments.remove(volumeId);
    modifications.remove(volumeId);
    heldVolumes.remove(volumeId);
  }

  public synchronized Optional<ClientTokenRecord> clientToken(String key) {
    return Optional.ofNullable(clientTokens.get(key));
  }

  public synchronized void rememberClientToken(String key, ClientTokenRecord record) {
    clientTokens.put(key, record);
  }
}
