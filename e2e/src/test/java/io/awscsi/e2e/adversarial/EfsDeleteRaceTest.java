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
  private static final int ROUNDS = 3;
  private static final int TENANT_THREADS = 4;
  private static final AtomicInteger NAMES = new AtomicInteger();

  private static DriverProcess efs;
  private static Path canary;

  @BeforeAll
  static void start() throws IOException {
    efs = FX.start(Driver.EFS, DriverFixture.Mode.CONTROLLER, "--delete-access-point-root-dir");
    // Shaped like the tenant's subdirectories (a "nested" directory), as an attacker names what it wants deleted:
    // a removal that re-resolves d7/nested after d7 became a link to here empties the canary's nested directory.
    canary = FX.newDirectory("canary-");
    Path hostFiles = Files.createDirectory(canary.resolve("nested"));
    for (int i = 0; i < CANARIES; i++) {
      Files.writeString(hostFiles.resolve("host-file-" + i), "outside the file system");
    }
  }

  private static Path fileSystemRoot() {
    return FX.efsLocalRoot().resolve(FX.aws().fileSystemId());
  }

  @Test
  void swappingDirectoriesForLinksDuringTheDeletionOfAnEfsDirVolumeNeverReachesOutside() throws Exception {
    List<Race> races = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      String name = "race-dir-" + NAMES.incrementAndGet();
      String id = CsiAssert.ok(() -> efs.controller().createVolume(efsVolume(name)
          .putAllParameters(Map.of("provisioningMode", "efs-dir", "fileSystemId", FX.aws().fileSystemId(),
              "directoryPerms", "777", "basePath", "/race"))
          .build())).getVolume().getVolumeId();
      String path = id.substring(id.indexOf(':', "efs:".length()) + 1);
      races.add(race(id, fileSystemRoot().resolve(path.substring(1))));
    }
    assertConfined(races);
  }

  @Test
  void swappingDirectoriesForLinksDuringTheDeletionOfAnAccessPointRootNeverReachesOutside() throws Exception {
    List<Race> races = new ArrayList<>();
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
      races.add(race(id, Files.createDirectories(fileSystemRoot().resolve(root.substring(1)))));
    }
    assertConfined(races);
  }

  /** One DeleteVolume under the race, and the answer of a repeat once the tenant stopped (OK when not needed). */
  private record Race(String volumeId, Path volume, Status.Code underRace, Status.Code afterwards, int swaps) {}

  /** The canary first (what the old removal broke), then the answers, then the directories. */
  private static void assertConfined(List<Race> races) throws IOException {
    assertThat(canaryFiles()).as("canary files outside the file system after the races %s", races)
        .isEqualTo(CANARIES);
    for (Race race : races) {
      assertThat(race.underRace()).as("DeleteVolume under the race (never INTERNAL): %s", race)
          .isIn(Status.Code.OK, Status.Code.ABORTED, Status.Code.FAILED_PRECONDITION);
      assertThat(race.afterwards()).as("DeleteVolume once the tenant stopped: %s", race).isEqualTo(Status.Code.OK);
      assertThat(race.volume()).as("the directory of %s", race.volumeId()).doesNotExist();
    }
    assertThat(races.stream().mapToInt(Race::swaps).sum()).as("the tenant raced at all").isPositive();
  }

  /**
   * Fills the volume, then deletes it while tenant threads turn each subdirectory into a link to the canary and
   * back, as fast as they can (the directory moved aside within the file system, outside the volume).
   */
  private static Race race(String id, Path volume) throws Exception {
    for (int d = 0; d < SUBDIRECTORIES; d++) {
      Path sub = Files.createDirectories(volume.resolve("d" + d).resolve("nested"));
      for (int f = 0; f < FILES_PER_SUBDIRECTORY; f++) {
        Files.writeString(sub.getParent().resolve("f" + f), "tenant data");
        Files.writeString(sub.resolve("f" + f), "tenant data");
      }
    }
    Path stash = Files.createDirectories(fileSystemRoot().resolve("stash-" + NAMES.incrementAndGet()));
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger swaps = new AtomicInteger();
    List<Thread> tenants = new ArrayList<>();
    for (int t = 0; t < TENANT_THREADS; t++) {
      int first = t;
      tenants.add(Thread.ofPlatform().name("tenant-" + t).start(() -> {
        int n = 0;
        while (!stop.get()) {
          for (int d = first; d < SUBDIRECTORIES && !stop.get(); d += TENANT_THREADS) {
            Path sub = volume.resolve("d" + d);
            try {
              if (Files.isSymbolicLink(sub)) {
                Files.delete(sub);
                // createDirectory, not createDirectories: a tenant cannot bring back the deleted volume itself
                Files.writeString(Files.createDirectory(Files.createDirectory(sub).resolve("nested")).resolve("f"),
                    "tenant data");
              } else {
                Files.move(sub, stash.resolve(first + "-" + n++));
                Files.createSymbolicLink(sub, canary);
                swaps.incrementAndGet();
              }
            } catch (IOException e) {
              // the controller removed it (or the whole volume) first: keep racing what is left
            }
          }
        }
      }));
    }
    Status.Code underRace;
    try {
      Thread.sleep(20); // the tenant is racing before the call arrives
      underRace = delete(id);
    } finally {
      stop.set(true);
      for (Thread tenant : tenants) {
        tenant.join();
      }
    }
    Status.Code afterwards = underRace == Status.Code.OK ? Status.Code.OK : delete(id);
    return new Race(id, volume, underRace, afterwards, swaps.get());
  }

  /** DeleteVolume's code; an INTERNAL answer fails the test after the canary is counted (the fixture's check). */
  private static Status.Code delete(String id) {
    try {
      efs.controller().deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(id).build());
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  private static long canaryFiles() throws IOException {
    try (Stream<Path> files = Files.list(canary.resolve("nested"))) {
      return files.count();
    }
  }
}
