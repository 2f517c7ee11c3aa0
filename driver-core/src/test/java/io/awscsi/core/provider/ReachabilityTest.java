package io.awscsi.core.provider;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ReachabilityTest {

  private final Reachability ec2 = new Reachability("EC2");

  @Test
  void readyBeforeAnyCallAndWhileCallsAreAnswered() {
    assertThat(ec2.readiness()).isEqualTo(Readiness.ready());
    ec2.answered("DescribeVolumes");
    assertThat(ec2.readiness()).isEqualTo(Readiness.ready());
  }

  @Test
  void notReadyFromACallWithoutAnswerUntilALaterCallIsAnswered() {
    ec2.answered("DescribeVolumes");
    ec2.unanswered("CreateVolume", "connection refused");
    ec2.unanswered("DescribeVolumes", "read timed out");

    Readiness cut = ec2.readiness();
    ec2.answered("DescribeInstances");

    assertThat(cut).isInstanceOfSatisfying(Readiness.NotReady.class, n -> assertThat(n.reason())
        .contains("EC2 did not answer the driver's DescribeVolumes call", "read timed out", "2 calls in a row"));
    assertThat(ec2.readiness()).isEqualTo(Readiness.ready());
  }
}
