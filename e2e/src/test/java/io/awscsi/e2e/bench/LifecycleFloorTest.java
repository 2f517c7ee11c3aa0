package io.awscsi.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.awscsi.realism.BucketLimit;
import io.awscsi.realism.Latency;
import io.awscsi.realism.RealismProfile;
import io.awscsi.realism.ThrottleLimits;
import org.junit.jupiter.api.Test;

/** The benchmark's floor on settings whose answer is known. */
class LifecycleFloorTest {

  private static final RealismProfile FIXED = RealismProfile.realistic()
      .withApiCall(Latency.fixed(java.time.Duration.ofMillis(100)))
      .withVolumeCreation(Latency.fixed(java.time.Duration.ofSeconds(1)))
      .withVolumeAttach(Latency.fixed(java.time.Duration.ofSeconds(2)))
      .withVolumeDetach(Latency.fixed(java.time.Duration.ofSeconds(3)));

  @Test
  void withinTheBurstTheFloorIsOneLifecycle() {
    var floor = LifecycleFloor.simulate(FIXED, 40, 10, LifecycleFloor.Faults.NONE, 5, 1);
    // 4 round trips + creation + attach + detach; no call waits for a token.
    assertThat(floor.meanSeconds()).isCloseTo(6.4, within(1e-6));
    assertThat(floor.bucketBoundSeconds()).isZero();
  }

  @Test
  void pastTheBurstEachActionsRefillBoundsTheLastCall() {
    var floor = LifecycleFloor.simulate(FIXED, 550, 50, LifecycleFloor.Faults.NONE, 5, 1);
    // The 550th CreateVolume gets its token (550 - 50) / 5 = 100 s after the first; the stages downstream are fed
    // at the same rate, so the last lifecycle ends one lifecycle later.
    assertThat(floor.meanSeconds()).isCloseTo(100 + 6.4, within(0.05));
    assertThat(floor.bucketBoundSeconds()).isCloseTo(100, within(1e-9));
  }

  @Test
  void theSlowestBucketDecides() {
    var slowDelete = FIXED.withThrottle(ThrottleLimits.ec2Defaults().withAction("DeleteVolume",
        new BucketLimit(10, 1)));
    var floor = LifecycleFloor.simulate(slowDelete, 110, 50, LifecycleFloor.Faults.NONE, 5, 1);
    // DeleteVolume: burst 10 then 1/s, and its first call comes one lifecycle minus a round trip after the start.
    assertThat(floor.meanSeconds()).isGreaterThanOrEqualTo(100 + 6.3);
  }

  @Test
  void faultsCostTheIdealTheirTokensAndHeldAttaches() {
    var clean = LifecycleFloor.simulate(FIXED, 300, 50, LifecycleFloor.Faults.NONE, 20, 3);
    var faulty = LifecycleFloor.simulate(FIXED, 300, 50,
        new LifecycleFloor.Faults(0.05, 10, 40, 0.1, u -> 30), 20, 3);
    assertThat(faulty.meanSeconds()).isGreaterThan(clean.meanSeconds() + 10);
  }

  @Test
  void efsFloorIsTheAccessPointBucketsPlusTheListing() {
    var floor = LifecycleFloor.simulateEfs(FIXED, 300, 2, 5, 1);
    // Listing (2 pages) 0.2 s, CreateAccessPoint 300th token at 50 s + 0.1 s, DeleteAccessPoint one trip later.
    assertThat(floor.meanSeconds()).isCloseTo(0.2 + 0.1 + 50 + 0.1, within(0.05));
  }
}
