package io.awscsi.ebs.controller;

import static io.awscsi.ebs.controller.Requests.assertError;
import static io.awscsi.ebs.controller.Requests.publish;
import static io.awscsi.ebs.controller.Requests.volume;
import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.PublishedVolume;
import io.awscsi.core.provider.Volume;
import io.awscsi.core.provider.VolumeAttacher;
import io.awscsi.core.provider.VolumeSource;
import io.awscsi.realism.RealismProfile;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** ControllerPublishVolume / ControllerUnpublishVolume and ListVolumes against moto behind the EC2 realism layer. */
@Tag("integration")
class AttachmentIntegrationTest {

  /** Instances hold at most 3 volumes here (root included), so the limit is quick to reach. */
  private static final RealismProfile PROFILE = RealismProfile.fast().withAttachmentLimit(3);

  private static Ec2Environment env;
  private EbsControllerProvider provider;
  private VolumeAttacher attacher;

  @BeforeAll
  static void startEc2() {
    env = Ec2Environment.start(PROFILE);
  }

  @AfterAll
  static void stopEc2() {
    env.close();
  }

  @BeforeEach
  void fresh() {
    env.reset();
    provider = env.provider(Ec2Environment.testOptions().withStuckAttachingTimeout(Duration.ofSeconds(3)),
        new MetricsRegistry());
    attacher = provider.attacher().orElseThrow();
  }

  private String newVolume(String name) {
    return provider.provisioner().createVolume(volume(name, 1, Map.of())).volumeId();
  }

  @Test
  void publishAttachesAndReturnsTheDevicePathRepeatedlyAndUnpublishDetaches() {
    String vol = newVolume("pvc-a");
    String node = env.runInstance(Ec2Environment.ZONE);

    Map<String, String> context = attacher.publish(publish(vol, node, Requests.MOUNT));
    assertThat(context.get("devicePath")).matches("/dev/xvd[ab][a-z]");
    var attachment = env.ec2.describeVolumes(r -> r.volumeIds(vol)).volumes().getFirst().attachments().getFirst();
    assertThat(attachment.instanceId()).isEqualTo(node);
    assertThat(attachment.stateAsString()).isEqualTo("attached");
    assertThat(attacher.publish(publish(vol, node, Requests.MOUNT))).isEqualTo(context);
    assertThat(env.proxy.stats().calls("ec2", "AttachVolume")).isEqualTo(1);

    PublishedVolume listed = provider.lister().orElseThrow().getVolume(vol);
    assertThat(listed.publishedNodeIds()).containsExactly(node);

    attacher.unpublish(vol, node, Map.of());
    assertThat(env.ec2.describeVolumes(r -> r.volumeIds(vol)).volumes().getFirst().attachments()).isEmpty();
    // A repeat asks EC2 itself: DetachVolume answers IncorrectState ("available"), which means nothing to detach.
    attacher.unpublish(vol, node, Map.of());
    assertThat(env.proxy.stats().calls("ec2", "DetachVolume")).isEqualTo(2);
    assertThat(env.proxy.stats().action("ec2", "DetachVolume").errorCodes()).containsEntry("IncorrectState", 1L);
  }

  @Test
  void secondVolumeOnANodeGetsAnotherDevice() {
    String node = env.runInstance(Ec2Environment.ZONE);
    String a = attacher.publish(publish(newVolume("pvc-d1"), node, Requests.MOUNT)).get("devicePath");
    String b = attacher.publish(publish(newVolume("pvc-d2"), node, Requests.MOUNT)).get("devicePath");
    assertThat(a).isNotEqualTo(b);
  }

  @Test
  void devicesInUseOnTheInstanceAreSkippedAndARefusedNameIsReplaced() {
    String node = env.runInstance(Ec2Environment.ZONE);
    // A volume attached outside the driver holds /dev/xvdaa.
    String foreign = env.ec2.createVolume(r -> r.availabilityZone(Ec2Environment.ZONE).size(1)).volumeId();
    awaitAvailable(foreign);
    env.ec2.attachVolume(r -> r.volumeId(foreign).instanceId(node).device("/dev/xvdaa"));
    String vol1 = newVolume("pvc-dev1");
    String first = attacher.publish(publish(vol1, node, Requests.MOUNT)).get("devicePath");
    assertThat(first).isNotEqualTo("/dev/xvdaa");
    attacher.unpublish(vol1, node, Map.of()); // this class's instances hold 3 volumes, root included

    long attaches = env.proxy.stats().calls("ec2", "AttachVolume");
    try (var fault = env.proxy.injectFault(io.awscsi.realism.Fault.ec2("AttachVolume",
        io.awscsi.realism.AwsError.badRequest("InvalidParameterValue", "Invalid value '/dev/xvdzz' for unixDevice. "
            + "Attachment point /dev/xvdzz is already in use")).times(1))) {
      String second = attacher.publish(publish(newVolume("pvc-dev2"), node, Requests.MOUNT)).get("devicePath");
      assertThat(second).isNotIn("/dev/xvdaa", first);
      assertThat(fault.hits()).isEqualTo(1);
    }
    assertThat(env.proxy.stats().calls("ec2", "AttachVolume") - attaches).isEqualTo(2);
  }

  private void awaitAvailable(String volumeId) {
    for (int i = 0; i < 100; i++) {
      if (env.ec2.describeVolumes(r -> r.volumeIds(volumeId)).volumes().getFirst().stateAsString().equals("available")) {
        return;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    throw new AssertionError(volumeId + " never became available");
  }

  @Test
  void concurrentPublishToTwoNodesGivesOneSuccessAndOneFailedPreconditionNamingTheNode() throws Exception {
    String vol = newVolume("pvc-race");
    String node1 = env.runInstance(Ec2Environment.ZONE);
    String node2 = env.runInstance(Ec2Environment.ZONE);
    List<Future<Map<String, String>>> results = new ArrayList<>();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      results.add(pool.submit(() -> attacher.publish(publish(vol, node1, Requests.MOUNT))));
      results.add(pool.submit(() -> attacher.publish(publish(vol, node2, Requests.MOUNT))));
    }
    int ok = 0;
    List<DriverException> failures = new ArrayList<>();
    for (Future<Map<String, String>> f : results) {
      try {
        f.get();
        ok++;
      } catch (ExecutionException e) {
        failures.add((DriverException) e.getCause());
      }
    }
    assertThat(ok).isEqualTo(1);
    assertThat(failures).hasSize(1);
    DriverException failure = failures.getFirst();
    assertThat(failure.error()).isInstanceOf(DriverError.FailedPrecondition.class);
    String winner = env.ec2.describeVolumes(r -> r.volumeIds(vol)).volumes().getFirst().attachments().getFirst()
        .instanceId();
    assertThat(failure.getMessage()).contains("attached to node " + winner);
  }

  @Test
  void publishOfAVolumeAttachedElsewhereIsFailedPrecondition() {
    String vol = newVolume("pvc-else");
    String node1 = env.runInstance(Ec2Environment.ZONE);
    String node2 = env.runInstance(Ec2Environment.ZONE);
    attacher.publish(publish(vol, node1, Requests.MOUNT));
    assertError(() -> attacher.publish(publish(vol, node2, Requests.MOUNT)), DriverError.FailedPrecondition.class,
        "attached to node " + node1);
  }

  @Test
  void unknownVolumeOrInstanceIsNotFound() {
    String node = env.runInstance(Ec2Environment.ZONE);
    String vol = newVolume("pvc-nf");
    assertError(() -> attacher.publish(publish("vol-0123456789abcdef0", node, Requests.MOUNT)),
        DriverError.NotFound.class, "vol-0123456789abcdef0");
    assertError(() -> attacher.publish(publish(vol, "i-0123456789abcdef0", Requests.MOUNT)),
        DriverError.NotFound.class, "i-0123456789abcdef0");
    assertError(() -> attacher.publish(publish("bogus", node, Requests.MOUNT)), DriverError.NotFound.class);
  }

  @Test
  void unpublishOfAGoneVolumeOrInstanceSucceeds() {
    String vol = newVolume("pvc-gone");
    String node = env.runInstance(Ec2Environment.ZONE);
    long describes = env.proxy.stats().calls("ec2", "DescribeVolumes");
    attacher.unpublish("vol-0123456789abcdef0", node, Map.of());
    attacher.unpublish(vol, "i-0123456789abcdef0", Map.of());
    attacher.unpublish(vol, node, Map.of());
    assertThat(env.proxy.stats().calls("ec2", "DetachVolume")).isEqualTo(3);
    // Only the answer that leaves it open (IncorrectState: the volume is available) is described.
    assertThat(env.proxy.stats().calls("ec2", "DescribeVolumes") - describes).isLessThanOrEqualTo(2);
  }

  @Test
  void theInstancesDeviceMappingIsDescribedOnceAndKeptCurrentFromOwnAttaches() {
    String node = env.runInstance(Ec2Environment.ZONE);
    String a = newVolume("pvc-map1");
    String b = newVolume("pvc-map2");
    String c = newVolume("pvc-map3");
    long instances = env.proxy.stats().calls("ec2", "DescribeInstances");
    String devA = attacher.publish(publish(a, node, Requests.MOUNT)).get("devicePath");
    String devB = attacher.publish(publish(b, node, Requests.MOUNT)).get("devicePath");
    attacher.unpublish(a, node, Map.of());
    String devC = attacher.publish(publish(c, node, Requests.MOUNT)).get("devicePath");

    assertThat(env.proxy.stats().calls("ec2", "DescribeInstances") - instances).isEqualTo(1);
    assertThat(devB).isNotEqualTo(devA);
    assertThat(devC).isNotEqualTo(devB);
    assertThat(env.proxy.stats().action("ec2", "AttachVolume").errors()).isZero();
  }

  @Test
  void anAttachmentMadeByOthersAfterTheMappingWasLearnedIsSeenAndItsNameNotUsed() {
    String node = env.runInstance(Ec2Environment.ZONE);
    String vol1 = newVolume("pvc-oth1");
    String first = attacher.publish(publish(vol1, node, Requests.MOUNT)).get("devicePath");
    attacher.unpublish(vol1, node, Map.of()); // this class's instances hold 3 volumes, root included
    // Behind the driver's back, someone attaches a volume with the name round-robin would give next.
    String next = DeviceNameAllocator.NAMES.get(DeviceNameAllocator.NAMES.indexOf(first) + 1);
    String foreign = env.ec2.createVolume(r -> r.availabilityZone(Ec2Environment.ZONE).size(1)).volumeId();
    awaitAvailable(foreign);
    env.ec2.attachVolume(r -> r.volumeId(foreign).instanceId(node).device(next));
    long instances = env.proxy.stats().calls("ec2", "DescribeInstances");

    String second = attacher.publish(publish(newVolume("pvc-oth2"), node, Requests.MOUNT)).get("devicePath");

    assertThat(second).isNotIn(first, next);
    // EC2 refused the name once; the instance was described again, and the attach went through.
    assertThat(env.proxy.stats().action("ec2", "AttachVolume").errorCodes()).containsEntry("InvalidParameterValue",
        1L);
    assertThat(env.proxy.stats().calls("ec2", "DescribeInstances") - instances).isEqualTo(1);
    var attachments = env.ec2.describeVolumes(r -> r.volumeIds(foreign)).volumes().getFirst().attachments();
    assertThat(attachments).singleElement().satisfies(x -> assertThat(x.device()).isEqualTo(next));
  }

  @Test
  void theInstancesAttachmentLimitIsResourceExhausted() {
    String node = env.runInstance(Ec2Environment.ZONE);
    attacher.publish(publish(newVolume("pvc-l1"), node, Requests.MOUNT));
    attacher.publish(publish(newVolume("pvc-l2"), node, Requests.MOUNT));
    String third = newVolume("pvc-l3");
    assertError(() -> attacher.publish(publish(third, node, Requests.MOUNT)), DriverError.ResourceExhausted.class,
        node);
  }

  @Test
  void aVolumeStuckInAttachingIsDetachedAndTheCallFailsRetryably() {
    String vol = newVolume("pvc-stuck");
    String node = env.runInstance(Ec2Environment.ZONE);
    env.proxy.holdAttaching(vol);
    long start = System.nanoTime();
    assertError(() -> attacher.publish(publish(vol, node, Requests.MOUNT)), DriverError.Unavailable.class,
        "stuck in attaching");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
    assertThat(env.proxy.stats().calls("ec2", "DetachVolume")).isEqualTo(1);
    env.proxy.releaseAttaching(vol);
    attacher.unpublish(vol, node, Map.of());
    assertThat(attacher.publish(publish(vol, node, Requests.MOUNT))).containsKey("devicePath");
  }

  @Test
  void io2MultiAttachServesBlockVolumesOnTwoNodes() {
    Volume v = provider.provisioner().createVolume(volume("pvc-multi", 4, Map.of("type", "io2", "iops", "1000"),
        Requests.MULTI_BLOCK, new VolumeSource.Empty()));
    String node1 = env.runInstance(Ec2Environment.ZONE);
    String node2 = env.runInstance(Ec2Environment.ZONE);
    attacher.publish(publish(v.volumeId(), node1, Requests.MULTI_BLOCK));
    attacher.publish(publish(v.volumeId(), node2, Requests.MULTI_BLOCK));
    assertThat(provider.lister().orElseThrow().getVolume(v.volumeId()).publishedNodeIds())
        .containsExactlyInAnyOrder(node1, node2);
    attacher.unpublish(v.volumeId(), node1, Map.of());
    assertThat(provider.lister().orElseThrow().getVolume(v.volumeId()).publishedNodeIds()).containsExactly(node2);
  }

  @Test
  void listVolumesPagesAndShowsPublishedNodes() {
    String node = env.runInstance(Ec2Environment.ZONE);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ids.add(newVolume("pvc-list" + i));
    }
    attacher.publish(publish(ids.getFirst(), node, Requests.MOUNT));
    List<PublishedVolume> all = new ArrayList<>();
    String token = "";
    int pages = 0;
    do {
      var page = provider.lister().orElseThrow().listVolumes(2, token);
      assertThat(page.entries().size()).isLessThanOrEqualTo(2);
      all.addAll(page.entries());
      token = page.nextToken();
      pages++;
    } while (!token.isEmpty() && pages < 20);
    assertThat(all).extracting(p -> p.volume().volumeId()).containsAll(ids).doesNotHaveDuplicates();
    assertThat(all).filteredOn(p -> p.volume().volumeId().equals(ids.getFirst())).first()
        .extracting(PublishedVolume::publishedNodeIds).isEqualTo(List.of(node));
    assertError(() -> provider.lister().orElseThrow().listVolumes(2, "not-a-token"), DriverError.Aborted.class);
    assertError(() -> provider.lister().orElseThrow().getVolume("vol-0123456789abcdef0"), DriverError.NotFound.class);
  }
}
