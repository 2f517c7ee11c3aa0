package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.CSINodeDriver;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Instance;
import software.amazon.awssdk.services.ec2.model.InstanceNetworkInterface;

/**
 * The attach limit follows the node (issue 27): an ENI attached to the node's instance after the driver started takes
 * an attachment slot on a Nitro type whose limit is shared. The kubelet calls NodeGetInfo again every
 * nodeAllocatableUpdatePeriodSeconds of the CSIDriver (MutableCSINodeAllocatableCount), the driver counts the ENIs
 * again from IMDS, and CSINode's allocatable count for ebs.csi.aws.com goes down by one; it comes back when the ENI is
 * detached. Local cluster only: its IMDS lists the ENIs the emulated EC2 has attached.
 */
class NodeAttachLimitTest extends ClusterCase {

  private static final String EBS = "ebs.csi.aws.com";
  /** The chart's period is 10 s; the kubelet's update and the CSINode write come on top. */
  private static final Duration UPDATE = Duration.ofSeconds(90);

  @Override
  void assumptions() {
    assumeTrue(ClusterFixture.target() instanceof ClusterTarget.Local,
        "attaches an ENI to the node's instance: emulated EC2 only");
  }

  @Test
  void csiNodeCountDropsWhenAnEniIsAttachedAndComesBackWhenItIsDetached() {
    Steps steps = new Steps("attach-limit");
    String node = cluster.schedulableNodes().getFirst().getMetadata().getName();
    String instanceId = cluster.localCluster().nodeInstanceId();
    int before = steps.step("CSINode count of " + EBS + " known", () -> {
      Eventually.await("CSINode " + node + " has an allocatable count for " + EBS, Duration.ofMinutes(2),
          () -> count(node).isPresent());
      return count(node).orElseThrow();
    });
    try (Ec2Client ec2 = ClusterFixture.target().ec2()) {
      Instance instance = ec2.describeInstances(r -> r.instanceIds(instanceId)).reservations().getFirst()
          .instances().getFirst();
      int nextIndex = instance.networkInterfaces().stream().mapToInt(n -> n.attachment().deviceIndex()).max()
          .orElse(0) + 1;
      String eni = ec2.createNetworkInterface(r -> r.subnetId(instance.subnetId())
          .description("NodeAttachLimitTest")).networkInterface().networkInterfaceId();
      String attachment = null;
      try {
        attachment = steps.step("ENI attached: CSINode count " + before + " -> " + (before - 1), () -> {
          String id = ec2.attachNetworkInterface(r -> r.networkInterfaceId(eni).instanceId(instanceId)
              .deviceIndex(nextIndex)).attachmentId();
          Eventually.await("CSINode " + node + " count " + (before - 1) + " for " + EBS, UPDATE,
              () -> count(node).orElse(-1) == before - 1);
          return id;
        });
        String attached = attachment;
        steps.step("ENI detached: CSINode count back to " + before, () -> {
          ec2.detachNetworkInterface(r -> r.attachmentId(attached));
          Eventually.await("CSINode " + node + " count " + before + " for " + EBS, UPDATE,
              () -> count(node).orElse(-1) == before);
        });
        attachment = null;
      } finally {
        if (attachment != null) {
          String left = attachment;
          ec2.detachNetworkInterface(r -> r.attachmentId(left).force(true));
        }
        ec2.deleteNetworkInterface(r -> r.networkInterfaceId(eni));
      }
      assertThat(ec2.describeInstances(r -> r.instanceIds(instanceId)).reservations().getFirst().instances()
          .getFirst().networkInterfaces()).extracting(InstanceNetworkInterface::networkInterfaceId)
          .as("the node's instance is left with its own ENIs").doesNotContain(eni);
    }
    steps.summary();
  }

  private Optional<Integer> count(String node) {
    CSINode csiNode = cluster.client.storage().v1().csiNodes().withName(node).get();
    if (csiNode == null || csiNode.getSpec() == null || csiNode.getSpec().getDrivers() == null) {
      return Optional.empty();
    }
    return csiNode.getSpec().getDrivers().stream().filter(d -> EBS.equals(d.getName())).findFirst()
        .map(CSINodeDriver::getAllocatable).map(a -> a.getCount());
  }
}
