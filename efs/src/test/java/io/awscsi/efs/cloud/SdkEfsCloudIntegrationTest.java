package io.awscsi.efs.cloud;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.AwsCallRunner;
import io.awscsi.aws.call.AwsRetryPolicy;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.efs.testing.MotoEfs;
import io.awscsi.realism.RealismProfile;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The EFS facade against moto behind the realism proxy, which pages and answers AccessPointNotFound as EFS does. */
@Tag("integration")
class SdkEfsCloudIntegrationTest {

  private static MotoEfs aws;
  private final MetricsRegistry metrics = new MetricsRegistry();
  private AwsCallRunner calls;
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
    calls = SdkEfsCloud.callRunner(metrics, new AwsRetryPolicy(Duration.ofMillis(10), Duration.ofMillis(50), 3));
    fs = aws.createFileSystem();
  }

  private AccessPointSpec spec(String token, long id) {
    return new AccessPointSpec(fs, token, id, id, new RootDirectory("/v/" + token, id, id, "0750"),
        Map.of("k", "v"));
  }

  @Test
  void listsEveryPageOfAccessPoints() {
    SdkEfsCloud cloud = new SdkEfsCloud(aws.efs(), calls, 7);
    IntStream.range(0, 20).forEach(i -> cloud.createAccessPoint(spec("t" + i, 1000 + i)));
    aws.proxy().resetStats();

    List<AccessPoint> all = cloud.listAccessPoints(fs);

    assertThat(all).hasSize(20);
    assertThat(all.stream().map(AccessPoint::gid).distinct()).hasSize(20);
    assertThat(aws.proxy().stats().calls("efs", "DescribeAccessPoints")).isEqualTo(3);
  }

  @Test
  void createReadsBackEverythingTheDriverUses() {
    SdkEfsCloud cloud = new SdkEfsCloud(aws.efs(), calls);

    AccessPoint created = cloud.createAccessPoint(spec("pvc-1", 50000));
    AccessPoint described = cloud.describeAccessPoint(created.accessPointId()).orElseThrow();

    for (AccessPoint ap : List.of(created, described)) {
      assertThat(ap.fileSystemId()).isEqualTo(fs);
      assertThat(ap.clientToken()).isEqualTo("pvc-1");
      assertThat(ap.uid()).isEqualTo(50000);
      assertThat(ap.gid()).isEqualTo(50000);
      assertThat(ap.rootDirectory()).isEqualTo(new RootDirectory("/v/pvc-1", 50000, 50000, "0750"));
      assertThat(ap.tags()).isEqualTo(Map.of("k", "v"));
    }
  }

  @Test
  void theSameTokenWithOtherArgumentsIsAccessPointAlreadyExists() {
    SdkEfsCloud cloud = new SdkEfsCloud(aws.efs(), calls);
    AccessPoint first = cloud.createAccessPoint(spec("pvc-1", 50000));

    assertThat(cloud.createAccessPoint(spec("pvc-1", 50000)).accessPointId()).isEqualTo(first.accessPointId());
    assertThatThrownBy(() -> cloud.createAccessPoint(spec("pvc-1", 50001)))
        .isInstanceOfSatisfying(AwsCallException.class,
            e -> assertThat(e.error()).isInstanceOf(AwsCallError.AccessPointAlreadyExists.class));
  }

  @Test
  void missingAccessPointsAreEmptyOrAlreadyDeleted() {
    SdkEfsCloud cloud = new SdkEfsCloud(aws.efs(), calls);

    assertThat(cloud.describeAccessPoint("fsap-0123456789abcdef0")).isEmpty();
    cloud.deleteAccessPoint("fsap-0123456789abcdef0");

    assertThat(aws.proxy().stats().action("efs", "DeleteAccessPoint").errorCodes())
        .containsEntry("AccessPointNotFound", 1L);
  }

  @Test
  void fileSystemsAndMountTargets() {
    SdkEfsCloud cloud = new SdkEfsCloud(aws.efs(), calls);
    List<String> zones = aws.createMountTargets(fs, 2);

    assertThat(cloud.describeFileSystem(fs).oneZone()).isFalse();
    assertThat(cloud.listMountTargets(fs)).extracting(MountTarget::availabilityZone)
        .containsExactlyInAnyOrderElementsOf(zones);
    assertThat(cloud.listMountTargets(fs)).allMatch(MountTarget::available)
        .allSatisfy(t -> assertThat(t.ipAddress()).isNotEmpty());
    assertThatThrownBy(() -> cloud.describeFileSystem("fs-0123456789abcdef0"))
        .isInstanceOfSatisfying(AwsCallException.class,
            e -> assertThat(e.error()).isInstanceOf(AwsCallError.NotFound.class));
  }

  @Test
  void roleCloudsAreBuiltOncePerRoleAndExternalId() {
    try (EfsCloudFactory clouds = aws.clouds(metrics)) {
      EfsCloud a = clouds.forRole("arn:aws:iam::123456789012:role/efs", "");
      EfsCloud again = clouds.forRole("arn:aws:iam::123456789012:role/efs", "");
      EfsCloud withExternalId = clouds.forRole("arn:aws:iam::123456789012:role/efs", "ext");

      assertThat(again).isSameAs(a);
      assertThat(withExternalId).isNotSameAs(a);
      assertThat(a.describeFileSystem(fs).fileSystemId()).isEqualTo(fs);
      assertThat(aws.proxy().stats().calls("sts", "AssumeRole")).isEqualTo(1);
    }
  }
}
