package io.awscsi.ebs.cloud;

import java.util.Map;

/**
 * An instance as the attacher needs it: where it runs, which device names its volumes use and, on a type with several
 * EBS cards, which card each of those devices is on ({@code cardByDevice}: only the devices EC2 gave a card index).
 * {@code rootDevice} is EC2's root device name ("" when it did not say): a group snapshot of the instance's volumes
 * must know which one is the boot volume, which CreateSnapshots excludes by a flag and not by id.
 */
public record Ec2Instance(String instanceId, String instanceType, String zone, String state,
    Map<String, String> volumesByDevice, Map<String, Integer> cardByDevice, String rootDevice) {

  public Ec2Instance {
    volumesByDevice = Map.copyOf(volumesByDevice);
    cardByDevice = Map.copyOf(cardByDevice);
    rootDevice = rootDevice == null ? "" : rootDevice;
  }

  public Ec2Instance(String instanceId, String instanceType, String zone, String state,
      Map<String, String> volumesByDevice, Map<String, Integer> cardByDevice) {
    this(instanceId, instanceType, zone, state, volumesByDevice, cardByDevice, "");
  }

  /** The boot volume's id; "" when EC2 named no root device or no volume is on it. */
  public String rootVolumeId() {
    return rootDevice.isEmpty() ? "" : volumesByDevice.getOrDefault(rootDevice, "");
  }

  /** An instance whose devices carry no card index (a type with one EBS card). */
  public Ec2Instance(String instanceId, String instanceType, String zone, String state,
      Map<String, String> volumesByDevice) {
    this(instanceId, instanceType, zone, state, volumesByDevice, Map.of());
  }

  public boolean gone() {
    return state.equals("terminated") || state.equals("shutting-down");
  }
}
