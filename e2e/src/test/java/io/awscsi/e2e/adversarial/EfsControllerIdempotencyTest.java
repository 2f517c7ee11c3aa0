package io.awscsi.e2e.adversarial;

import static io.awscsi.e2e.adversarial.ControllerSupport.efsVolume;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CreateVolumeRequest;
import csi.v1.VolumeCapability.AccessMode.Mode;
import io.awscsi.e2e.adversarial.DriverFixture.Driver;
import io.awscsi.local.LocalAws;
import io.grpc.Status;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.efs.EfsClient;

/**
 * Issue 12 item 9, over the EFS controller socket: CreateVolume idempotency compares everything. The same name with
 * any other parameter or capability is ALREADY_EXISTS, before and after a controller restart, and one name never
 * gets two volume ids. The old code returned the existing 700 access point for directoryPerms 777, and a second id
 * for the same name with provisioningMode efs-dir.
 */
@Tag("integration")
class EfsControllerIdempotencyTest {

  @RegisterExtension
  static final DriverFixture FX = DriverFixture.create();

  private static DriverProcess efs;

  @BeforeAll
  static void start() {
    efs = FX.start(Driver.EFS, DriverFixture.Mode.CONTROLLER);
  }

  private static Map<String, String> accessPoint(String perms) {
    return new HashMap<>(Map.of("provisioningMode", "efs-ap", "fileSystemId", FX.aws().fileSystemId(),
        "directoryPerms", perms));
  }

  private static CreateVolumeRequest request(String name, Map<String, String> parameters) {
    return efsVolume(name).putAllParameters(parameters).build();
  }

  private static String create(CreateVolumeRequest request) {
    return CsiAssert.ok(() -> efs.controller().createVolume(request)).getVolume().getVolumeId();
  }

  /** The same request again -> OK, same id; other directoryPerms, uid, basePath, extra key -> ALREADY_EXISTS. */
  @Test
  void aRepeatWithAnyOtherParameterIsAlreadyExists() {
    String id = create(request("pvc-perms", accessPoint("700")));
    assertThat(create(request("pvc-perms", accessPoint("700")))).isEqualTo(id);

    Status perms = CsiAssert.refused(Status.Code.ALREADY_EXISTS, () -> efs.controller().createVolume(
        request("pvc-perms", accessPoint("777"))));
    assertThat(perms.getDescription()).contains("directoryPerms");
    Map<String, String> uid = accessPoint("700");
    uid.put("uid", "1234");
    CsiAssert.refused(Status.Code.ALREADY_EXISTS, () -> efs.controller().createVolume(request("pvc-perms", uid)));
    Map<String, String> base = accessPoint("700");
    base.put("basePath", "/other");
    CsiAssert.refused(Status.Code.ALREADY_EXISTS, () -> efs.controller().createVolume(request("pvc-perms", base)));
    Map<String, String> zone = accessPoint("700");
    zone.put("enforceZoneAffinity", "false");
    CsiAssert.refused(Status.Code.ALREADY_EXISTS, () -> efs.controller().createVolume(request("pvc-perms", zone)));

    assertThat(accessPointsWithToken("pvc-perms")).as("one access point for the name").isEqualTo(1);
  }

  /** The same name with another capability (mode, mount flags) -> ALREADY_EXISTS. */
  @Test
  void aRepeatWithAnotherCapabilityIsAlreadyExists() {
    create(request("pvc-caps", accessPoint("700")));

    CsiAssert.refused(Status.Code.ALREADY_EXISTS, () -> efs.controller().createVolume(CreateVolumeRequest
        .newBuilder().setName("pvc-caps").putAllParameters(accessPoint("700"))
        .addVolumeCapabilities(CsiRequests.mount("", Mode.MULTI_NODE_MULTI_WRITER)).build()));
    CsiAssert.refused(Status.Code.ALREADY_EXISTS, () -> efs.controller().createVolume(CreateVolumeRequest
        .newBuilder().setName("pvc-caps").putAllParameters(accessPoint("700"))
        .addVolumeCapabilities(CsiRequests.mount("", Mode.SINGLE_NODE_WRITER, "tls")).build()));
  }

  /** An efs-ap volume's name with provisioningMode efs-dir -> ALREADY_EXISTS, never a second id. */
  @Test
  void oneNameNeverGetsTwoIdsAcrossModes() {
    create(request("pvc-modes", accessPoint("700")));
    Map<String, String> directory = Map.of("provisioningMode", "efs-dir", "fileSystemId", FX.aws().fileSystemId(),
        "directoryPerms", "700");

    CsiAssert.refused(Status.Code.ALREADY_EXISTS, () -> efs.controller().createVolume(request("pvc-modes",
        directory)));

    String dirId = create(request("pvc-dir-first", directory));
    CsiAssert.refused(Status.Code.ALREADY_EXISTS, () -> efs.controller().createVolume(request("pvc-dir-first",
        accessPoint("700"))));
    assertThat(create(request("pvc-dir-first", directory))).isEqualTo(dirId);
  }

  /** After a controller restart (nothing in memory) the records on EFS still refuse the repeats. */
  @Test
  void theRecordsOnEfsRefuseRepeatsAfterARestart() {
    String id = create(request("pvc-restart", accessPoint("700")));
    Map<String, String> directory = Map.of("provisioningMode", "efs-dir", "fileSystemId", FX.aws().fileSystemId(),
        "directoryPerms", "750");
    String dirId = create(request("pvc-restart-dir", directory));

    efs.restart();

    CsiAssert.refused(Status.Code.ALREADY_EXISTS, () -> efs.controller().createVolume(request("pvc-restart",
        accessPoint("777"))));
    CsiAssert.refused(Status.Code.ALREADY_EXISTS, () -> efs.controller().createVolume(request("pvc-restart",
        directory)));
    Map<String, String> otherPerms = new HashMap<>(directory);
    otherPerms.put("directoryPerms", "700");
    CsiAssert.refused(Status.Code.ALREADY_EXISTS, () -> efs.controller().createVolume(request("pvc-restart-dir",
        otherPerms)));
    assertThat(create(request("pvc-restart", accessPoint("700")))).isEqualTo(id);
    assertThat(create(request("pvc-restart-dir", directory))).isEqualTo(dirId);
  }

  private static long accessPointsWithToken(String token) {
    try (EfsClient client = LocalAws.efs(FX.aws().endpoint())) {
      return client.describeAccessPoints(r -> r.fileSystemId(FX.aws().fileSystemId())).accessPoints().stream()
          .filter(a -> token.equals(a.clientToken())).count();
    }
  }
}
