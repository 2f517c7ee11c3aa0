package io.awscsi.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.errors.GrpcErrors;
import io.grpc.Status;
import org.junit.jupiter.api.Test;

class NodeVolumeTrackerTest {

  private static final String VOL = "vol-0123456789abcdef0";
  private static final String STAGING = "/var/lib/kubelet/plugins/kubernetes.io/csi/ebs.csi.aws.com/abc/globalmount";
  private static final String TARGET_1 = "/var/lib/kubelet/pods/p1/volumes/kubernetes.io~csi/pv1/mount";
  private static final String TARGET_2 = "/var/lib/kubelet/pods/p2/volumes/kubernetes.io~csi/pv1/mount";
  private static final String EXT4 = "SINGLE_NODE_WRITER mount ext4";
  private static final String XFS = "SINGLE_NODE_WRITER mount xfs";

  private final NodeVolumeTracker staged = new NodeVolumeTracker(new VolumeLifecycle(true));

  /** Decides, and records success as the node service does when the provider call went through. */
  private Decision call(NodeVolumeTracker tracker, Operation op, String path, String fingerprint) {
    Decision d = tracker.decide(op, VOL, path, fingerprint);
    if (d instanceof Decision.Proceed) {
      tracker.succeeded(op, VOL, path, fingerprint);
    }
    return d;
  }

  private static Status.Code refusal(Decision d) {
    assertThat(d).isInstanceOf(Decision.Reject.class);
    return GrpcErrors.toStatus(((Decision.Reject) d).error()).getCode();
  }

  @Test
  void aVolumeNeverSeenProceedsSoTheProviderChecksTheHost() {
    assertThat(staged.state(VOL)).isEqualTo(VolumeState.UNKNOWN);
    for (Operation op : new Operation[] {Operation.NODE_STAGE, Operation.NODE_PUBLISH, Operation.NODE_UNPUBLISH,
        Operation.NODE_UNSTAGE}) {
      assertThat(staged.decide(op, VOL, TARGET_1, EXT4)).as(op.name()).isInstanceOf(Decision.Proceed.class);
    }
  }

  @Test
  void fullSequenceWithTwoTargets() {
    assertThat(call(staged, Operation.NODE_STAGE, STAGING, EXT4))
        .isEqualTo(new Decision.Proceed(VolumeState.VOL_READY));
    assertThat(staged.state(VOL)).isEqualTo(VolumeState.VOL_READY);

    assertThat(call(staged, Operation.NODE_PUBLISH, TARGET_1, EXT4))
        .isEqualTo(new Decision.Proceed(VolumeState.PUBLISHED));
    assertThat(call(staged, Operation.NODE_PUBLISH, TARGET_2, EXT4))
        .as("a second target path is a first publish there").isEqualTo(new Decision.Proceed(VolumeState.PUBLISHED));
    assertThat(call(staged, Operation.NODE_PUBLISH, TARGET_1, EXT4)).isEqualTo(new Decision.AlreadyDone());
    assertThat(refusal(staged.decide(Operation.NODE_PUBLISH, VOL, TARGET_1, "readonly")))
        .isEqualTo(Status.Code.ALREADY_EXISTS);

    assertThat(call(staged, Operation.NODE_UNPUBLISH, TARGET_1, "")).isInstanceOf(Decision.Proceed.class);
    assertThat(staged.state(VOL)).as("still published at the second target").isEqualTo(VolumeState.PUBLISHED);
    assertThat(refusal(staged.decide(Operation.NODE_UNSTAGE, VOL, STAGING, "")))
        .isEqualTo(Status.Code.FAILED_PRECONDITION);

    assertThat(call(staged, Operation.NODE_UNPUBLISH, TARGET_2, "")).isInstanceOf(Decision.Proceed.class);
    assertThat(staged.state(VOL)).isEqualTo(VolumeState.VOL_READY);
    assertThat(call(staged, Operation.NODE_UNSTAGE, STAGING, ""))
        .isEqualTo(new Decision.Proceed(VolumeState.NODE_READY));
    assertThat(staged.state(VOL)).isEqualTo(VolumeState.NODE_READY);
  }

  @Test
  void unstageIsRefusedWhilePublishedAndTheStateStays() {
    call(staged, Operation.NODE_STAGE, STAGING, EXT4);
    call(staged, Operation.NODE_PUBLISH, TARGET_1, EXT4);

    Decision d = staged.decide(Operation.NODE_UNSTAGE, VOL, STAGING, "");

    assertThat(refusal(d)).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(((Decision.Reject) d).error().message()).contains(VOL).contains("unpublish");
    assertThat(staged.state(VOL)).isEqualTo(VolumeState.PUBLISHED);
  }

  @Test
  void restagingTheSameWayIsDoneAndAnotherWayIsAlreadyExists() {
    call(staged, Operation.NODE_STAGE, STAGING, EXT4);

    assertThat(staged.decide(Operation.NODE_STAGE, VOL, STAGING, EXT4)).isEqualTo(new Decision.AlreadyDone());
    assertThat(refusal(staged.decide(Operation.NODE_STAGE, VOL, STAGING, XFS))).isEqualTo(Status.Code.ALREADY_EXISTS);
    assertThat(refusal(staged.decide(Operation.NODE_STAGE, VOL, STAGING + "2", EXT4)))
        .as("another staging path").isEqualTo(Status.Code.ALREADY_EXISTS);
    assertThat(staged.state(VOL)).isEqualTo(VolumeState.VOL_READY);
  }

  @Test
  void publishAfterUnstageIsRefusedUntilStagedAgain() {
    call(staged, Operation.NODE_STAGE, STAGING, EXT4);
    call(staged, Operation.NODE_UNSTAGE, STAGING, "");

    assertThat(refusal(staged.decide(Operation.NODE_PUBLISH, VOL, TARGET_1, EXT4)))
        .isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(call(staged, Operation.NODE_STAGE, STAGING, XFS))
        .as("a new stage after unstage starts afresh, whatever its arguments")
        .isEqualTo(new Decision.Proceed(VolumeState.VOL_READY));
    assertThat(call(staged, Operation.NODE_PUBLISH, TARGET_1, XFS)).isInstanceOf(Decision.Proceed.class);
  }

  @Test
  void unpublishingATargetNeverPublishedKeepsTheVolumeStaged() {
    call(staged, Operation.NODE_STAGE, STAGING, EXT4);

    assertThat(call(staged, Operation.NODE_UNPUBLISH, TARGET_1, "")).isEqualTo(new Decision.AlreadyDone());
    staged.succeeded(Operation.NODE_UNPUBLISH, VOL, TARGET_1, "");

    assertThat(staged.state(VOL)).isEqualTo(VolumeState.VOL_READY);
    assertThat(staged.decide(Operation.NODE_STAGE, VOL, STAGING, EXT4)).isEqualTo(new Decision.AlreadyDone());
  }

  @Test
  void volumesAreTrackedIndependently() {
    call(staged, Operation.NODE_STAGE, STAGING, EXT4);
    call(staged, Operation.NODE_PUBLISH, TARGET_1, EXT4);

    assertThat(staged.decide(Operation.NODE_UNSTAGE, "vol-other", STAGING, "")).isInstanceOf(Decision.Proceed.class);
    assertThat(staged.state("vol-other")).isEqualTo(VolumeState.UNKNOWN);
  }

  @Test
  void withoutStagingPublishAndUnpublishAloneMoveTheVolume() {
    NodeVolumeTracker direct = new NodeVolumeTracker(new VolumeLifecycle(false));

    assertThat(call(direct, Operation.NODE_PUBLISH, TARGET_1, EXT4))
        .isEqualTo(new Decision.Proceed(VolumeState.PUBLISHED));
    assertThat(call(direct, Operation.NODE_PUBLISH, TARGET_1, EXT4)).isEqualTo(new Decision.AlreadyDone());
    assertThat(refusal(direct.decide(Operation.NODE_STAGE, VOL, STAGING, EXT4))).isEqualTo(Status.Code.UNIMPLEMENTED);

    assertThat(call(direct, Operation.NODE_UNPUBLISH, TARGET_1, "")).isInstanceOf(Decision.Proceed.class);
    assertThat(direct.state(VOL)).isEqualTo(VolumeState.UNKNOWN);
    assertThat(call(direct, Operation.NODE_PUBLISH, TARGET_1, XFS))
        .isEqualTo(new Decision.Proceed(VolumeState.PUBLISHED));
  }
}
