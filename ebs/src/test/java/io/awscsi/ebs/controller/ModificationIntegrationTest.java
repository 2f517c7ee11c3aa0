package io.awscsi.ebs.controller;

import static io.awscsi.ebs.controller.Requests.GIB;
import static io.awscsi.ebs.controller.Requests.assertError;
import static io.awscsi.ebs.controller.Requests.volume;
import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.CapacityRange;
import io.awscsi.core.provider.ExpandRequest;
import io.awscsi.core.provider.ExpandResult;
import io.awscsi.core.provider.ModifyRequest;
import io.awscsi.core.provider.VolumeExpander;
import io.awscsi.core.provider.VolumeModifier;
import io.awscsi.realism.AwsError;
import io.awscsi.realism.Fault;
import io.awscsi.realism.RealismProfile;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** ControllerExpandVolume and ControllerModifyVolume against moto behind the EC2 realism layer. */
@Tag("integration")
class ModificationIntegrationTest {

  private static Ec2Environment env;
  private EbsControllerProvider provider;
  private VolumeExpander expander;
  private VolumeModifier modifier;

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
    provider = env.provider(Ec2Environment.testOptions(), new MetricsRegistry());
    expander = provider.expander().orElseThrow();
    modifier = provider.modifier().orElseThrow();
  }

  private String newVolume(String name, int gib) {
    return provider.provisioner().createVolume(volume(name, gib, Map.of())).volumeId();
  }

  private software.amazon.awssdk.services.ec2.model.Volume describe(String volumeId) {
    return env.ec2.describeVolumes(r -> r.volumeIds(volumeId)).volumes().getFirst();
  }

  @Test
  void expandGrowsTheVolumeAndAsksTheNodeToGrowAFileSystemOnly() {
    String vol = newVolume("pvc-grow", 2);
    ExpandResult mount = expander.expand(new ExpandRequest(vol, new CapacityRange(5 * GIB, 0), Requests.MOUNT,
        Map.of()));
    assertThat(mount).isEqualTo(new ExpandResult(5 * GIB, true));
    assertThat(describe(vol).size()).isEqualTo(5);

    ExpandResult block = expander.expand(new ExpandRequest(vol, new CapacityRange(6 * GIB, 0), Requests.BLOCK,
        Map.of()));
    assertThat(block.nodeExpansionRequired()).isFalse();
    assertThat(block.capacityBytes()).isEqualTo(6 * GIB);
  }

  @Test
  void expandingToTheCurrentSizeOrLessChangesNothingAndAboveTheMaximumIsOutOfRange() {
    String vol = newVolume("pvc-same", 3);
    assertThat(expander.expand(new ExpandRequest(vol, new CapacityRange(3 * GIB, 0), Requests.MOUNT, Map.of()))
        .capacityBytes()).isEqualTo(3 * GIB);
    // The spec: a volume already larger than or equal to the target is OK; EBS volumes never shrink.
    assertThat(expander.expand(new ExpandRequest(vol, new CapacityRange(GIB, 0), Requests.MOUNT, Map.of()))
        .capacityBytes()).isEqualTo(3 * GIB);
    assertThat(env.proxy.stats().calls("ec2", "ModifyVolume")).isZero();
    assertError(() -> expander.expand(new ExpandRequest(vol, new CapacityRange(GIB, 2 * GIB), Requests.MOUNT,
        Map.of())), DriverError.OutOfRange.class, "limit_bytes");
    assertError(() -> expander.expand(new ExpandRequest(vol, new CapacityRange(Long.MAX_VALUE, 0), Requests.MOUNT,
        Map.of())), DriverError.OutOfRange.class, "capacity_range.required_bytes 9223372036854775807");
    assertError(() -> expander.expand(new ExpandRequest("vol-0123456789abcdef0", new CapacityRange(5 * GIB, 0),
        Requests.MOUNT, Map.of())), DriverError.NotFound.class);
    assertError(() -> expander.expand(new ExpandRequest(vol, new CapacityRange(70_000 * GIB, 0), Requests.MOUNT,
        Map.of())), DriverError.OutOfRange.class, "65536");
  }

  @Test
  void expandAndModifyArrivingTogetherSpendOneModifyVolume() throws Exception {
    String vol = newVolume("pvc-both", 2);
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<ExpandResult> expand = pool.submit(() -> expander.expand(new ExpandRequest(vol,
          new CapacityRange(8 * GIB, 0), Requests.MOUNT, Map.of())));
      Future<?> modify = pool.submit(() -> modifier.modify(new ModifyRequest(vol, Map.of("iops", "4000",
          "throughput", "200"), Map.of())));
      assertThat(expand.get().capacityBytes()).isEqualTo(8 * GIB);
      modify.get();
    }
    assertThat(env.proxy.stats().calls("ec2", "ModifyVolume")).isEqualTo(1);
    var v = describe(vol);
    assertThat(v.size()).isEqualTo(8);
    assertThat(v.iops()).isEqualTo(4000);
    assertThat(v.throughput()).isEqualTo(200);
  }

  @Test
  void modifyChangesTypeAndTagOnlyChangesTouchTagsOnly() {
    String vol = newVolume("pvc-mod", 10);
    modifier.modify(new ModifyRequest(vol, Map.of("type", "io2", "iops", "2000"), Map.of()));
    assertThat(describe(vol).volumeTypeAsString()).isEqualTo("io2");
    assertThat(describe(vol).iops()).isEqualTo(2000);
    long modifications = env.proxy.stats().calls("ec2", "ModifyVolume");
    assertThat(modifications).isEqualTo(1);

    env.ec2.createTags(r -> r.resources(vol).tags(t -> t.key("stale").value("x")));
    modifier.modify(new ModifyRequest(vol, Map.of("tagSpecification_1", "team=storage", "tagDeletion_1", "stale",
        "csi.storage.k8s.io/pvc/name", "data", "tagSpecification_2", "pvc={{ .PVCName }}"), Map.of()));
    Map<String, String> tags = describe(vol).tags().stream().collect(Collectors.toMap(t -> t.key(), t -> t.value()));
    assertThat(tags).containsEntry("team", "storage").containsEntry("pvc", "data").doesNotContainKey("stale")
        .containsEntry("CSIVolumeName", "pvc-mod");
    assertThat(env.proxy.stats().calls("ec2", "ModifyVolume")).isEqualTo(modifications);

    // Asking again for what the volume already has does not spend a modification either.
    modifier.modify(new ModifyRequest(vol, Map.of("type", "io2", "iops", "2000"), Map.of()));
    assertThat(env.proxy.stats().calls("ec2", "ModifyVolume")).isEqualTo(modifications);
  }

  @Test
  void invalidMutableParametersAreInvalidArgumentNamingThem() {
    String vol = newVolume("pvc-bad", 1);
    assertError(() -> modifier.modify(new ModifyRequest(vol, Map.of("size", "10"), Map.of())),
        DriverError.InvalidArgument.class, "size");
    assertError(() -> modifier.modify(new ModifyRequest(vol, Map.of("throughput", "9000"), Map.of())),
        DriverError.InvalidArgument.class, "throughput");
    assertError(() -> modifier.modify(new ModifyRequest(vol, Map.of("tagDeletion_1", "CSIVolumeName"), Map.of())),
        DriverError.InvalidArgument.class, "tagDeletion_1");
    assertError(() -> modifier.modify(new ModifyRequest("vol-0123456789abcdef0", Map.of("iops", "3000"), Map.of())),
        DriverError.NotFound.class);
    assertThat(env.proxy.stats().calls("ec2", "ModifyVolume")).isZero();
  }

  @Test
  void ec2sModificationLimitsBecomeRetryableErrors() {
    String vol = newVolume("pvc-limit", 1);
    try (var fault = env.proxy.injectFault(Fault.ec2("ModifyVolume", AwsError.badRequest(
        "VolumeModificationRateExceeded", "You've reached the maximum modification rate per volume limit.")))) {
      assertError(() -> expander.expand(new ExpandRequest(vol, new CapacityRange(2 * GIB, 0), Requests.MOUNT,
          Map.of())), DriverError.ResourceExhausted.class, "modifications per volume");
    }
    try (var fault = env.proxy.injectFault(Fault.ec2("ModifyVolume", AwsError.badRequest(
        "IncorrectModificationState", "Volume " + vol + " is already being modified.")))) {
      assertError(() -> expander.expand(new ExpandRequest(vol, new CapacityRange(2 * GIB, 0), Requests.MOUNT,
          Map.of())), DriverError.Unavailable.class, "optimizing or completed");
    }
  }
}
