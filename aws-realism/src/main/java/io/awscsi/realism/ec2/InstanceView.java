package io.awscsi.realism.ec2;

import io.awscsi.realism.proxy.Xml;
import java.util.List;
import org.w3c.dom.Element;

/** An instance as moto reports it, read from a DescribeInstances item. */
record InstanceView(String instanceId, String availabilityZone, String state, List<BlockDevice> blockDevices) {

  /** One entry of the instance's block device mapping. */
  record BlockDevice(String deviceName, String volumeId) {}

  static InstanceView from(Element instance) {
    String zone = Xml.child(instance, "placement").flatMap(p -> Xml.text(p, "availabilityZone")).orElse("");
    String state = Xml.child(instance, "instanceState").flatMap(s -> Xml.text(s, "name")).orElse("running");
    List<BlockDevice> devices = Xml.items(instance, "blockDeviceMapping").stream()
        .map(item -> new BlockDevice(Xml.text(item, "deviceName").orElse(""),
            Xml.child(item, "ebs").flatMap(ebs -> Xml.text(ebs, "volumeId")).orElse("")))
        .toList();
    return new InstanceView(Xml.text(instance, "instanceId").orElseThrow(), zone, state, devices);
  }
}
