package io.awscsi.ebs.cloud;

import java.util.Map;

/**
 * An instance as the attacher needs it: where it runs, which device names its volumes use and, on a type with several
 * EBS cards, which card each of those devices is on ({@code cardByDevice}: only the devices EC2 gave a card index).
 */
public record Ec2Instance(String instanceId, String instanceType, String zone, String state,
    Map<String, String> volumesByDevice, Map<String, Integer> cardByDevice) {

  public Ec2Instance {
    volumesByDevice = Map.copyOf(volumesByDevice);
    cardByDevice = Map.copyOf(cardByDevice);
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
