package io.awscsi.ebs.cloud;

import java.util.Map;

/** An instance as the attacher needs it: where it runs and which device names its volumes use. */
public record Ec2Instance(String instanceId, String instanceType, String zone, String state,
    Map<String, String> volumesByDevice) {

  public Ec2Instance {
    volumesByDevice = Map.copyOf(volumesByDevice);
  }

  public boolean gone() {
    return state.equals("terminated") || state.equals("shutting-down");
  }
}
