package io.awscsi.ebs.controller;

import static io.awscsi.ebs.controller.Requests.assertError;
import static io.awscsi.ebs.controller.Requests.publish;
import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.ebs.cloud.InMemoryEbsCloud;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code aws_ebs_csi_ec2_detach_pending_seconds_total}: a detach EC2 has not finished is reported after 60 s with the
 * seconds since the driver first saw it pending, and no longer once it is detached. The clock is the test's.
 */
class DetachPendingTrackerTest {

  private final InMemoryController controller = new InMemoryController();
  private final InMemoryEbsCloud cloud = controller.cloud;
  private final MetricsRegistry metrics = new MetricsRegistry();
  private Instant now = Instant.parse("2026-01-01T00:00:00Z");
  private final EbsVolumeAttacher attacher = new EbsVolumeAttacher(cloud,
      InMemoryController.options().withDefaultCallTimeout(Duration.ofSeconds(1)), () -> now, metrics);

  @Test
  void aDetachPendingForMoreThanAMinuteIsReportedUntilItIsDetached() {
    String vol = controller.volume("pvc-detach", 1);
    String node = cloud.runInstance(InMemoryController.ZONE);
    attacher.publish(publish(vol, node, Requests.MOUNT));
    cloud.holdTransitions();

    assertError(() -> attacher.unpublish(vol, node, Map.of()), DriverError.class, vol);
    String line = DetachPendingTracker.METRIC + "{volume_id=\"" + vol + "\",instance_id=\"" + node
        + "\",attachment_state=\"detaching\"}";
    assertThat(metrics.scrape()).doesNotContain(line);

    now = now.plusSeconds(45);
    assertThat(metrics.scrape()).doesNotContain(line);
    now = now.plusSeconds(30);
    assertThat(metrics.scrape()).contains(line + " 75\n");

    cloud.settle();
    attacher.unpublish(vol, node, Map.of());
    assertThat(metrics.scrape()).doesNotContain(vol).contains("# TYPE " + DetachPendingTracker.METRIC + " counter");
  }
}
