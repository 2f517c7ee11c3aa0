package io.awscsi.realism.ec2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.realism.AwsClients;
import io.awscsi.realism.Latency;
import io.awscsi.realism.ManualClock;
import io.awscsi.realism.MotoExtension;
import io.awscsi.realism.RealismProfile;
import io.awscsi.realism.RealismProxy;
import io.awscsi.realism.process.MotoServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.DescribeVolumesResponse;
import software.amazon.awssdk.services.ec2.model.Ec2Exception;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.Volume;

/** MaxResults/NextToken paging, which moto ignores, and filters on the states the proxy rewrites. */
@Tag("integration")
@ExtendWith(MotoExtension.class)
class Ec2PagingIntegrationTest {

  private static final String ZONE = "us-east-1a";

  private final ManualClock clock = ManualClock.startingAt(Instant.parse("2026-03-01T10:00:00Z"));
  private RealismProxy proxy;
  private Ec2Client ec2;

  @BeforeEach
  void start(MotoServer moto) {
    RealismProfile profile = RealismProfile.fast().withVolumeCreation(Latency.fixed(Duration.ofSeconds(2)))
        .withSnapshotCompletion(Latency.fixed(Duration.ofSeconds(2)));
    proxy = RealismProxy.builder().upstream(moto.endpoint()).profile(profile).clock(clock).start();
    proxy.reset();
    ec2 = AwsClients.ec2(proxy.endpoint());
  }

  @AfterEach
  void stop() {
    ec2.close();
    proxy.close();
  }

  @Test
  void describeVolumesPagesThroughAllVolumes() {
    Set<String> created = createVolumes(12);

    var seen = new ArrayList<String>();
    var pages = new ArrayList<Integer>();
    String token = null;
    do {
      String next = token;
      DescribeVolumesResponse page = ec2.describeVolumes(r -> r.maxResults(5).nextToken(next));
      pages.add(page.volumes().size());
      page.volumes().forEach(v -> seen.add(v.volumeId()));
      token = page.nextToken();
    } while (token != null);

    assertThat(pages).containsExactly(5, 5, 2);
    assertThat(seen).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(created);
  }

  @Test
  void sdkPaginatorCollectsEveryVolume() {
    Set<String> created = createVolumes(7);

    List<String> listed = ec2.describeVolumesPaginator(r -> r.maxResults(5)).volumes().stream()
        .map(Volume::volumeId).toList();

    assertThat(listed).containsExactlyInAnyOrderElementsOf(created);
  }

  @Test
  void maxResultsWithVolumeIdsIsAnInvalidCombination() {
    String volumeId = createVolumes(1).iterator().next();

    assertEc2Error(() -> ec2.describeVolumes(r -> r.volumeIds(volumeId).maxResults(5)),
        "InvalidParameterCombination");
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 4, 1001})
  void maxResultsOutsideEc2BoundsIsInvalid(int maxResults) {
    assertEc2Error(() -> ec2.describeVolumes(r -> r.maxResults(maxResults)), "InvalidParameterValue");
  }

  @Test
  void foreignOrGarbledPageTokenIsRefused() {
    createVolumes(6);
    String token = ec2.describeVolumes(r -> r.maxResults(5)).nextToken();

    assertEc2Error(() -> ec2.describeVolumes(r -> r.maxResults(5).nextToken("not-a-token")),
        "InvalidPaginationToken");
    assertEc2Error(() -> ec2.describeVolumes(r -> r.maxResults(5).nextToken(token)
        .filters(filter("size", "10"))), "InvalidPaginationToken");
  }

  @Test
  void statusFilterSeesTheRewrittenStates() {
    Set<String> older = createVolumes(2);
    clock.advance(Duration.ofSeconds(2));
    Set<String> newer = createVolumes(3);

    assertThat(ids(ec2.describeVolumes(r -> r.filters(filter("status", "creating"))).volumes()))
        .containsExactlyInAnyOrderElementsOf(newer);
    assertThat(ids(ec2.describeVolumes(r -> r.filters(filter("status", "available"))).volumes()))
        .containsExactlyInAnyOrderElementsOf(older);
  }

  @Test
  void snapshotsOfTheOwnAccountArePagedAndPendingOnesFiltered() {
    String volumeId = createVolumes(1).iterator().next();
    clock.advance(Duration.ofSeconds(2));
    var created = new HashSet<String>();
    IntStream.range(0, 6).forEach(i -> created.add(ec2.createSnapshot(r -> r.volumeId(volumeId)).snapshotId()));

    var firstPage = ec2.describeSnapshots(r -> r.ownerIds("self").maxResults(5));
    var secondPage = ec2.describeSnapshots(r -> r.ownerIds("self").maxResults(5).nextToken(firstPage.nextToken()));

    assertThat(firstPage.snapshots()).hasSize(5);
    assertThat(secondPage.snapshots()).hasSize(1);
    assertThat(secondPage.nextToken()).isNull();
    var listed = new HashSet<String>();
    firstPage.snapshots().forEach(s -> listed.add(s.snapshotId()));
    secondPage.snapshots().forEach(s -> listed.add(s.snapshotId()));
    assertThat(listed).isEqualTo(created);
    assertThat(ec2.describeSnapshots(r -> r.ownerIds("self").filters(filter("status", "pending")))
        .snapshots()).hasSize(6);
  }

  @Test
  void describeInstancesPagesByInstance() {
    var created = new HashSet<String>();
    IntStream.range(0, 7).forEach(i -> created.add(ec2.runInstances(r -> r.imageId("ami-12c6146b").minCount(1)
        .maxCount(1).placement(p -> p.availabilityZone(ZONE))).instances().getFirst().instanceId()));

    var first = ec2.describeInstances(r -> r.maxResults(5));
    var second = ec2.describeInstances(r -> r.maxResults(5).nextToken(first.nextToken()));

    var listed = new HashSet<String>();
    first.reservations().forEach(res -> res.instances().forEach(i -> listed.add(i.instanceId())));
    assertThat(listed).hasSize(5);
    second.reservations().forEach(res -> res.instances().forEach(i -> listed.add(i.instanceId())));
    assertThat(listed).isEqualTo(created);
    assertThat(second.nextToken()).isNull();
  }

  @Test
  void describeVolumesModificationsPagesAndFiltersByState() {
    Set<String> volumes = createVolumes(6);
    clock.advance(Duration.ofSeconds(2));
    volumes.forEach(id -> ec2.modifyVolume(r -> r.volumeId(id).size(20)));

    var first = ec2.describeVolumesModifications(r -> r.maxResults(5));
    var second = ec2.describeVolumesModifications(r -> r.maxResults(5).nextToken(first.nextToken()));

    assertThat(first.volumesModifications()).hasSize(5);
    assertThat(second.volumesModifications()).hasSize(1);
    assertThat(ec2.describeVolumesModifications(r -> r.filters(filter("modification-state", "modifying"))).volumesModifications()).hasSize(6);
    assertThat(ec2.describeVolumesModifications(r -> r.filters(filter("modification-state", "completed"))).volumesModifications()).isEmpty();
  }

  private Set<String> createVolumes(int count) {
    var ids = new HashSet<String>();
    for (int i = 0; i < count; i++) {
      ids.add(ec2.createVolume(r -> r.availabilityZone(ZONE).size(10)).volumeId());
    }
    return ids;
  }

  private static Filter filter(String name, String value) {
    return Filter.builder().name(name).values(value).build();
  }

  private static List<String> ids(List<Volume> volumes) {
    return volumes.stream().map(Volume::volumeId).toList();
  }

  private static void assertEc2Error(ThrowingCallable call, String code) {
    assertThatThrownBy(call).isInstanceOfSatisfying(Ec2Exception.class, e -> {
      assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code);
      assertThat(e.statusCode()).isEqualTo(400);
    });
  }
}
