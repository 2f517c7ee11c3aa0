package io.awscsi.realism.ec2;

import io.awscsi.realism.proxy.Xml;
import java.util.List;
import org.w3c.dom.Element;

/** A volume as moto reports it (its final state), read from a DescribeVolumes item. */
record VolumeView(String volumeId, String availabilityZone, String status, VolumeConfig config, boolean encrypted,
                  String kmsKeyId, List<AttachmentView> attachments) {

  /** One attachment as moto reports it. */
  record AttachmentView(String instanceId, String device, String status, String attachTime) {}

  static VolumeView from(Element item) {
    VolumeConfig config = new VolumeConfig(
        Integer.parseInt(Xml.text(item, "size").orElse("0")),
        Xml.text(item, "volumeType").orElse("gp2"),
        Xml.text(item, "iops").map(Integer::valueOf).orElse(null),
        Xml.text(item, "throughput").map(Integer::valueOf).orElse(null),
        Xml.text(item, "multiAttachEnabled").map(Boolean::parseBoolean).orElse(false));
    List<AttachmentView> attachments = Xml.items(item, "attachmentSet").stream()
        .map(a -> new AttachmentView(Xml.text(a, "instanceId").orElse(""), Xml.text(a, "device").orElse(""),
            Xml.text(a, "status").orElse("attached"), Xml.text(a, "attachTime").orElse("")))
        .toList();
    return new VolumeView(
        Xml.text(item, "volumeId").orElseThrow(),
        Xml.text(item, "availabilityZone").orElse(""),
        Xml.text(item, "status").orElse("available"),
        config,
        Xml.text(item, "encrypted").map(Boolean::parseBoolean).orElse(false),
        Xml.text(item, "kmsKeyId").orElse(null),
        attachments);
  }
}
