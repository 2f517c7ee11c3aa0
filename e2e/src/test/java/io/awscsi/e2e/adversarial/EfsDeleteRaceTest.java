package io.awscsi.e2e.adversarial;

import static io.awscsi.e2e.adversarial.ControllerSupport.efsVolume;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.DeleteVolumeRequest;
import io.awscsi.e2e.adversarial.DriverFixture.Driver;
import io.awscsi.local.LocalAws;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.efs.EfsClient;

/**
 * Issue 24 item 1, over the EFS controller's socket: DeleteVolume with {@code --delete-access-point-root-dir}
 * removes a tree tenants can write to, and a tenant swapping its subdirectories for links to a directory outside the
 * file system while the removal runs must never make the controller delete anything there. The old removal
 * ({@code Files.walkFileTree}: stat a name, then open it by path) followed a directory swapped for a link between the
 * two and deleted 1,289 of 2,000 canary files in one race; each step now goes through an open directory descriptor.
 * Repeated for efs-dir volumes and access-point roots; the call answers OK or a retryable code, never INTERNAL, and
 * once the tenant stops, a repeated DeleteVolume removes the directory.
 */
@Tag("integration")
class EfsDeleteRaceTest {

  @RegisterExtension
  static final DriverFixture FX = DriverFixture.create();

  private static final int CANARIES = 2000;
  private static final int SUBDIRECTORIES = 40;
  private static final int FILES_PER_SUBDIRECTORY = 25;
  private static final int ROUNDS = 4;
  private static final AtomicInteger NAMES = new AtomicInteger();

  private static DriverProcess efs;
  private static Path canary;

  @BeforeAll
  static void start() throws IOException {
    efs = FX.start(Driver.EFS, DriverFixture.Mode.CONTROLLER, "--delete-access-point-root-dir");
    canary = FX.newDirectory("canary-");
    for (int i = 0; i < CANARIES; i++) {
      Files.writeString(canary.resolve("host-file-" + i), "outside the file system");
    }
  }

  private static Path fileSystemRoot() {
    return FX.efsLocalRoot().resolve(FX.aws().fileSystemId());
  }

  @Test
  void swappingDirectoriesForLinksDuringTheDeletionOfAnEfsDirVolumeNeverReachesOutside() throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      String name = "race-dir-" + NAMES.incrementAndGet();
      String id = CsiAssert.ok(() -> efs.controller().createVolume(efsVolume(name)
          .putAllParameters(Map.of("provisioningMode", "efs-dir", "fileSystemId", FX.aws().fileSystemId(),
              "directoryPerms", "777", "basePath", "/race"))
          .build())).getVolume().getVolumeId();
      String path = id.substring(id.indexOf(':', "efs:".length()) + 1);
      raceDeletion(id, fileSystemRoot().resolve(path.substring(1)));
    }
  }

  @Test
  void swappingDirectoriesForLinksDuringTheDeletionOfAnAccessPointRootNeverReachesOutside() throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      String name = "race-ap-" + NAMES.incrementAndGet();
      String id = CsiAssert.ok(() -> efs.controller().createVolume(efsVolume(name)
          .putAllParameters(Map.of("provisioningMode", "efs-ap", "fileSystemId", FX.aws().fileSystemId(),
              "directoryPerms", "777", "basePath", "/race-ap"))
          .build())).getVolume().getVolumeId();
      String accessPointId = id.substring(id.lastIndexOf(':') + 1);
      String root;
      try (EfsClient client = LocalAws.efs(FX.aws().endpoint())) {
        root = client.describeAccessPoints(r -> r.accessPointId(accessPointId)).accessPoints().getFirst()
            .rootDirectory().path();
      }
      // EFS makes the root on the first mount; the tenant's pod then fills it.
      raceDeletion(id, Files.createDirectories(fileSystemRoot().resolve(root.substring(1))));
    }
  }

  /** Fills the volume, deletes it while a tenant thread swaps its subdirectories for links, checks the canary. */
  private static void raceDeletion(String id, Path volume) throws Exception {
    for (int d = 0; d < SUBDIRECTORIES; d++) {
      Path sub = Files.createDirectories(volume.resolve("d" + d).resolve("nested"));
      for (int f = 0; f < FILES_PER_SUBDIRECTORY; f++) {
        Files.writeString(sub.getParent().resolve("f" + f), "tenant data");
      }
    }
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger swaps = new AtomicInteger();
    Thread tenant = Thread.ofPlatform().name("tenant").start(() -> {
      int n = 0;
      while (!stop.get()) {
        for (int d = 0; d < SUBDIRECTORIES && !stop.get(); d++) {
          Path sub = volume.resolve("d" + d);
          try {
            if (Files.isSymbolicLink(sub)) {
              Files.delete(sub);
              Files.createDirectory(sub);
              Files.writeString(sub.resolve("again"), "x");
            } else {
              Files.move(sub, volume.resolve("moved-" + d + "-" + n++));
              Files.createSymbolicLink(sub, canary);
              swaps.incrementAndGet();
            }
          } catch (IOException e) {
            // the controller removed it (or the whole volume) first: keep racing what is left
          }
        }
      }
    });
    List<Status.Code> answers = new ArrayList<>();
    try {
      Thread.sleep(20); // the tenant is racing before the call arrives
      answers.add(delete(id));
    } finally {
      stop.set(true);
      tenant.join();
    }
    assertThat(canaryFiles()).as("canary files outside the file system after DeleteVolume %s (answers %s, %d swaps)",
        id, answers, swaps.get()).isEqualTo(CANARIES);
    assertThat(answers.getFirst()).as("DeleteVolume %s under the race", id)
        .isIn(Status.Code.OK, Status.Code.ABORTED, Status.Code.FAILED_PRECONDITION);
    if (answers.getFirst() != Status.Code.OK) {
      // A link may have been left in the volume's own place only by a swap we do not make; the tenant has stopped.
      assertThat(delete(id)).as("DeleteVolume %s again after the tenant stopped", id).isEqualTo(Status.Code.OK);
    }
    assertThat(volume).as("the volume's directory after DeleteVolume").doesNotExist();
    assertThat(canaryFiles()).isEqualTo(CANARIES);
  }

  private static Status.Code delete(String id) {
    try {
      efs.controller().deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(id).build());
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      assertThat(e.getStatus().getCode()).as("DeleteVolume %s: %s", id, e.getStatus().getDescription())
          .isNotEqualTo(Status.Code.INTERNAL);
      return e.getStatus().getCode();
    }
  }

  private static long canaryFiles() throws IOException {
    try (Stream<Path> files = Files.list(canary)) {
      return files.count();
    }
  }
}
