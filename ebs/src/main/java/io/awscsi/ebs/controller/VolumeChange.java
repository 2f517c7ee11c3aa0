package io.awscsi.ebs.controller;

import io.awscsi.core.errors.DriverException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What expand and modify requests ask of one volume; 0 or an empty string leaves a property as it is. Requests that
 * arrive together are merged into one, as long as they do not ask for different values of the same property.
 */
record VolumeChange(int sizeGiB, String volumeType, int iops, int throughput, Map<String, String> addTags,
    Set<String> removeTags) {

  static final VolumeChange NONE = new VolumeChange(0, "", 0, 0, Map.of(), Set.of());

  VolumeChange {
    volumeType = volumeType == null ? "" : volumeType;
    addTags = Map.copyOf(addTags);
    removeTags = Set.copyOf(removeTags);
  }

  static VolumeChange size(int sizeGiB) {
    return new VolumeChange(sizeGiB, "", 0, 0, Map.of(), Set.of());
  }

  boolean touchesVolume() {
    return sizeGiB > 0 || !volumeType.isEmpty() || iops > 0 || throughput > 0;
  }

  /** This change plus {@code other}; Aborted naming the property when they disagree (only {@code other}'s caller
   * fails). */
  VolumeChange merge(VolumeChange other, String volumeId) {
    Map<String, String> tags = new LinkedHashMap<>(addTags);
    other.addTags.forEach((k, v) -> {
      String mine = tags.get(k);
      if (mine != null && !mine.equals(v)) {
        throw conflict(volumeId, "tag " + k, mine, v);
      }
      if (removeTags.contains(k)) {
        throw conflict(volumeId, "tag " + k, "deleted", v);
      }
      tags.put(k, v);
    });
    Set<String> removed = new HashSet<>(removeTags);
    for (String k : other.removeTags) {
      if (addTags.containsKey(k)) {
        throw conflict(volumeId, "tag " + k, addTags.get(k), "deleted");
      }
      removed.add(k);
    }
    return new VolumeChange(pick(volumeId, "size (GiB)", sizeGiB, other.sizeGiB),
        pick(volumeId, "type", volumeType, other.volumeType), pick(volumeId, "iops", iops, other.iops),
        pick(volumeId, "throughput", throughput, other.throughput), tags, removed);
  }

  private static int pick(String volumeId, String what, int mine, int theirs) {
    if (mine != 0 && theirs != 0 && mine != theirs) {
      throw conflict(volumeId, what, Integer.toString(mine), Integer.toString(theirs));
    }
    return mine != 0 ? mine : theirs;
  }

  private static String pick(String volumeId, String what, String mine, String theirs) {
    if (!mine.isEmpty() && !theirs.isEmpty() && !mine.equals(theirs)) {
      throw conflict(volumeId, what, mine, theirs);
    }
    return !mine.isEmpty() ? mine : theirs;
  }

  private static DriverException conflict(String volumeId, String what, String pending, String requested) {
    return DriverException.aborted("volume " + volumeId + " already has a pending change of " + what + " to "
        + pending + "; this request asks for " + requested + " and will be retried after it");
  }
}
