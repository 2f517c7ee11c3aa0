package io.awscsi.realism.ec2;

import io.awscsi.realism.proxy.Xml;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/** Rewrites moto's final-state EC2 items into what real EC2 would show at this moment, from the overlay. */
final class Ec2Views {

  private final Ec2State state;

  Ec2Views(Ec2State state) {
    this.state = state;
  }

  /**
   * A volume item (DescribeVolumes, CreateVolume, CopyVolumes): status, attachments, size while modifying, and the
   * Outpost it was created on.
   */
  void rewriteVolume(Element volume, Instant now) {
    String volumeId = Xml.text(volume, "volumeId").orElse("");
    state.copySource(volumeId).ifPresent(source -> Xml.setText(volume, "sourceVolumeId", source));
    state.outpost(volumeId).ifPresent(arn -> Xml.setText(volume, "outpostArn", arn));
    state.latestModification(volumeId)
        .filter(m -> m.state(now) == ModificationState.MODIFYING)
        .ifPresent(m -> showConfig(volume, m.original()));
    if (state.creating(volumeId, now)) {
      Xml.setText(volume, "status", "creating");
      return;
    }
    Element attachmentSet = Xml.list(volume, "attachmentSet");
    Set<String> shown = new HashSet<>();
    for (Element item : Xml.children(attachmentSet, "item")) {
      String instanceId = Xml.text(item, "instanceId").orElse("");
      if (state.detached(volumeId, instanceId, now)) {
        attachmentSet.removeChild(item);
        continue;
      }
      shown.add(instanceId);
      state.attachment(volumeId, instanceId, now).ifPresent(a -> {
        Xml.setText(item, "status", a.state(now).wireName());
        showCard(item, a);
      });
    }
    // moto keeps one attachment per volume: the other attachments of a multi-attached volume, and those detaching,
    // exist only here.
    for (Attachment attachment : state.attachments(volumeId, now)) {
      if (!shown.contains(attachment.instanceId())) {
        Element item = Xml.appendElement(attachmentSet, "item", null);
        Xml.appendElement(item, "volumeId", volumeId);
        Xml.appendElement(item, "instanceId", attachment.instanceId());
        Xml.appendElement(item, "device", attachment.device());
        Xml.appendElement(item, "status", attachment.state(now).wireName());
        Xml.appendElement(item, "attachTime", attachment.attachTime());
        Xml.appendElement(item, "deleteOnTermination", String.valueOf(attachment.deleteOnTermination()));
        showCard(item, attachment);
      }
    }
    boolean attached = !Xml.children(attachmentSet, "item").isEmpty();
    String status = Xml.text(volume, "status").orElse("available");
    if (attached && status.equals("available")) {
      Xml.setText(volume, "status", "in-use");
    } else if (!attached && status.equals("in-use")) {
      Xml.setText(volume, "status", "available");
    }
  }

  private static void showConfig(Element volume, VolumeConfig config) {
    Xml.setText(volume, "size", String.valueOf(config.size()));
    Xml.setText(volume, "volumeType", config.volumeType());
    if (config.iops() == null) {
      Xml.removeChild(volume, "iops");
    } else {
      Xml.setText(volume, "iops", String.valueOf(config.iops()));
    }
    if (config.throughput() == null) {
      Xml.removeChild(volume, "throughput");
    } else {
      Xml.setText(volume, "throughput", String.valueOf(config.throughput()));
    }
  }

  /**
   * An instance item: block device mapping entries attaching or detaching, none that are detached; the Outpost of an
   * instance launched into an Outpost subnet.
   */
  void rewriteInstance(Element instance, Instant now) {
    String instanceId = Xml.text(instance, "instanceId").orElse("");
    state.outpost(instanceId).ifPresent(arn -> Xml.setText(instance, "outpostArn", arn));
    List<Attachment> overlay = state.attachmentsOnInstance(instanceId, now);
    Element mapping = Xml.list(instance, "blockDeviceMapping");
    Set<String> shown = new HashSet<>();
    for (Element item : Xml.children(mapping, "item")) {
      Element ebs = Xml.child(item, "ebs").orElse(null);
      if (ebs == null) {
        continue;
      }
      String volumeId = Xml.text(ebs, "volumeId").orElse("");
      if (state.detached(volumeId, instanceId, now)) {
        mapping.removeChild(item);
        continue;
      }
      shown.add(volumeId);
      overlay.stream().filter(a -> a.volumeId().equals(volumeId)).findFirst().ifPresent(a -> {
        Xml.setText(ebs, "status", a.state(now).wireName());
        showCard(ebs, a);
      });
    }
    for (Attachment attachment : overlay) {
      if (!shown.contains(attachment.volumeId())) {
        Element item = Xml.appendElement(mapping, "item", null);
        Xml.appendElement(item, "deviceName", attachment.device());
        Element ebs = Xml.appendElement(item, "ebs", null);
        Xml.appendElement(ebs, "attachTime", attachment.attachTime());
        Xml.appendElement(ebs, "deleteOnTermination", String.valueOf(attachment.deleteOnTermination()));
        Xml.appendElement(ebs, "status", attachment.state(now).wireName());
        Xml.appendElement(ebs, "volumeId", attachment.volumeId());
        showCard(ebs, attachment);
      }
    }
  }

  /** The EBS card AttachVolume named, as EC2 shows it in an attachment and a block device mapping. */
  private static void showCard(Element element, Attachment attachment) {
    if (attachment.ebsCardIndex() != null) {
      Xml.setText(element, "ebsCardIndex", attachment.ebsCardIndex().toString());
    }
  }

  /** A snapshot item (DescribeSnapshots, CreateSnapshot): pending with progress until completed; its Outpost. */
  void rewriteSnapshot(Element snapshot, Instant now) {
    String snapshotId = Xml.text(snapshot, "snapshotId").orElse("");
    state.outpost(snapshotId).ifPresent(arn -> Xml.setText(snapshot, "outpostArn", arn));
    state.snapshot(snapshotId).ifPresent(progress -> {
      Xml.setText(snapshot, "status", progress.status(now));
      Xml.setText(snapshot, "progress", progress.progress(now));
      if (progress.sharedStart()) {
        Xml.setText(snapshot, "startTime", timestamp(progress.startTime()));
      }
    });
  }

  /** A modification as EC2 writes it, in a new element named {@code elementName}. */
  static Element modificationElement(Document doc, String elementName, VolumeModification modification,
                                     Instant now) {
    Element element = doc.createElement(elementName);
    ModificationState modificationState = modification.state(now);
    Xml.appendElement(element, "volumeId", modification.volumeId());
    Xml.appendElement(element, "modificationState", modificationState.wireName());
    appendConfig(element, "target", modification.target());
    appendConfig(element, "original", modification.original());
    Xml.appendElement(element, "progress", String.valueOf(modification.progress(now)));
    Xml.appendElement(element, "startTime", timestamp(modification.startTime()));
    if (modificationState == ModificationState.COMPLETED) {
      Xml.appendElement(element, "endTime", timestamp(modification.completedAt()));
    }
    return element;
  }

  private static void appendConfig(Element element, String prefix, VolumeConfig config) {
    Xml.appendElement(element, prefix + "Size", String.valueOf(config.size()));
    Xml.appendElement(element, prefix + "VolumeType", config.volumeType());
    if (config.iops() != null) {
      Xml.appendElement(element, prefix + "Iops", String.valueOf(config.iops()));
    }
    if (config.throughput() != null) {
      Xml.appendElement(element, prefix + "Throughput", String.valueOf(config.throughput()));
    }
    Xml.appendElement(element, prefix + "MultiAttachEnabled", String.valueOf(config.multiAttach()));
  }

  static String timestamp(Instant instant) {
    return DateTimeFormatter.ISO_INSTANT.format(instant.truncatedTo(ChronoUnit.MILLIS));
  }
}
