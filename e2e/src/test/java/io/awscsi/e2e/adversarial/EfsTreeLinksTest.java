package io.awscsi.e2e.adversarial;

import static io.awscsi.e2e.adversarial.ControllerSupport.efsVolume;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.DeleteVolumeRequest;
import csi.v1.NodePublishVolumeRequest;
import csi.v1.VolumeCapability.AccessMode.Mode;
import io.awscsi.e2e.adversarial.DriverFixture.Driver;
import io.awscsi.local.LocalAws;
import io.grpc.Status;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.efs.EfsClient;

/**
 * Issue 24 items 1 and 9, over the EFS driver's socket: a symbolic link (or a file) a tenant left where the driver
 * needs a directory of the file system (an efs-dir basePath, an access point's root or one of its parents) is never
 * followed: the controller and the node answer FAILED_PRECONDITION naming the path (they answered INTERNAL, and the
 * local stand-in made the access-point root wherever the link pointed), and nothing outside changes.
 */
@Tag("integration")
class EfsTreeLinksTest {

  @RegisterExtension
  static final DriverFixture FX = DriverFixture.create();

  private static final AtomicInteger NAMES = new AtomicInteger();
  private static DriverProcess efs;
  private Path outside;

  @BeforeAll
  static void start() {
    efs = FX.start(Driver.EFS, DriverFixture.Mode.ALL, "--delete-access-point-root-dir");
  }

  @BeforeEach
  void canary() throws IOException {
    outside = FX.newDirectory("outside-");
    Files.writeString(outside.resolve("host-file"), "outside the file system");
  }

  private static Path fileSystemRoot() throws IOException {
    return Files.createDirectories(FX.efsLocalRoot().resolve(FX.aws().fileSystemId()));
  }

  private static Map<String, String> parameters(String mode, String basePath) {
    return Map.of("provisioningMode", mode, "fileSystemId", FX.aws().fileSystemId(), "directoryPerms", "777",
        "basePath", basePath);
  }

  private List<String> outsideEntries() throws IOException {
    try (Stream<Path> entries = Files.list(outside)) {
      return entries.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void anEfsDirBasePathThatIsALinkIsAFailedPreconditionAndNothingIsMadeWhereItPoints() throws IOException {
    String base = "linked-base-" + NAMES.incrementAndGet();
    Files.createSymbolicLink(fileSystemRoot().resolve(base), outside);

    CsiAssert.refused(Status.Code.FAILED_PRECONDITION, "/" + base, () -> efs.controller().createVolume(
        efsVolume("pvc-link-" + NAMES.incrementAndGet()).putAllParameters(parameters("efs-dir", "/" + base))
            .build()));
    assertThat(outsideEntries()).containsExactly("host-file");
    assertThat(Files.getAttribute(outside, "unix:mode")).isNotEqualTo(040777);
  }

  @Test
  void anEfsDirBasePathThatIsAFileIsAFailedPrecondition() throws IOException {
    String base = "file-base-" + NAMES.incrementAndGet();
    Files.writeString(fileSystemRoot().resolve(base), "a tenant's file");

    CsiAssert.refused(Status.Code.FAILED_PRECONDITION, "/" + base, () -> efs.controller().createVolume(
        efsVolume("pvc-file-" + NAMES.incrementAndGet()).putAllParameters(parameters("efs-dir", "/" + base))
            .build()));
  }

  @Test
  void anAccessPointRootSwappedForALinkIsKeptWithAFailedPreconditionUntilTheLinkIsGone() throws IOException {
    String id = CsiAssert.ok(() -> efs.controller().createVolume(efsVolume("pvc-aproot-" + NAMES.incrementAndGet())
        .putAllParameters(parameters("efs-ap", "/ap-links")).build())).getVolume().getVolumeId();
    String root = rootOf(id);
    Path rootDirectory = fileSystemRoot().resolve(root.substring(1));
    Files.createDirectories(rootDirectory.getParent());
    Files.createSymbolicLink(rootDirectory, outside);

    CsiAssert.refused(Status.Code.FAILED_PRECONDITION, root, () -> efs.controller().deleteVolume(
        DeleteVolumeRequest.newBuilder().setVolumeId(id).build()));
    assertThat(outsideEntries()).containsExactly("host-file");

    Files.delete(rootDirectory);
    CsiAssert.ok(() -> efs.controller().deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(id).build()));
    assertThat(outsideEntries()).containsExactly("host-file");
  }

  @Test
  void theNodeRefusesToMakeAnAccessPointRootThroughALinkedParent() throws IOException {
    String base = "ap-linked-parent-" + NAMES.incrementAndGet();
    String id = CsiAssert.ok(() -> efs.controller().createVolume(efsVolume("pvc-apnode-" + NAMES.incrementAndGet())
        .putAllParameters(parameters("efs-ap", "/" + base)).build())).getVolume().getVolumeId();
    Files.createSymbolicLink(fileSystemRoot().resolve(base), outside);
    Path target = FX.newDirectory("pod-").resolve("mount");

    CsiAssert.refused(Status.Code.FAILED_PRECONDITION, base, () -> efs.node().nodePublishVolume(
        NodePublishVolumeRequest.newBuilder().setVolumeId(id).setTargetPath(target.toString())
            .setVolumeCapability(CsiRequests.mount("", Mode.MULTI_NODE_MULTI_WRITER)).build()));
    assertThat(outsideEntries()).as("the access point's root is not made through the link")
        .containsExactly("host-file");
  }

  private static String rootOf(String volumeId) {
    String accessPointId = volumeId.substring(volumeId.lastIndexOf(':') + 1);
    try (EfsClient client = LocalAws.efs(FX.aws().endpoint())) {
      return client.describeAccessPoints(r -> r.accessPointId(accessPointId)).accessPoints().getFirst()
          .rootDirectory().path();
    }
  }
}
