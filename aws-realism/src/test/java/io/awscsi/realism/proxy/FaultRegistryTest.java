package io.awscsi.realism.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.realism.ApiRequest;
import io.awscsi.realism.AwsError;
import io.awscsi.realism.Fault;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FaultRegistryTest {

  private static final AwsError ERROR = AwsError.of(500, "InternalError", "injected");

  @Test
  void countedFaultAnswersOnlyMatchingCallsThatManyTimes() {
    var registry = new FaultRegistry();
    var fault = registry.add(Fault.ec2("AttachVolume", ERROR).when(r -> r.hasParam("VolumeId", "vol-1")).times(2));

    assertThat(registry.match(call("AttachVolume", "vol-2"))).isEmpty();
    assertThat(registry.match(call("DetachVolume", "vol-1"))).isEmpty();
    assertThat(registry.match(call("AttachVolume", "vol-1"))).contains(ERROR);
    assertThat(registry.match(call("AttachVolume", "vol-1"))).contains(ERROR);
    assertThat(registry.match(call("AttachVolume", "vol-1"))).isEmpty();
    assertThat(fault.hits()).isEqualTo(2);
  }

  @Test
  void efsFaultDoesNotMatchEc2Calls() {
    var registry = new FaultRegistry();
    registry.add(Fault.efs("AttachVolume", ERROR));

    assertThat(registry.match(call("AttachVolume", "vol-1"))).isEmpty();
  }

  @Test
  void aFrozenCallIsHeldUntilTheFreezeIsLiftedThenDropped() throws Exception {
    var registry = new FaultRegistry();
    var freeze = registry.freeze("ec2", "*");
    assertThat(registry.holdWhileFrozen(new ApiRequest("efs", "CreateAccessPoint", "POST", "/", Map.of(), "")))
        .as("another service is not frozen").isEmpty();

    var held = java.util.concurrent.CompletableFuture.supplyAsync(
        () -> registry.holdWhileFrozen(call("DescribeVolumes", "vol-1")));
    Thread.sleep(300);
    assertThat(held).as("no answer while frozen").isNotDone();
    assertThat(freeze.hits()).isEqualTo(1);
    freeze.close();

    assertThat(held.get(5, java.util.concurrent.TimeUnit.SECONDS)).hasValueSatisfying(e -> {
      assertThat(e.httpStatus()).isEqualTo(503);
      assertThat(e.message()).contains("DescribeVolumes");
    });
    assertThat(registry.holdWhileFrozen(call("DescribeVolumes", "vol-1"))).isEmpty();
  }

  @Test
  void aStalledCallIsHeldForItsLengthThenServedAsUsual() throws Exception {
    var registry = new FaultRegistry();
    var stall = registry.stall("efs", "*", java.time.Duration.ofMillis(1500));
    assertThat(registry.holdWhileFrozen(call("DescribeVolumes", "vol-1"))).as("another service is not held").isEmpty();

    long start = System.nanoTime();
    var held = java.util.concurrent.CompletableFuture.supplyAsync(
        () -> registry.holdWhileFrozen(new ApiRequest("efs", "CreateAccessPoint", "POST", "/", Map.of(), "")));
    Thread.sleep(300);
    assertThat(held).as("no answer while stalled").isNotDone();
    assertThat(stall.hits()).isEqualTo(1);

    assertThat(held.get(5, java.util.concurrent.TimeUnit.SECONDS)).as("served, not dropped").isEmpty();
    assertThat(java.time.Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(java.time.Duration.ofMillis(1200));
    long after = System.nanoTime();
    assertThat(registry.holdWhileFrozen(new ApiRequest("efs", "DeleteAccessPoint", "DELETE", "/", Map.of(), "")))
        .isEmpty();
    assertThat(java.time.Duration.ofNanos(System.nanoTime() - after)).as("over: not held")
        .isLessThan(java.time.Duration.ofMillis(500));
  }

  @Test
  void aStallOfNoLengthOrLongerThanTheBoundIsRefused() {
    var registry = new FaultRegistry();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> registry.stall("efs", "*", java.time.Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 600 s");
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> registry.stall("efs", "*", java.time.Duration.ofMinutes(11)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static ApiRequest call(String action, String volumeId) {
    return new ApiRequest("ec2", action, "POST", "/", Map.of("VolumeId", volumeId), "");
  }
}
