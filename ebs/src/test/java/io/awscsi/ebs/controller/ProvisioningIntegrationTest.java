package io.awscsi.ebs.controller;

import static io.awscsi.ebs.controller.Requests.GIB;
import static io.awscsi.ebs.controller.Requests.assertError;
import static io.awscsi.ebs.controller.Requests.volume;
import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.AccessMode;
import io.awscsi.core.provider.CapabilityCheck;
import io.awscsi.core.provider.CapacityRange;
import io.awscsi.core.provider.TopologyRequirement;
import io.awscsi.core.provider.Volume;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.core.provider.VolumeRequest;
import io.awscsi.core.provider.VolumeSource;
import io.awscsi.realism.RealismProfile;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.Tag;

/** CreateVolume, DeleteVolume and ValidateVolumeCapabilities against moto behind the EC2 realism layer. */
@org.junit.jupiter.api.Tag("integration")
class ProvisioningIntegrationTest {

  private static Ec2Environment env;
  private EbsControllerProvider provider;

  @BeforeAll
  static void startEc2() {
    env = Ec2Environment.start(RealismProfile.fast());
  }

  @AfterAll
  static void stopEc2() {
    env.close();
  }

  @BeforeEach
  void fresh() {
    env.reset();
    provider = env.provider(Ec2Environment.testOptions().withExtraTags(Map.of("env", "test"))
        .withK8sTagClusterId("kube1"), new MetricsRegistry());
  }

  private Map<String, String> tagsOf(String volumeId) {
    return env.ec2.describeVolumes(r -> r.volumeIds(volumeId)).volumes().getFirst().tags().stream()
        .collect(Collectors.toMap(Tag::key, Tag::value));
  }

  private List<String> volumesNamed(String name) {
    return env.ec2.describeVolumes(r -> r.filters(Filter.builder().name("tag:CSIVolumeName").values(name).build()))
        .volumes().stream().map(v -> v.volumeId()).toList();
  }

  @Test
  void createsAnAvailableGp3VolumeWithTagsTopologyAndContext() {
    Volume v = provider.provisioner().createVolume(volume("pvc-1", 7, Map.of(
        "csi.storage.k8s.io/pvc/name", "data", "csi.storage.k8s.io/pvc/namespace", "shop",
        "csi.storage.k8s.io/pv/name", "pvc-1", "tagSpecification_1", "owner={{ .PVCNamespace | toUpper }}",
        "blockSize", "4096")));

    assertThat(v.volumeId()).startsWith("vol-");
    assertThat(v.capacityBytes()).isEqualTo(7 * GIB);
    assertThat(v.accessibleTopology()).containsExactly(Map.of("topology.kubernetes.io/zone", Ec2Environment.ZONE));
    assertThat(v.volumeContext()).containsEntry("blocksize", "4096");
    var described = env.ec2.describeVolumes(r -> r.volumeIds(v.volumeId())).volumes().getFirst();
    assertThat(described.stateAsString()).isEqualTo("available");
    assertThat(described.volumeTypeAsString()).isEqualTo("gp3");
    assertThat(tagsOf(v.volumeId())).containsEntry("CSIVolumeName", "pvc-1")
        .containsEntry("ebs.csi.aws.com/cluster", "true")
        .containsEntry("env", "test")
        .containsEntry("owner", "SHOP")
        .containsEntry("kubernetes.io/created-for/pvc/name", "data")
        .containsEntry("kubernetes.io/created-for/pvc/namespace", "shop")
        .containsEntry("kubernetes.io/cluster/kube1", "owned")
        .containsEntry("Name", "kube1-dynamic-pvc-1");
  }

  @Test
  void withoutCapacityOrTopologyTheVolumeIs100GiBInTheFirstZone() {
    Volume v = provider.provisioner().createVolume(new VolumeRequest("pvc-default", CapacityRange.UNSPECIFIED,
        List.of(Requests.MOUNT), Map.of(), Map.of(), Map.of(), new VolumeSource.Empty(), TopologyRequirement.NONE));
    assertThat(v.capacityBytes()).isEqualTo(100 * GIB);
    assertThat(v.accessibleTopology().getFirst().get("topology.kubernetes.io/zone")).isEqualTo("us-east-1a");
  }

  @Test
  void theSameNameReturnsTheSameVolume() {
    Volume first = provider.provisioner().createVolume(volume("pvc-same", 3, Map.of()));
    Volume again = provider.provisioner().createVolume(volume("pvc-same", 3, Map.of()));
    assertThat(again.volumeId()).isEqualTo(first.volumeId());
    assertThat(volumesNamed("pvc-same")).containsExactly(first.volumeId());
  }

  @Test
  void aVolumeMadeBeforeACrashIsFoundByItsClientToken() {
    // Another controller process made the volume and died before answering; this one knows nothing of it.
    EbsControllerProvider crashed = env.provider(Ec2Environment.testOptions().withExtraTags(Map.of("env", "test"))
        .withK8sTagClusterId("kube1"), new MetricsRegistry());
    String made = crashed.provisioner().createVolume(volume("pvc-crash", 4, Map.of())).volumeId();
    long creates = env.proxy.stats().calls("ec2", "CreateVolume");

    Volume v = provider.provisioner().createVolume(volume("pvc-crash", 4, Map.of()));
    assertThat(v.volumeId()).isEqualTo(made);
    assertThat(volumesNamed("pvc-crash")).containsExactly(made);
    assertThat(env.proxy.stats().calls("ec2", "CreateVolume") - creates).isEqualTo(1);
  }

  @Test
  void createVolumeLooksNothingUpByNameBeforeCreating() {
    // A tripwire: any DescribeVolumes by the name tag fails, so a lookup before CreateVolume would fail the call.
    try (var byName = env.proxy.injectFault(io.awscsi.realism.Fault.ec2("DescribeVolumes",
        io.awscsi.realism.AwsError.of(500, "InternalError", "no lookup by name expected"))
        .when(r -> r.params().containsValue("tag:CSIVolumeName")))) {
      Volume v = provider.provisioner().createVolume(volume("pvc-nolookup", 2, Map.of()));
      assertThat(v.volumeId()).startsWith("vol-");
      assertThat(provider.provisioner().createVolume(volume("pvc-nolookup", 2, Map.of())).volumeId())
          .isEqualTo(v.volumeId());
      assertThat(byName.hits()).isZero();
    }
  }

  @Test
  void aNameReusedAfterDeleteGetsANewVolume() {
    // EC2 answers a known ClientToken with the volume it made then, even once that volume is deleted.
    Volume first = provider.provisioner().createVolume(volume("pvc-reuse", 1, Map.of()));
    provider.provisioner().deleteVolume(first.volumeId(), Map.of());
    Volume second = provider.provisioner().createVolume(volume("pvc-reuse", 1, Map.of()));
    assertThat(second.volumeId()).isNotEqualTo(first.volumeId());
    assertThat(env.ec2.describeVolumes(r -> r.volumeIds(second.volumeId())).volumes().getFirst().stateAsString())
        .isEqualTo("available");
  }

  @Test
  void theSameNameWithOtherPropertiesIsAlreadyExists() {
    provider.provisioner().createVolume(volume("pvc-diff", 3, Map.of()));
    assertError(() -> provider.provisioner().createVolume(volume("pvc-diff", 5, Map.of())),
        DriverError.AlreadyExists.class, "size 3 GiB (requested 5 GiB)");
    assertError(() -> provider.provisioner().createVolume(volume("pvc-diff", 3, Map.of("type", "gp2"))),
        DriverError.AlreadyExists.class, "type gp3");
  }

  @Test
  void hundredConcurrentCreatesWithTwentyRepeatedNamesMakeEightyVolumes() throws Exception {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 80; i++) {
      names.add("pvc-c" + i);
    }
    for (int i = 0; i < 20; i++) {
      names.add("pvc-c" + (i * 3));
    }
    List<Future<Volume>> futures = new ArrayList<>();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (String name : names) {
        futures.add(pool.submit(() -> provider.provisioner().createVolume(volume(name, 1, Map.of()))));
      }
    }
    Set<String> ids = new HashSet<>();
    for (Future<Volume> f : futures) {
      ids.add(f.get().volumeId());
    }
    assertThat(ids).hasSize(80);
    long csiVolumes = env.ec2.describeVolumes(r -> r.filters(Filter.builder().name("tag-key").values("CSIVolumeName")
        .build())).volumes().size();
    assertThat(csiVolumes).isEqualTo(80);
  }

  @Test
  void restoresFromASnapshotAndRefusesAMissingOne() throws Exception {
    Volume source = provider.provisioner().createVolume(volume("pvc-src", 2, Map.of()));
    var snapshot = provider.snapshots().orElseThrow().createSnapshot(new io.awscsi.core.provider.SnapshotRequest(
        source.volumeId(), "snap-for-restore", Map.of(), Map.of()));
    awaitSnapshotReady(snapshot.snapshotId());

    Volume restored = provider.provisioner().createVolume(volume("pvc-restored", 3, Map.of(),
        Requests.MOUNT, new VolumeSource.FromSnapshot(snapshot.snapshotId())));
    assertThat(env.ec2.describeVolumes(r -> r.volumeIds(restored.volumeId())).volumes().getFirst().snapshotId())
        .isEqualTo(snapshot.snapshotId());
    assertThat(restored.source()).isEqualTo(new VolumeSource.FromSnapshot(snapshot.snapshotId()));

    assertError(() -> provider.provisioner().createVolume(volume("pvc-nosnap", 3, Map.of(), Requests.MOUNT,
        new VolumeSource.FromSnapshot("snap-0123456789abcdef0"))), DriverError.NotFound.class, "snapshot");
    assertError(() -> provider.provisioner().createVolume(volume("pvc-small", 1, Map.of(), Requests.MOUNT,
        new VolumeSource.FromSnapshot(snapshot.snapshotId()))), DriverError.OutOfRange.class, "2 GiB");
  }

  private void awaitSnapshotReady(String snapshotId) throws InterruptedException {
    for (int i = 0; i < 100; i++) {
      var page = provider.snapshots().orElseThrow().listSnapshots(new io.awscsi.core.provider.SnapshotQuery(
          snapshotId, "", 0, ""));
      if (!page.entries().isEmpty() && page.entries().getFirst().readyToUse()) {
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("snapshot " + snapshotId + " never completed");
  }

  @Test
  void clonesAVolumeInItsZoneWithCopyVolumes() {
    Volume source = provider.provisioner().createVolume(volume("pvc-orig", 2, Map.of()));
    Volume clone = provider.provisioner().createVolume(volume("pvc-clone", 4, Map.of(), Requests.MOUNT,
        new VolumeSource.FromVolume(source.volumeId())));
    assertThat(clone.volumeId()).isNotEqualTo(source.volumeId());
    assertThat(clone.capacityBytes()).isEqualTo(4 * GIB);
    assertThat(clone.accessibleTopology()).isEqualTo(source.accessibleTopology());
    assertThat(env.proxy.stats().calls("ec2", "CopyVolumes")).isEqualTo(1);
    assertThat(tagsOf(clone.volumeId())).containsEntry("CSIVolumeName", "pvc-clone");

    assertError(() -> provider.provisioner().createVolume(volume("pvc-clone2", 4, Map.of(), Requests.MOUNT,
        new VolumeSource.FromVolume("vol-0123456789abcdef0"))), DriverError.NotFound.class, "source volume");
    assertError(() -> provider.provisioner().createVolume(volume("pvc-clone3", 1, Map.of(), Requests.MOUNT,
        new VolumeSource.FromVolume(source.volumeId()))), DriverError.OutOfRange.class, "at least as large");
  }

  @Test
  void invalidParametersAndSizesAreRefusedBeforeEc2() {
    assertError(() -> provider.provisioner().createVolume(volume("pvc-x", 1, Map.of("color", "blue"))),
        DriverError.InvalidArgument.class, "color");
    assertError(() -> provider.provisioner().createVolume(volume("pvc-x", 20_000, Map.of("type", "gp2"))),
        DriverError.OutOfRange.class, "16384");
    assertError(() -> provider.provisioner().createVolume(volume("pvc-x", 1, Map.of("type", "io1"))),
        DriverError.OutOfRange.class, "io1");
    assertError(() -> provider.provisioner().createVolume(volume("pvc-x", 1, Map.of("type", "gp3"),
        Requests.MULTI_BLOCK, new VolumeSource.Empty())), DriverError.InvalidArgument.class, "io2");
    assertError(() -> provider.provisioner().createVolume(volume("pvc-x", 1, Map.of(),
        VolumeCapability.mount(AccessMode.MULTI_NODE_READER_ONLY, ""), new VolumeSource.Empty())),
        DriverError.InvalidArgument.class, "MULTI_NODE_READER_ONLY");
    assertThat(env.proxy.stats().calls("ec2", "CreateVolume")).isZero();
  }

  @Test
  void ec2LimitsAndRefusalsBecomeTheSpecsCodes() {
    try (var fault = env.proxy.injectFault(io.awscsi.realism.Fault.ec2("CreateVolume",
        io.awscsi.realism.AwsError.badRequest("VolumeLimitExceeded", "You have exceeded your maximum gp3 storage "
            + "limit")))) {
      assertError(() -> provider.provisioner().createVolume(volume("pvc-quota", 1, Map.of())),
          DriverError.ResourceExhausted.class, "VolumeLimitExceeded", "quota");
    }
    try (var fault = env.proxy.injectFault(io.awscsi.realism.Fault.ec2("CreateVolume",
        io.awscsi.realism.AwsError.of(403, "UnauthorizedOperation", "You are not authorized")))) {
      assertError(() -> provider.provisioner().createVolume(volume("pvc-denied", 1, Map.of())),
          DriverError.PermissionDenied.class, "IAM");
    }
    assertThat(volumesNamed("pvc-quota")).isEmpty();
  }

  @Test
  void deleteIsIdempotentAndRefusesAnAttachedVolume() {
    Volume v = provider.provisioner().createVolume(volume("pvc-del", 1, Map.of()));
    String node = env.runInstance(Ec2Environment.ZONE);
    provider.attacher().orElseThrow().publish(Requests.publish(v.volumeId(), node, Requests.MOUNT));

    // EC2 refuses (VolumeInUse); the refusal is described to name the node, and the volume stays.
    assertError(() -> provider.provisioner().deleteVolume(v.volumeId(), Map.of()),
        DriverError.FailedPrecondition.class, v.volumeId(), node);
    assertThat(env.proxy.stats().action("ec2", "DeleteVolume").errorCodes()).containsEntry("VolumeInUse", 1L);
    assertThat(env.ec2.describeVolumes(r -> r.volumeIds(v.volumeId())).volumes()).hasSize(1);

    provider.attacher().orElseThrow().unpublish(v.volumeId(), node, Map.of());
    provider.provisioner().deleteVolume(v.volumeId(), Map.of());
    provider.provisioner().deleteVolume(v.volumeId(), Map.of());
    provider.provisioner().deleteVolume("vol-0123456789abcdef0", Map.of());
    provider.provisioner().deleteVolume("not-a-volume-id", Map.of());
  }

  @Test
  void deleteSendsDeleteVolumeWithoutDescribingFirst() {
    Volume v = provider.provisioner().createVolume(volume("pvc-del2", 1, Map.of()));
    long describes = env.proxy.stats().calls("ec2", "DescribeVolumes");

    provider.provisioner().deleteVolume(v.volumeId(), Map.of());
    provider.provisioner().deleteVolume(v.volumeId(), Map.of()); // EC2: InvalidVolume.NotFound, i.e. done

    assertThat(env.proxy.stats().calls("ec2", "DescribeVolumes") - describes).isZero();
    assertThat(env.proxy.stats().calls("ec2", "DeleteVolume")).isEqualTo(2);
    assertThat(env.proxy.stats().action("ec2", "DeleteVolume").errorCodes())
        .containsEntry("InvalidVolume.NotFound", 1L);
    assertThat(volumesNamed("pvc-del2")).isEmpty();
  }

  @Test
  void validatesCapabilitiesAgainstTheVolume() {
    Volume v = provider.provisioner().createVolume(volume("pvc-val", 1, Map.of()));
    var provisioner = provider.provisioner();
    assertThat(provisioner.validateCapabilities(v.volumeId(), List.of(Requests.MOUNT), Map.of(), Map.of()))
        .isInstanceOf(CapabilityCheck.Confirmed.class);
    assertThat(provisioner.validateCapabilities(v.volumeId(), List.of(Requests.MULTI_BLOCK), Map.of(), Map.of()))
        .isInstanceOf(CapabilityCheck.Unsupported.class);
    assertError(() -> provisioner.validateCapabilities("vol-0123456789abcdef0", List.of(Requests.MOUNT), Map.of(),
        Map.of()), DriverError.NotFound.class);
  }
}
