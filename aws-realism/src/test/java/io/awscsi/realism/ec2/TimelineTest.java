package io.awscsi.realism.ec2;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The state timelines the proxy shows instead of moto's final states. */
class TimelineTest {

  private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

  @ParameterizedTest(name = "at +{0} s: {1}, {2}%")
  @CsvSource({
      "0, MODIFYING, 0",
      "1.999, MODIFYING, 0",
      "2, OPTIMIZING, 1",
      "7, OPTIMIZING, 50",
      "11.9, OPTIMIZING, 99",
      "12, COMPLETED, 100",
      "99, COMPLETED, 100",
  })
  void modificationIsModifyingThenOptimizingThenCompleted(double seconds, ModificationState state, int progress) {
    var config = new VolumeConfig(10, "gp3", 3000, 125, false);
    var modification = new VolumeModification("vol-1", config, new VolumeConfig(20, "gp3", 3000, 125, false), T0,
        T0.plusSeconds(2), T0.plusSeconds(12));
    Instant at = T0.plusMillis((long) (seconds * 1000));

    assertThat(modification.state(at)).isEqualTo(state);
    assertThat(modification.progress(at)).isEqualTo(progress);
  }

  @ParameterizedTest(name = "at +{0} s: {1} {2}")
  @CsvSource({"0, pending, 0%", "2.5, pending, 25%", "9.99, pending, 99%", "10, completed, 100%"})
  void snapshotIsPendingWithProgressThenCompleted(double seconds, String status, String progress) {
    var snapshot = new SnapshotProgress("snap-1", T0, T0.plusSeconds(10));
    Instant at = T0.plusMillis((long) (seconds * 1000));

    assertThat(snapshot.status(at)).isEqualTo(status);
    assertThat(snapshot.progress(at)).isEqualTo(progress);
  }

  @Test
  void attachmentAttachesThenDetaches() {
    var attachment = Attachment.attaching("vol-1", "i-1", "/dev/xvdba", "t", T0.plusSeconds(2));

    assertThat(attachment.state(T0)).isEqualTo(AttachmentState.ATTACHING);
    assertThat(attachment.state(T0.plusSeconds(2))).isEqualTo(AttachmentState.ATTACHED);
    var detaching = attachment.detaching(T0.plusSeconds(5), T0.plusSeconds(8));
    assertThat(detaching.state(T0.plusSeconds(5))).isEqualTo(AttachmentState.DETACHING);
    assertThat(detaching.state(T0.plusSeconds(8))).isEqualTo(AttachmentState.DETACHED);
  }

  @Test
  void heldAttachmentAttachesOnlyWhenReleased() {
    var state = new Ec2State();
    state.hold("vol-1", T0);
    state.putAttachment(Attachment.attaching("vol-1", "i-1", "/dev/xvdba", "t", T0.plusSeconds(1)));

    assertThat(state.attachment("vol-1", "i-1", T0.plus(Duration.ofDays(1))).orElseThrow()
        .state(T0.plus(Duration.ofDays(1)))).isEqualTo(AttachmentState.ATTACHING);
    Instant release = T0.plus(Duration.ofDays(1));
    state.release("vol-1", release);
    assertThat(state.attachment("vol-1", "i-1", release).orElseThrow().state(release))
        .isEqualTo(AttachmentState.ATTACHED);
  }

  @Test
  void holdingAnAttachedVolumeDoesNotUndoItsAttachment() {
    var state = new Ec2State();
    state.putAttachment(Attachment.attaching("vol-1", "i-1", "/dev/xvdba", "t", T0.plusSeconds(1)));

    state.hold("vol-1", T0.plusSeconds(5));

    assertThat(state.attachment("vol-1", "i-1", T0.plusSeconds(6)).orElseThrow().state(T0.plusSeconds(6)))
        .isEqualTo(AttachmentState.ATTACHED);
  }

  @Test
  void detachedAttachmentsLeaveTheLiveListButAreRemembered() {
    var state = new Ec2State();
    state.putAttachment(Attachment.attaching("vol-1", "i-1", "/dev/xvdba", "t", T0)
        .detaching(T0.plusSeconds(1), T0.plusSeconds(3)));

    assertThat(state.attachmentsOnInstance("i-1", T0.plusSeconds(2))).hasSize(1);
    assertThat(state.attachmentsOnInstance("i-1", T0.plusSeconds(3))).isEmpty();
    assertThat(state.detached("vol-1", "i-1", T0.plusSeconds(3))).isTrue();
  }

  @Test
  void modificationsAreCountedInTheirWindowAndForgottenWithTheVolume() {
    var state = new Ec2State();
    var config = new VolumeConfig(10, "gp3", null, null, false);
    for (int hour = 0; hour < 4; hour++) {
      Instant start = T0.plus(Duration.ofHours(hour));
      state.addModification(new VolumeModification("vol-1", config, config, start, start, start));
    }
    state.rememberClientToken("t", new ClientTokenRecord("f", "vol-1", "<x/>"));

    assertThat(state.modificationsSince("vol-1", T0)).isEqualTo(4);
    assertThat(state.modificationsSince("vol-1", T0.plus(Duration.ofMinutes(90)))).isEqualTo(2);
    state.forgetVolume("vol-1");
    assertThat(state.modificationsSince("vol-1", T0)).isZero();
    assertThat(state.clientToken("t")).isPresent();
  }
}
