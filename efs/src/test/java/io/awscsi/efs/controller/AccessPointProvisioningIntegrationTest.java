package io.awscsi.efs.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.LinuxMounter;
import io.awscsi.core.host.RecordingCommandRunner;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.AccessMode;
import io.awscsi.core.provider.CapabilityCheck;
import io.awscsi.core.provider.CapacityRange;
import io.awscsi.core.provider.TopologyRequirement;
import io.awscsi.core.provider.Volume;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.core.provider.VolumeProvisioner;
import io.awscsi.core.provider.VolumeRequest;
import io.awscsi.core.provider.VolumeSource;
import io.awscsi.efs.testing.MotoEfs;
import io.awscsi.efs.volume.VolumeHandle;
import io.awscsi.realism.AwsError;
import io.awscsi.realism.Fault;
import io.awscsi.realism.RealismProfile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.efs.model.AccessPointDescription;
import software.amazon.awssdk.services.efs.model.Tag;

/** efs-ap provisioning against moto behind the realism proxy (ClientToken, paging, AccessPointNotFound, quota). */
@org.junit.jupiter.api.Tag("integration")
class AccessPointProvisioningIntegrationTest {

  private static final long GIB = 1L << 30;
  private static MotoEfs aws;

  private MetricsRegistry metrics;
  private EfsControllerProvider controller;
  private String fs;

  @BeforeAll
  static void startAws() {
    aws = MotoEfs.start(RealismProfile.instant());
  }

  @AfterAll
  static void stopAws() {
    aws.close();
  }

  @BeforeEach
  void setUp() {
    aws.reset();
    fs = aws.createFileSystem();
    metrics = new MetricsRegistry();
    controller = newController(Map.of("team", "storage"));
  }

  @AfterEach
  void tearDown() {
    controller.close();
  }

  /** A controller as after a restart: a fresh allocator, nothing remembered. */
  private EfsControllerProvider newController(Map<String, String> tags) {
    LinuxMounter unusedMounter = new LinuxMounter(new RecordingCommandRunner(), Path.of("/proc/self/mountinfo"),
        Duration.ofSeconds(5));
    return EfsControllerProvider.create(new EfsControllerOptions(tags, false, Path.of("/unused"), ""), aws.clouds(metrics), unusedMounter);
  }

  private VolumeProvisioner provisioner() {
    return controller.provisioner();
  }

  private Map<String, String> parameters(String... extra) {
    Map<String, String> p = new HashMap<>(Map.of("provisioningMode", "efs-ap", "fileSystemId", fs,
        "directoryPerms", "700"));
    for (int i = 0; i < extra.length; i += 2) {
      p.put(extra[i], extra[i + 1]);
    }
    return p;
  }

  private static VolumeRequest request(String name, Map<String, String> parameters) {
    return request(name, parameters, Map.of());
  }

  private static VolumeRequest request(String name, Map<String, String> parameters, Map<String, String> secrets) {
    return new VolumeRequest(name, new CapacityRange(5 * GIB, 0),
        List.of(VolumeCapability.mount(AccessMode.MULTI_NODE_MULTI_WRITER, "")), parameters, Map.of(), secrets,
        new VolumeSource.Empty(), TopologyRequirement.NONE);
  }

  private List<AccessPointDescription> accessPoints() {
    return aws.efs().describeAccessPointsPaginator(r -> r.fileSystemId(fs)).accessPoints().stream().toList();
  }

  private AccessPointDescription accessPoint(String volumeId) {
    return aws.efs().describeAccessPoints(r -> r.accessPointId(VolumeHandle.parse(volumeId).accessPointId()))
        .accessPoints().getFirst();
  }

  @Test
  void createsAnAccessPointVolumeWithUpstreamsIdAndEchoedCapacity() {
    Volume volume = provisioner().createVolume(request("pvc-1", parameters("basePath", "/dynamic")));

    assertThat(volume.volumeId()).matches("efs:" + fs + "::fsap-[0-9a-f]{8,40}");
    assertThat(volume.capacityBytes()).isEqualTo(5 * GIB);
    assertThat(volume.volumeContext()).isEmpty();
    assertThat(volume.accessibleTopology()).isEmpty();
    AccessPointDescription ap = accessPoint(volume.volumeId());
    assertThat(ap.clientToken()).isEqualTo("pvc-1");
    assertThat(ap.posixUser().uid()).isEqualTo(50000);
    assertThat(ap.posixUser().gid()).isEqualTo(50000);
    assertThat(ap.rootDirectory().path()).isEqualTo("/dynamic/pvc-1");
    assertThat(ap.rootDirectory().creationInfo().permissions()).isEqualTo("700");
    assertThat(ap.rootDirectory().creationInfo().ownerUid()).isEqualTo(50000);
    Map<String, String> tags = new HashMap<>(ap.tags().stream().collect(Collectors.toMap(Tag::key, Tag::value)));
    assertThat(tags.remove("efs.csi.aws.com/request")).as("the request's fingerprint").matches("[0-9a-f]{64}");
    assertThat(tags).containsExactlyInAnyOrderEntriesOf(
        Map.of("efs.csi.aws.com/cluster", "true", "team", "storage", "efs.csi.aws.com/base-path", "/dynamic",
            "efs.csi.aws.com/directory", "/dynamic/pvc-1", "efs.csi.aws.com/capacity-bytes",
            Long.toString(5 * GIB)));
  }

  @Test
  void aRepeatWithOtherPermissionsOrCapabilitiesIsAlreadyExistsAlsoAfterARestart() {
    Volume first = provisioner().createVolume(request("pvc-perms", parameters()));

    assertThatThrownBy(() -> provisioner().createVolume(request("pvc-perms", parameters("directoryPerms", "777"))))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.AlreadyExists.class))
        .hasMessageContaining("parameters.directoryPerms \"700\" -> \"777\"");
    controller.close();
    controller = newController(Map.of("team", "storage"));
    assertThatThrownBy(() -> provisioner().createVolume(request("pvc-perms", parameters("directoryPerms", "777"))))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.AlreadyExists.class));
    VolumeRequest otherCapability = new VolumeRequest("pvc-perms", new CapacityRange(5 * GIB, 0),
        List.of(VolumeCapability.mount(AccessMode.SINGLE_NODE_WRITER, "")), parameters(), Map.of(), Map.of(),
        new VolumeSource.Empty(), TopologyRequirement.NONE);
    assertThatThrownBy(() -> provisioner().createVolume(otherCapability))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.AlreadyExists.class));
    assertThat(provisioner().createVolume(request("pvc-perms", parameters())).volumeId())
        .isEqualTo(first.volumeId());
    assertThat(accessPoints()).hasSize(1);
  }

  @Test
  void aRetriedCreateVolumeReturnsTheFirstAccessPoint() {
    String first = provisioner().createVolume(request("pvc-1", parameters())).volumeId();
    String again = provisioner().createVolume(request("pvc-1", parameters())).volumeId();

    assertThat(again).isEqualTo(first);
    assertThat(accessPoints()).hasSize(1);
  }

  @Test
  void aRetryAfterARestartFindsTheAccessPointInsteadOfAllocatingAgain() {
    String first = provisioner().createVolume(request("pvc-1", parameters())).volumeId();
    provisioner().createVolume(request("pvc-2", parameters()));
    controller.close();
    controller = newController(Map.of("team", "storage"));

    String again = provisioner().createVolume(request("pvc-1", parameters())).volumeId();

    assertThat(again).isEqualTo(first);
    assertThat(accessPoints()).hasSize(2);
  }

  @Test
  void theSameNameWithACapacityTheVolumeDoesNotHaveIsAlreadyExists() {
    Volume first = provisioner().createVolume(request("pvc-1", parameters()));
    VolumeRequest bigger = new VolumeRequest("pvc-1", new CapacityRange(10 * GIB, 0),
        List.of(VolumeCapability.mount(AccessMode.MULTI_NODE_MULTI_WRITER, "")), parameters(), Map.of(), Map.of(),
        new VolumeSource.Empty(), TopologyRequirement.NONE);
    VolumeRequest range = new VolumeRequest("pvc-1", new CapacityRange(GIB, 6 * GIB),
        List.of(VolumeCapability.mount(AccessMode.MULTI_NODE_MULTI_WRITER, "")), parameters(), Map.of(), Map.of(),
        new VolumeSource.Empty(), TopologyRequirement.NONE);

    assertThatThrownBy(() -> provisioner().createVolume(bigger))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.AlreadyExists.class));
    Volume again = provisioner().createVolume(range);
    assertThat(again.volumeId()).isEqualTo(first.volumeId());
    assertThat(again.capacityBytes()).isEqualTo(5 * GIB);
    assertThat(accessPoints()).hasSize(1);
  }

  @Test
  void fixedIdsRetriedWithOtherIdsAreAlreadyExists() {
    provisioner().createVolume(request("pvc-1", parameters("uid", "1000", "gid", "1000")));

    assertThatThrownBy(() -> provisioner().createVolume(request("pvc-1", parameters("uid", "2000", "gid", "2000"))))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.AlreadyExists.class))
        .hasMessageContaining("parameters.uid \"1000\" -> \"2000\"");
    assertThat(accessPoints()).hasSize(1);
  }

  @Test
  void fiftyConcurrentCreateVolumesGetFiftyDistinctGids() throws Exception {
    int count = 50;
    List<Volume> volumes = createConcurrently(count, parameters("gidRangeStart", "7000", "gidRangeEnd", "7049"));

    assertThat(volumes).hasSize(count);
    List<AccessPointDescription> created = accessPoints();
    Set<Long> gids = created.stream().map(a -> a.posixUser().gid()).collect(Collectors.toSet());
    assertThat(created).hasSize(count);
    assertThat(gids).hasSize(count).allMatch(g -> g >= 7000 && g <= 7049);
    assertThat(created).allMatch(a -> a.posixUser().uid().equals(a.posixUser().gid()));
    assertThat(aws.proxy().stats().calls("efs", "DescribeAccessPoints")).isLessThan(count);
  }

  @Test
  void aRangeSmallerThanTheRequestsExhaustsWithoutLeakingIds() throws Exception {
    List<Object> results = createConcurrentlyCollecting(15, parameters("gidRangeStart", "7000",
        "gidRangeEnd", "7009"));

    List<Volume> created = results.stream().filter(Volume.class::isInstance).map(Volume.class::cast).toList();
    List<DriverException> refused = results.stream().filter(DriverException.class::isInstance)
        .map(DriverException.class::cast).toList();
    assertThat(created).hasSize(10);
    assertThat(refused).hasSize(5).allSatisfy(e -> {
      assertThat(e.error()).isInstanceOf(DriverError.ResourceExhausted.class);
      assertThat(e.getMessage()).contains("7000-7009").contains("widen gidRangeStart/gidRangeEnd");
    });
    assertThat(accessPoints()).hasSize(10);

    // Nothing stays reserved: after one volume is deleted its id is handed out again.
    VolumeHandle deleted = VolumeHandle.parse(created.getFirst().volumeId());
    long freed = accessPoint(deleted.volumeId()).posixUser().gid();
    provisioner().deleteVolume(deleted.volumeId(), Map.of());
    Volume again = provisioner().createVolume(request("pvc-again", parameters("gidRangeStart", "7000",
        "gidRangeEnd", "7009")));
    assertThat(accessPoint(again.volumeId()).posixUser().gid()).isEqualTo(freed);
  }

  @Test
  void idsInUseBeforeARestartAreNotHandedOutAgain() {
    Map<String, String> params = parameters("gidRangeStart", "7000", "gidRangeEnd", "7100");
    for (int i = 0; i < 3; i++) {
      provisioner().createVolume(request("before-" + i, params));
    }
    controller.close();
    controller = newController(Map.of());
    for (int i = 0; i < 3; i++) {
      provisioner().createVolume(request("after-" + i, params));
    }

    assertThat(accessPoints().stream().map(a -> a.posixUser().gid()).collect(Collectors.toSet())).hasSize(6);
  }

  @Test
  void oneFixedIdTakesTheOtherFromTheRange() {
    Volume volume = provisioner().createVolume(request("pvc-1", parameters("uid", "1000", "gidRangeStart", "7000",
        "gidRangeEnd", "7010")));

    AccessPointDescription ap = accessPoint(volume.volumeId());
    assertThat(ap.posixUser().uid()).isEqualTo(1000);
    assertThat(ap.posixUser().gid()).isEqualTo(7000);
  }

  @Test
  void theAccessPointQuotaIsResourceExhaustedSayingWhatToChange() {
    aws.proxy().injectFault(Fault.efs("CreateAccessPoint", AwsError.of(403, "AccessPointLimitExceeded",
        "You have reached the maximum number of access points")));

    assertThatThrownBy(() -> provisioner().createVolume(request("pvc-1", parameters())))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.ResourceExhausted.class))
        .hasMessageContaining(fs).hasMessageContaining("Service Quotas").hasMessageContaining("efs-dir");
  }

  @Test
  void throttledCallsAreRetriedAndCounted() {
    aws.proxy().injectFault(Fault.efs("CreateAccessPoint", AwsError.of(429, "ThrottlingException", "Rate exceeded"))
        .times(3));

    Volume volume = provisioner().createVolume(request("pvc-1", parameters()));

    assertThat(accessPoint(volume.volumeId())).isNotNull();
    assertThat(metrics.scrape()).contains("aws_efs_csi_api_request_throttles_total{request=\"CreateAccessPoint\"} 3");
    assertThat(metrics.scrape()).contains("aws_efs_csi_api_request_duration_seconds_count{request=\"CreateAccessPoint\"} 4");
  }

  @Test
  void anUnknownFileSystemIsInvalidArgument() {
    // moto lists (and even creates) access points of a file system that does not exist; EFS answers 404.
    aws.proxy().injectFault(Fault.efs("DescribeAccessPoints", AwsError.of(404, "FileSystemNotFound",
        "File system 'fs-0123456789abcdef0' does not exist.")));
    Map<String, String> params = parameters("fileSystemId", "fs-0123456789abcdef0");

    assertThatThrownBy(() -> provisioner().createVolume(request("pvc-1", params)))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.InvalidArgument.class))
        .hasMessageContaining("fs-0123456789abcdef0");
  }

  @Test
  void deleteRemovesTheAccessPointAndRepeatsSucceed() {
    Volume volume = provisioner().createVolume(request("pvc-1", parameters()));

    provisioner().deleteVolume(volume.volumeId(), Map.of());
    provisioner().deleteVolume(volume.volumeId(), Map.of());
    provisioner().deleteVolume("not-an-efs-volume", Map.of());

    assertThat(accessPoints()).isEmpty();
    assertThat(aws.proxy().stats().action("efs", "DeleteAccessPoint").errorCodes())
        .containsEntry("AccessPointNotFound", 1L);
  }

  @Test
  void validatesCapabilitiesOfExistingVolumesOnly() {
    Volume volume = provisioner().createVolume(request("pvc-1", parameters()));
    var rwx = List.of(VolumeCapability.mount(AccessMode.MULTI_NODE_MULTI_WRITER, ""));

    assertThat(provisioner().validateCapabilities(volume.volumeId(), rwx, Map.of(), Map.of()))
        .isInstanceOf(CapabilityCheck.Confirmed.class);
    assertThat(provisioner().validateCapabilities(volume.volumeId(),
        List.of(VolumeCapability.mount(AccessMode.MULTI_NODE_READER_ONLY, "")), Map.of(), Map.of()))
        .isInstanceOf(CapabilityCheck.Confirmed.class);
    assertThat(provisioner().validateCapabilities(volume.volumeId(),
        List.of(VolumeCapability.block(AccessMode.SINGLE_NODE_WRITER)), Map.of(), Map.of()))
        .isInstanceOf(CapabilityCheck.Unsupported.class);
    assertThat(provisioner().validateCapabilities("efs:" + fs, rwx, Map.of(), Map.of()))
        .isInstanceOf(CapabilityCheck.Confirmed.class);

    provisioner().deleteVolume(volume.volumeId(), Map.of());
    for (String gone : List.of(volume.volumeId(), "efs:fs-0123456789abcdef0", "some-volume")) {
      assertThatThrownBy(() -> provisioner().validateCapabilities(gone, rwx, Map.of(), Map.of()))
          .isInstanceOfSatisfying(DriverException.class,
              e -> assertThat(e.error()).isInstanceOf(DriverError.NotFound.class));
    }
  }

  @Test
  void blockAndSingleWriterModesAreRefused() {
    var block = new VolumeRequest("pvc-1", CapacityRange.UNSPECIFIED,
        List.of(VolumeCapability.block(AccessMode.SINGLE_NODE_WRITER)), parameters(), Map.of(), Map.of(),
        new VolumeSource.Empty(), TopologyRequirement.NONE);
    var rwop = new VolumeRequest("pvc-1", CapacityRange.UNSPECIFIED,
        List.of(VolumeCapability.mount(AccessMode.SINGLE_NODE_SINGLE_WRITER, "")), parameters(), Map.of(), Map.of(),
        new VolumeSource.Empty(), TopologyRequirement.NONE);

    assertThatThrownBy(() -> provisioner().createVolume(block)).hasMessageContaining("block");
    assertThatThrownBy(() -> provisioner().createVolume(rwop)).hasMessageContaining("SINGLE_NODE_SINGLE_WRITER");
    assertThat(accessPoints()).isEmpty();
  }

  @Test
  void reuseAccessPointFindsTheAccessPointOfTheSamePvcName() {
    Map<String, String> params = parameters("reuseAccessPoint", "true", "csi.storage.k8s.io/pvc/name", "shared",
        "csi.storage.k8s.io/pvc/namespace", "team");

    String first = provisioner().createVolume(request("pvc-cluster-a", params)).volumeId();
    String second = newController(Map.of("team", "storage")).provisioner()
        .createVolume(request("pvc-cluster-b", params)).volumeId();

    assertThat(second).isEqualTo(first);
    assertThat(accessPoints()).hasSize(1);
    assertThat(accessPoints().getFirst().tags().stream().map(Tag::key))
        .doesNotContain("efs.csi.aws.com/directory");
  }

  @Test
  void taggingCanBeTurnedOff() {
    controller.close();
    controller = newController(Map.of());

    Volume volume = provisioner().createVolume(request("pvc-1", parameters("enableTagging", "false")));

    assertThat(accessPoint(volume.volumeId()).tags()).isEmpty();
  }

  @Test
  void crossAccountVolumesCarryTheMountTargets() {
    List<String> zones = aws.createMountTargets(fs, 2);
    // moto serves an assumed role's calls from the role's account, so the role is in the account of the file system.
    Map<String, String> role = Map.of("awsRoleArn", "arn:aws:iam::123456789012:role/efs-owner", "externalId",
        "ext-1");

    Volume mapped = provisioner().createVolume(request("pvc-1", parameters(), role));
    Volume inZone = provisioner().createVolume(request("pvc-2", parameters("az", zones.get(1)), role));
    Volume dns = provisioner().createVolume(request("pvc-3", parameters(),
        Map.of("awsRoleArn", "arn:aws:iam::123456789012:role/efs-owner", "crossaccount", "true")));

    assertThat(mapped.volumeContext()).containsOnlyKeys("mounttargetipmap");
    assertThat(mapped.volumeContext().get("mounttargetipmap")).contains(zones.get(0)).contains(zones.get(1));
    assertThat(inZone.volumeContext()).containsOnlyKeys("mounttargetip");
    assertThat(mapped.volumeContext().get("mounttargetipmap"))
        .contains("\"" + zones.get(1) + "\":\"" + inZone.volumeContext().get("mounttargetip") + "\"");
    assertThat(dns.volumeContext()).isEqualTo(Map.of("crossaccount", "true"));
    assertThat(aws.proxy().stats().calls("sts", "AssumeRole")).isBetween(1L, 2L);
  }

  @Test
  void zoneAffinityPinsOneZoneFileSystems() {
    String oneZone = aws.createOneZoneFileSystem("us-east-1c");

    Volume pinned = provisioner().createVolume(request("pvc-1", parameters("fileSystemId", oneZone,
        "enforceZoneAffinity", "true")));
    Volume regional = provisioner().createVolume(request("pvc-2", parameters("enforceZoneAffinity", "true")));

    assertThat(pinned.accessibleTopology()).containsExactly(Map.of("topology.kubernetes.io/zone", "us-east-1c"));
    assertThat(regional.accessibleTopology()).isEmpty();
  }

  private List<Volume> createConcurrently(int count, Map<String, String> params) throws Exception {
    List<Object> results = createConcurrentlyCollecting(count, params);
    for (Object r : results) {
      if (r instanceof Exception e) {
        throw e;
      }
    }
    return results.stream().map(Volume.class::cast).toList();
  }

  private List<Object> createConcurrentlyCollecting(int count, Map<String, String> params) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Object>> futures = new ArrayList<>();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < count; i++) {
        String name = "pvc-" + i;
        futures.add(pool.submit(() -> {
          start.await();
          try {
            return provisioner().createVolume(request(name, params));
          } catch (DriverException e) {
            return e;
          }
        }));
      }
      start.countDown();
      List<Object> results = new ArrayList<>();
      for (Future<Object> f : futures) {
        results.add(f.get());
      }
      return results;
    }
  }
}
