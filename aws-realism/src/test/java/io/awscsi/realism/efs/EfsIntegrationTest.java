package io.awscsi.realism.efs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.realism.AwsClients;
import io.awscsi.realism.MotoExtension;
import io.awscsi.realism.RealismProfile;
import io.awscsi.realism.RealismProxy;
import io.awscsi.realism.process.MotoServer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.efs.EfsClient;
import software.amazon.awssdk.services.efs.model.AccessPointAlreadyExistsException;
import software.amazon.awssdk.services.efs.model.AccessPointDescription;
import software.amazon.awssdk.services.efs.model.AccessPointLimitExceededException;
import software.amazon.awssdk.services.efs.model.AccessPointNotFoundException;
import software.amazon.awssdk.services.efs.model.CreateAccessPointRequest;
import software.amazon.awssdk.services.efs.model.DescribeAccessPointsResponse;

/** EFS access points where moto is lax: ClientToken, paging, AccessPointNotFound, the per-file-system quota. */
@Tag("integration")
@ExtendWith(MotoExtension.class)
class EfsIntegrationTest {

  private RealismProxy proxy;
  private EfsClient efs;
  private String fileSystemId;

  @BeforeEach
  void start(MotoServer moto) {
    proxy = RealismProxy.builder().upstream(moto.endpoint())
        .profile(RealismProfile.instant().withAccessPointsPerFileSystem(3)).start();
    proxy.reset();
    efs = AwsClients.efs(proxy.endpoint());
    fileSystemId = efs.createFileSystem(r -> r.creationToken("fs-for-test")).fileSystemId();
  }

  @AfterEach
  void stop() {
    efs.close();
    proxy.close();
  }

  @Test
  void repeatedClientTokenReturnsTheSameAccessPoint() {
    String first = efs.createAccessPoint(request("pv-1", 1000)).accessPointId();
    String again = efs.createAccessPoint(request("pv-1", 1000)).accessPointId();

    assertThat(again).isEqualTo(first);
    assertThat(efs.describeAccessPoints(r -> r.fileSystemId(fileSystemId)).accessPoints()).hasSize(1);
  }

  @Test
  void clientTokenWithOtherParametersIsAccessPointAlreadyExists() {
    efs.createAccessPoint(request("pv-2", 1000));

    assertThatThrownBy(() -> efs.createAccessPoint(request("pv-2", 1001)))
        .isInstanceOfSatisfying(AccessPointAlreadyExistsException.class,
            e -> assertThat(e.statusCode()).isEqualTo(409));
  }

  @Test
  void describeAccessPointsPagesWithMaxResults() {
    var created = new HashSet<String>();
    for (int i = 0; i < 3; i++) {
      created.add(efs.createAccessPoint(request("pv-page-" + i, 2000 + i)).accessPointId());
    }

    var seen = new ArrayList<String>();
    var sizes = new ArrayList<Integer>();
    String token = null;
    do {
      String next = token;
      DescribeAccessPointsResponse page = efs.describeAccessPoints(r -> r.fileSystemId(fileSystemId).maxResults(2)
          .nextToken(next));
      sizes.add(page.accessPoints().size());
      page.accessPoints().forEach(ap -> seen.add(ap.accessPointId()));
      token = page.nextToken();
    } while (token != null);

    assertThat(sizes).containsExactly(2, 1);
    assertThat(seen).containsExactlyInAnyOrderElementsOf(created);
    List<String> viaPaginator = efs.describeAccessPointsPaginator(r -> r.fileSystemId(fileSystemId).maxResults(1))
        .accessPoints().stream().map(AccessPointDescription::accessPointId).toList();
    assertThat(viaPaginator).containsExactlyInAnyOrderElementsOf(created);
  }

  @Test
  void deletingAnUnknownAccessPointIsAccessPointNotFound() {
    assertThatThrownBy(() -> efs.deleteAccessPoint(r -> r.accessPointId("fsap-0123456789abcdef0")))
        .isInstanceOfSatisfying(AccessPointNotFoundException.class, e -> assertThat(e.statusCode()).isEqualTo(404));
  }

  @Test
  void deletedAccessPointIsGoneAndItsTokenFree() {
    String first = efs.createAccessPoint(request("pv-3", 1000)).accessPointId();

    efs.deleteAccessPoint(r -> r.accessPointId(first));

    assertThatThrownBy(() -> efs.deleteAccessPoint(r -> r.accessPointId(first)))
        .isInstanceOf(AccessPointNotFoundException.class);
    assertThat(efs.createAccessPoint(request("pv-3", 1000)).accessPointId()).isNotEqualTo(first);
  }

  @Test
  void accessPointsBeyondTheQuotaAreRefused() {
    for (int i = 0; i < 3; i++) {
      efs.createAccessPoint(request("pv-quota-" + i, 3000 + i));
    }

    assertThatThrownBy(() -> efs.createAccessPoint(request("pv-quota-3", 3003)))
        .isInstanceOfSatisfying(AccessPointLimitExceededException.class,
            e -> assertThat(e.statusCode()).isEqualTo(403));
    assertThat(efs.describeAccessPoints(r -> r.fileSystemId(fileSystemId)).accessPoints()).hasSize(3);
  }

  private CreateAccessPointRequest request(String clientToken, long gid) {
    return CreateAccessPointRequest.builder()
        .clientToken(clientToken)
        .fileSystemId(fileSystemId)
        .posixUser(u -> u.uid(gid).gid(gid))
        .rootDirectory(d -> d.path("/dynamic/" + clientToken)
            .creationInfo(c -> c.ownerUid(gid).ownerGid(gid).permissions("700")))
        .build();
  }
}
