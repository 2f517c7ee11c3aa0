package io.awscsi.realism.ec2;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.realism.AwsClients;
import io.awscsi.realism.Eventually;
import io.awscsi.realism.Latency;
import io.awscsi.realism.ManualClock;
import io.awscsi.realism.MotoExtension;
import io.awscsi.realism.RealismProfile;
import io.awscsi.realism.RealismProxy;
import io.awscsi.realism.process.MotoServer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.AttachmentStatus;
import software.amazon.awssdk.services.ec2.model.InstanceBlockDeviceMapping;
import software.amazon.awssdk.services.ec2.model.Snapshot;
import software.amazon.awssdk.services.ec2.model.SnapshotState;
import software.amazon.awssdk.services.ec2.model.Volume;
import software.amazon.awssdk.services.ec2.model.VolumeAttachmentState;
import software.amazon.awssdk.services.ec2.model.VolumeModification;
import software.amazon.awssdk.services.ec2.model.VolumeModificationState;
import software.amazon.awssdk.services.ec2.model.VolumeState;
import software.amazon.awssdk.services.ec2.model.VolumeType;

/**
 * Asynchronous EC2 states through the proxy; against plain moto every state here would be final at once. The proxy
 * runs on a manual clock with fixed latencies so each state is observed deterministically; one test uses real time.
 */
@Tag("integration")
@ExtendWith(MotoExtension.class)
class Ec2StatesIntegrationTest {

  private static final Duration WAIT = Duration.ofSeconds(5);
  private static final String ZONE = "us-east-1a";

  /** Every step takes a known time: 2 s for volumes and attachments, 10 s for snapshots and optimizing. */
  private static final RealismProfile FIXED = RealismProfile.fast()
      .withVolumeCreation(Latency.fixed(Duration.ofSeconds(2)))
      .withVolumeAttach(Latency.fixed(Duration.ofSeconds(2)))
      .withVolumeDetach(Latency.fixed(Duration.ofSeconds(2)))
      .withSnapshotCompletion(Latency.fixed(Duration.ofSeconds(10)))
      .withModification(Latency.fixed(Duration.ofSeconds(2)), Latency.fixed(Duration.ofSeconds(10)));

  private final ManualClock clock = ManualClock.startingAt(Instant.parse("2026-03-01T10:00:00Z"));
  private MotoServer moto;
  private RealismProxy proxy;
  private Ec2Client ec2;

  @BeforeEach
  void start(MotoServer motoServer) {
    moto = motoServer;
    proxy = RealismProxy.builder().upstream(moto.endpoint()).profile(FIXED).clock(clock).start();
    proxy.reset();
    ec2 = AwsClients.ec2(proxy.endpoint());
  }

  @AfterEach
  void stop() {
    ec2.close();
    proxy.close();
  }

  @Test
  void createdVolumeIsCreatingAndLaterAvailable() {
    String volumeId = ec2.createVolume(r -> r.availabilityZone(ZONE).size(10).volumeType(VolumeType.GP3)).volumeId();

    assertThat(volume(volumeId).state()).isEqualTo(VolumeState.CREATING);
    clock.advance(Duration.ofMillis(1900));
    assertThat(volume(volumeId).state()).isEqualTo(VolumeState.CREATING);
    clock.advance(Duration.ofMillis(100));
    assertThat(volume(volumeId).state()).isEqualTo(VolumeState.AVAILABLE);
  }

  @Test
  void statesProgressInRealTimeWithTheFastProfile() {
    try (var realTime = RealismProxy.builder().upstream(moto.endpoint()).profile(RealismProfile.fast()).start();
         var client = AwsClients.ec2(realTime.endpoint())) {
      String volumeId = client.createVolume(r -> r.availabilityZone(ZONE).size(10)).volumeId();
      assertThat(client.describeVolumes(r -> r.volumeIds(volumeId)).volumes().getFirst().state())
          .isEqualTo(VolumeState.CREATING);
      Eventually.await(WAIT, () -> client.describeVolumes(r -> r.volumeIds(volumeId)).volumes().getFirst().state(),
          VolumeState.AVAILABLE::equals);
    }
  }

  @Test
  void createVolumeAnswerSaysCreating() {
    var created = ec2.createVolume(r -> r.availabilityZone(ZONE).size(10));

    assertThat(created.state()).isEqualTo(VolumeState.CREATING);
  }

  @Test
  void attachIsAttachingThenAttachedInVolumesAndInstances() {
    String instanceId = runInstance();
    String volumeId = availableVolume(10);

    var attach = ec2.attachVolume(r -> r.volumeId(volumeId).instanceId(instanceId).device("/dev/xvdba"));

    assertThat(attach.state()).isEqualTo(VolumeAttachmentState.ATTACHING);
    assertThat(volume(volumeId).attachments()).singleElement()
        .satisfies(a -> assertThat(a.state()).isEqualTo(VolumeAttachmentState.ATTACHING));
    assertThat(volume(volumeId).state()).isEqualTo(VolumeState.IN_USE);
    assertThat(mapping(instanceId, volumeId).ebs().status()).isEqualTo(AttachmentStatus.ATTACHING);
    clock.advance(Duration.ofSeconds(2));
    assertThat(volume(volumeId).attachments().getFirst().state()).isEqualTo(VolumeAttachmentState.ATTACHED);
    assertThat(mapping(instanceId, volumeId).ebs().status()).isEqualTo(AttachmentStatus.ATTACHED);
  }

  @Test
  void detachIsDetachingThenTheAttachmentIsGone() {
    String instanceId = runInstance();
    String volumeId = attachedVolume(instanceId, "/dev/xvdbb");

    var detach = ec2.detachVolume(r -> r.volumeId(volumeId));

    assertThat(detach.state()).isEqualTo(VolumeAttachmentState.DETACHING);
    assertThat(detach.instanceId()).isEqualTo(instanceId);
    assertThat(volume(volumeId).state()).isEqualTo(VolumeState.IN_USE);
    assertThat(volume(volumeId).attachments()).singleElement()
        .satisfies(a -> assertThat(a.state()).isEqualTo(VolumeAttachmentState.DETACHING));
    assertThat(mapping(instanceId, volumeId).ebs().status()).isEqualTo(AttachmentStatus.DETACHING);
    clock.advance(Duration.ofSeconds(2));
    assertThat(volume(volumeId).attachments()).isEmpty();
    assertThat(volume(volumeId).state()).isEqualTo(VolumeState.AVAILABLE);
    assertThat(ec2.describeInstances(r -> r.instanceIds(instanceId)).reservations().getFirst().instances().getFirst()
        .blockDeviceMappings()).noneMatch(m -> m.ebs().volumeId().equals(volumeId));
  }

  @Test
  void heldAttachmentStaysAttachingUntilReleased() {
    String instanceId = runInstance();
    String volumeId = availableVolume(10);
    proxy.holdAttaching(volumeId);

    ec2.attachVolume(r -> r.volumeId(volumeId).instanceId(instanceId).device("/dev/xvdbc"));
    clock.advance(Duration.ofHours(1));

    assertThat(volume(volumeId).attachments().getFirst().state()).isEqualTo(VolumeAttachmentState.ATTACHING);
    proxy.releaseAttaching(volumeId);
    assertThat(volume(volumeId).attachments().getFirst().state()).isEqualTo(VolumeAttachmentState.ATTACHED);
  }

  @Test
  void anAttachHeldOverHttpStaysAttachingUntilReleasedOverHttp() throws Exception {
    String instanceId = runInstance();
    String volumeId = availableVolume(10);
    assertThat(post("/realism/ec2/attachments/hold?volumeId=" + volumeId).statusCode()).isEqualTo(200);

    ec2.attachVolume(r -> r.volumeId(volumeId).instanceId(instanceId).device("/dev/xvdbd"));
    clock.advance(Duration.ofHours(1));

    assertThat(volume(volumeId).attachments().getFirst().state()).isEqualTo(VolumeAttachmentState.ATTACHING);
    assertThat(post("/realism/ec2/attachments/release?volumeId=" + volumeId).statusCode()).isEqualTo(200);
    assertThat(volume(volumeId).attachments().getFirst().state()).isEqualTo(VolumeAttachmentState.ATTACHED);
    var refused = post("/realism/ec2/attachments/hold");
    assertThat(refused.statusCode()).isEqualTo(400);
    assertThat(refused.body()).contains("needs ?volumeId=vol-");
  }

  private java.net.http.HttpResponse<String> post(String path) throws Exception {
    try (var http = java.net.http.HttpClient.newHttpClient()) {
      return http.send(java.net.http.HttpRequest.newBuilder(proxy.endpoint().resolve(path))
          .POST(java.net.http.HttpRequest.BodyPublishers.noBody()).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
    }
  }

  @Test
  void snapshotIsPendingWithProgressThenCompleted() {
    String volumeId = availableVolume(10);

    var created = ec2.createSnapshot(r -> r.volumeId(volumeId));

    assertThat(created.state()).isEqualTo(SnapshotState.PENDING);
    Snapshot described = snapshot(created.snapshotId());
    assertThat(described.state()).isEqualTo(SnapshotState.PENDING);
    assertThat(described.progress()).isEqualTo("0%");
    clock.advance(Duration.ofSeconds(5));
    assertThat(snapshot(created.snapshotId()).progress()).isEqualTo("50%");
    clock.advance(Duration.ofSeconds(5));
    Snapshot done = snapshot(created.snapshotId());
    assertThat(done.state()).isEqualTo(SnapshotState.COMPLETED);
    assertThat(done.progress()).isEqualTo("100%");
  }

  @Test
  void modificationGoesThroughModifyingAndOptimizingAndShowsTheOldSizeWhileModifying() {
    String volumeId = availableVolume(10);

    VolumeModification started = ec2.modifyVolume(r -> r.volumeId(volumeId).size(20)).volumeModification();

    assertThat(started.modificationState()).isEqualTo(VolumeModificationState.MODIFYING);
    assertThat(started.originalSize()).isEqualTo(10);
    assertThat(started.targetSize()).isEqualTo(20);
    assertThat(modification(volumeId).modificationState()).isEqualTo(VolumeModificationState.MODIFYING);
    assertThat(volume(volumeId).size()).isEqualTo(10);
    clock.advance(Duration.ofSeconds(2));
    assertThat(modification(volumeId).modificationState()).isEqualTo(VolumeModificationState.OPTIMIZING);
    assertThat(volume(volumeId).size()).isEqualTo(20);
    clock.advance(Duration.ofSeconds(10));
    VolumeModification completed = modification(volumeId);
    assertThat(completed.modificationState()).isEqualTo(VolumeModificationState.COMPLETED);
    assertThat(completed.progress()).isEqualTo(100L);
    assertThat(completed.endTime()).isNotNull();
  }

  @Test
  void copiedVolumeIsCreatingWithItsSource() {
    String sourceId = availableVolume(12);

    List<Volume> copies = ec2.copyVolumes(r -> r.sourceVolumeId(sourceId)).volumes();

    assertThat(copies).singleElement().satisfies(copy -> {
      assertThat(copy.state()).isEqualTo(VolumeState.CREATING);
      assertThat(copy.size()).isEqualTo(12);
      assertThat(copy.availabilityZone()).isEqualTo(ZONE);
      assertThat(copy.sourceVolumeId()).isEqualTo(sourceId);
    });
    String copyId = copies.getFirst().volumeId();
    clock.advance(Duration.ofSeconds(2));
    Volume available = volume(copyId);
    assertThat(available.state()).isEqualTo(VolumeState.AVAILABLE);
    assertThat(available.sourceVolumeId()).isEqualTo(sourceId);
  }

  // ---- helpers ----

  private String runInstance() {
    return ec2.runInstances(r -> r.imageId("ami-12c6146b").minCount(1).maxCount(1).instanceType("m5.large")
        .placement(p -> p.availabilityZone(ZONE))).instances().getFirst().instanceId();
  }

  private String availableVolume(int size) {
    String volumeId = ec2.createVolume(r -> r.availabilityZone(ZONE).size(size)).volumeId();
    clock.advance(Duration.ofSeconds(2));
    return volumeId;
  }

  private String attachedVolume(String instanceId, String device) {
    String volumeId = availableVolume(10);
    ec2.attachVolume(r -> r.volumeId(volumeId).instanceId(instanceId).device(device));
    clock.advance(Duration.ofSeconds(2));
    return volumeId;
  }

  private Volume volume(String volumeId) {
    return ec2.describeVolumes(r -> r.volumeIds(volumeId)).volumes().getFirst();
  }

  private Snapshot snapshot(String snapshotId) {
    return ec2.describeSnapshots(r -> r.snapshotIds(snapshotId)).snapshots().getFirst();
  }

  private VolumeModification modification(String volumeId) {
    return ec2.describeVolumesModifications(r -> r.volumeIds(volumeId)).volumesModifications().getFirst();
  }

  private InstanceBlockDeviceMapping mapping(String instanceId, String volumeId) {
    return ec2.describeInstances(r -> r.instanceIds(instanceId)).reservations().getFirst().instances().getFirst()
        .blockDeviceMappings().stream().filter(m -> m.ebs().volumeId().equals(volumeId)).findFirst()
        .orElseThrow(() -> new AssertionError("no block device mapping for " + volumeId + " on " + instanceId));
  }
}
