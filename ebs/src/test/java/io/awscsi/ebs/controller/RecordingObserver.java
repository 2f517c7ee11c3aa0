package io.awscsi.ebs.controller;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Remembers what the controller reported, as "attached vol-1 i-2 /dev/xvdaa 1073741824" lines. */
final class RecordingObserver implements AttachmentObserver {

  final List<String> events = new CopyOnWriteArrayList<>();

  @Override
  public void attached(String volumeId, String nodeId, long sizeBytes, String devicePath) {
    events.add("attached " + volumeId + " " + nodeId + " " + devicePath + " " + sizeBytes);
  }

  @Override
  public void detached(String volumeId, String nodeId) {
    events.add("detached " + volumeId + " " + nodeId);
  }

  @Override
  public void resized(String volumeId, long sizeBytes) {
    events.add("resized " + volumeId + " " + sizeBytes);
  }

  @Override
  public void deleted(String volumeId) {
    events.add("deleted " + volumeId);
  }
}
