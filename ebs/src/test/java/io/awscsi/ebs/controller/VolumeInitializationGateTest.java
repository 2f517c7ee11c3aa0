package io.awscsi.ebs.controller;

import static io.awscsi.ebs.controller.Requests.GIB;
import static io.awscsi.ebs.controller.Requests.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.provider.CapacityRange;
import io.awscsi.core.provider.PublishRequest;
import io.awscsi.core.provider.Volume;
import io.awscsi.core.provider.VolumeRequest;
import io.awscsi.core.provider.VolumeSource;
import io.awscsi.ebs.cloud.Attachment;
import io.awscsi.ebs.cloud.Ec2Action;
import io.awscsi.ebs.cloud.InMemoryEbsCloud;
import io.awscsi.ebs.cloud.VolumeInitialization;
import io.awscsi.ebs.volume.PublishContextKeys;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * {@code blockAttachUntilInitialized}: ControllerPublishVolume of a restored volume through the in-memory EC2, with
 * a clock the test moves (the gate asks EC2 at most once a minute per initializing volume).
 */
class VolumeInitializationGateTest {

  private static final Map<String, String> BLOCK = Map.of("blockAttachUntilInitialized", "true");

  private final InMemoryController controller = new InMemoryController();
  private final InMemoryEbsCloud cloud = controller.cloud;
  private Instant now = Instant.parse("2026-01-01T00:00:00Z");
  private final EbsVolumeAttacher attacher = new EbsVolumeAttacher(cloud, InMemoryController.options(),
      () -> now, new io.awscsi.core.metrics.MetricsRegistry());
  private final String node = cloud.runInstance(InMemoryController.ZONE);

  @Test
  void aRestoredVolumeIsNotReportedAttachedUntilEc2SaysItIsInitialized() {
    Volume restored = restore("pvc-init", BLOCK, 0);
    assertThat(restored.volumeContext()).containsEntry(VolumeContextKeys.BLOCK_ATTACH_UNTIL_INITIALIZED, "true");
    cloud.initialization(restored.volumeId(), new VolumeInitialization(true, OptionalInt.of(42), Optional.empty()));

    assertError(() -> attacher.publish(publish(restored)), DriverError.Unavailable.class, restored.volumeId(),
        "initializing", "42% done");
    // Attached all the same: the retry must not attach again.
    assertThat(cloud.peek(restored.volumeId()).orElseThrow().attachmentTo(node)).map(Attachment::state)
        .contains(Attachment.State.ATTACHED);
    assertThat(cloud.count(Ec2Action.DESCRIBE_VOLUME_STATUS)).isEqualTo(1);

    // Within the minute, a retry does not ask EC2 again, even though the volume has finished meanwhile.
    cloud.initialization(restored.volumeId(), VolumeInitialization.COMPLETE);
    move(Duration.ofSeconds(30));
    assertError(() -> attacher.publish(publish(restored)), DriverError.Unavailable.class, "initializing");
    assertThat(cloud.count(Ec2Action.DESCRIBE_VOLUME_STATUS)).isEqualTo(1);

    move(Duration.ofSeconds(31));
    assertThat(attacher.publish(publish(restored))).containsKey(PublishContextKeys.DEVICE_PATH);
    assertThat(cloud.count(Ec2Action.DESCRIBE_VOLUME_STATUS)).isEqualTo(2);
    assertThat(cloud.count(Ec2Action.ATTACH_VOLUME)).isEqualTo(1);
    // Known initialized: later publishes do not ask again.
    assertThat(attacher.publish(publish(restored))).containsKey(PublishContextKeys.DEVICE_PATH);
    assertThat(cloud.count(Ec2Action.DESCRIBE_VOLUME_STATUS)).isEqualTo(2);
  }

  @Test
  void ec2sEstimateDefersTheNextCheckUntilThen() {
    Volume restored = restore("pvc-eta", BLOCK, 100);
    cloud.initialization(restored.volumeId(),
        new VolumeInitialization(true, OptionalInt.of(10), Optional.of(Duration.ofMinutes(5))));
    assertError(() -> attacher.publish(publish(restored)), DriverError.Unavailable.class, "about 300 s left");

    cloud.initialization(restored.volumeId(), VolumeInitialization.COMPLETE);
    move(Duration.ofMinutes(2));
    assertError(() -> attacher.publish(publish(restored)), DriverError.Unavailable.class, "initializing");
    assertThat(cloud.count(Ec2Action.DESCRIBE_VOLUME_STATUS)).isEqualTo(1);
    move(Duration.ofMinutes(3));
    assertThat(attacher.publish(publish(restored))).containsKey(PublishContextKeys.DEVICE_PATH);
  }

  @Test
  void withoutTheParameterARestoredVolumeIsAttachedAtOnce() {
    Volume restored = restore("pvc-plain", Map.of(), 0);
    assertThat(restored.volumeContext()).doesNotContainKey(VolumeContextKeys.BLOCK_ATTACH_UNTIL_INITIALIZED);

    assertThat(attacher.publish(publish(restored))).containsKey(PublishContextKeys.DEVICE_PATH);
    assertThat(cloud.count(Ec2Action.DESCRIBE_VOLUME_STATUS)).isZero();
  }

  @Test
  void aVolumeNotRestoredFromASnapshotIsAttachedAtOnceWithTheParameter() {
    Volume empty = controller.create("pvc-empty", 1, BLOCK);

    assertThat(attacher.publish(publish(empty))).containsKey(PublishContextKeys.DEVICE_PATH);
    assertThat(cloud.count(Ec2Action.DESCRIBE_VOLUME_STATUS)).isEqualTo(1);
  }

  private Volume restore(String name, Map<String, String> parameters, int initializationRate) {
    String snapshot = cloud.existingSnapshot("vol-source", 4);
    Map<String, String> all = new java.util.HashMap<>(parameters);
    if (initializationRate > 0) {
      all.put("volumeInitializationRate", Integer.toString(initializationRate));
    }
    return controller.provider.provisioner().createVolume(new VolumeRequest(name, new CapacityRange(4 * GIB, 0),
        List.of(Requests.MOUNT), all, Map.of(), Map.of(), new VolumeSource.FromSnapshot(snapshot),
        Requests.inZone(InMemoryController.ZONE)));
  }

  private PublishRequest publish(Volume volume) {
    return new PublishRequest(volume.volumeId(), node, Requests.MOUNT, false, volume.volumeContext(), Map.of());
  }

  private void move(Duration by) {
    now = now.plus(by);
  }
}
