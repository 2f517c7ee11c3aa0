package io.awscsi.efs.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.Command;
import io.awscsi.core.host.HostTool;
import io.awscsi.core.host.LinuxMounter;
import io.awscsi.core.host.RecordingCommandRunner;
import io.awscsi.core.provider.AccessMode;
import io.awscsi.core.provider.AccessType;
import io.awscsi.core.provider.NodeInfo;
import io.awscsi.core.provider.NodePublishRequest;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.efs.mount.EfsUtilsMountBackend;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The exact mount command of every handle and volume-context form, through the real mounter and a recording runner
 * (this kernel has no NFS client, and mount.efs is not installed here).
 */
class EfsUtilsMountCommandTest {

  @TempDir Path dir;
  private Path target;
  private Path stateDir;
  private Path mountInfo;
  private RecordingCommandRunner runner;
  private EfsVolumePublisher publisher;

  @BeforeEach
  void setUp() throws IOException {
    mountInfo = dir.resolve("mountinfo");
    Files.writeString(mountInfo, "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n");
    target = dir.toRealPath().resolve("pods/uid/volumes/kubernetes.io~csi/pv/mount");
    runner = new RecordingCommandRunner();
    stateDir = Files.createDirectories(dir.resolve("var-run-efs"));
    LinuxMounter mounter = new LinuxMounter(runner, mountInfo, Duration.ofSeconds(5));
    publisher = (EfsVolumePublisher) EfsNodeProvider.create(options(0), new NodeInfo("i-0123", 0,
        Map.of("topology.kubernetes.io/zone", "us-east-1b")), mounter, runner,
        new EfsUtilsMountBackend(mounter, stateDir)).publisher();
  }

  static EfsNodeOptions options(int maxInflight) {
    return new EfsNodeOptions(false, Duration.ofMinutes(240), 5, false, Duration.ofSeconds(30), maxInflight);
  }

  private NodePublishRequest request(String volumeId, Map<String, String> context, List<String> flags,
      boolean readonly, AccessMode mode) {
    return new NodePublishRequest(volumeId, Map.of(), null, target,
        new VolumeCapability(mode, new AccessType.Mount("", flags, "")), readonly, context, Map.of());
  }

  /** The mount commands as argv joined by spaces (no display quoting). */
  private List<String> mountCommands() {
    return runner.commands().stream().filter(c -> c.tool() == HostTool.MOUNT)
        .map(c -> c.tool().executable() + " " + String.join(" ", c.arguments())).toList();
  }

  static Stream<Arguments> commands() {
    String t = "TARGET";
    return Stream.of(
        Arguments.of("efs:fs-0123abcd", Map.of(), List.of(), false,
            "mount -t efs -o tls fs-0123abcd:/ " + t),
        Arguments.of("fs-0123abcd", Map.of(), List.of(), false,
            "mount -t efs -o tls fs-0123abcd:/ " + t),
        Arguments.of("efs:fs-0123abcd:/data/x", Map.of(), List.of(), false,
            "mount -t efs -o tls fs-0123abcd:/data/x " + t),
        Arguments.of("fs-0123abcd:/data", Map.of(), List.of(), false,
            "mount -t efs -o tls fs-0123abcd:/data " + t),
        Arguments.of("efs:fs-0123abcd::fsap-0123abcd", Map.of(), List.of(), false,
            "mount -t efs -o tls,accesspoint=fsap-0123abcd fs-0123abcd:/ " + t),
        Arguments.of("fs-0123abcd::fsap-0123abcd", Map.of(), List.of(), false,
            "mount -t efs -o tls,accesspoint=fsap-0123abcd fs-0123abcd:/ " + t),
        Arguments.of("efs:fs-0123abcd:/sub:fsap-0123abcd", Map.of(), List.of(), false,
            "mount -t efs -o tls,accesspoint=fsap-0123abcd fs-0123abcd:/sub " + t),
        Arguments.of("efs:fs-0123abcd::fsap-0123abcd", Map.of(), List.of("IAM", "iam", "noResvPort"), false,
            "mount -t efs -o tls,accesspoint=fsap-0123abcd,iam,noresvport fs-0123abcd:/ " + t),
        Arguments.of("efs:fs-0123abcd", Map.of("encryptInTransit", "false"), List.of(), false,
            "mount -t efs fs-0123abcd:/ " + t),
        Arguments.of("efs:fs-0123abcd::fsap-0123abcd", Map.of("encryptInTransit", "false"), List.of(), false,
            "mount -t efs -o tls,accesspoint=fsap-0123abcd fs-0123abcd:/ " + t),
        Arguments.of("efs:fs-0123abcd", Map.of(), List.of(), true,
            "mount -t efs -o ro,tls fs-0123abcd:/ " + t),
        Arguments.of("efs:fs-0123abcd::fsap-0123abcd", Map.of("mounttargetip", "10.0.0.5"), List.of("iam"), false,
            "mount -t efs -o tls,accesspoint=fsap-0123abcd,iam,mounttargetip=10.0.0.5 fs-0123abcd:/ " + t),
        Arguments.of("efs:fs-0123abcd::fsap-0123abcd",
            Map.of("mounttargetipmap", "{\"us-east-1a\":\"10.0.0.4\",\"us-east-1b\":\"10.0.1.4\"}"), List.of(),
            false, "mount -t efs -o tls,accesspoint=fsap-0123abcd,mounttargetip=10.0.1.4 fs-0123abcd:/ " + t),
        Arguments.of("efs:fs-0123abcd::fsap-0123abcd", Map.of("crossaccount", "true"), List.of("iam"), false,
            "mount -t efs -o tls,accesspoint=fsap-0123abcd,iam,crossaccount fs-0123abcd:/ " + t),
        Arguments.of("efs:fs-0123abcd::fsap-0123abcd", Map.of(), List.of("accesspoint=fsap-0123abcd",
            "awscredsuri=/v2/creds", "tls,lookupcache=pos"), false,
            "mount -t efs -o tls,accesspoint=fsap-0123abcd,lookupcache=pos fs-0123abcd:/ " + t));
  }

  @ParameterizedTest(name = "{0} {1} {2} ro={3}")
  @MethodSource("commands")
  void mountsWithTheExactEfsUtilsCommand(String volumeId, Map<String, String> context, List<String> flags,
      boolean readonly, String command) {
    publisher.publish(request(volumeId, context, flags, readonly, AccessMode.MULTI_NODE_MULTI_WRITER));

    assertThat(mountCommands()).containsExactly(command.replace("TARGET", target.toString()));
    assertThat(target).isDirectory();
  }

  @Test
  void readOnlyManyIsMountedReadOnlyEvenWithoutTheReadonlyFlag() {
    publisher.publish(request("efs:fs-0123abcd", Map.of(), List.of(), false, AccessMode.MULTI_NODE_READER_ONLY));

    assertThat(mountCommands()).containsExactly("mount -t efs -o ro,tls fs-0123abcd:/ " + target);
  }

  static Stream<Arguments> refused() {
    return Stream.of(
        Arguments.of("efs:fs-0123abcd", Map.of("encryptInTransit", "false"), List.of("tls"), "conflicts"),
        Arguments.of("efs:fs-0123abcd::fsap-0123abcd", Map.of(), List.of("accesspoint=fsap-99999999"), "conflicts"),
        Arguments.of("efs:fs-0123abcd", Map.of(), List.of("crossaccount"), "crossaccount cannot be set"),
        Arguments.of("efs:fs-0123abcd", Map.of("mounttargetip", "10.0.0.5"), List.of("mounttargetip=10.0.0.6"),
            "conflicts"),
        Arguments.of("efs:fs-0123abcd", Map.of(), List.of("bind"), "not allowed"),
        Arguments.of("efs:fs-0123abcd", Map.of(), List.of("nfsvers=9"), "not allowed"),
        Arguments.of("efs:fs-0123abcd", Map.of("path", "/x"), List.of(), "not supported"),
        Arguments.of("efs:fs-0123abcd::ap-1", Map.of(), List.of(), "not an access point id"));
  }

  @Test
  void rwWithAReadOnlyPublishIsAContradictionNotATieBreak() {
    for (var mode : List.of(AccessMode.MULTI_NODE_READER_ONLY, AccessMode.SINGLE_NODE_WRITER)) {
      assertThatThrownBy(() -> publisher.publish(request("efs:fs-0123abcd", Map.of(), List.of("noac,rw"),
          mode == AccessMode.SINGLE_NODE_WRITER, mode)))
          .isInstanceOfSatisfying(DriverException.class, e -> assertThat(e.error())
              .isInstanceOfSatisfying(DriverError.InvalidArgument.class,
                  invalid -> assertThat(invalid.field()).isEqualTo("volume_capability.mount.mount_flags")))
          .hasMessageContaining("conflicts with a read-only publish");
    }
    assertThat(runner.commands()).isEmpty();
  }

  @ParameterizedTest(name = "{3}: {0} {1} {2}")
  @MethodSource("refused")
  void refusesBadOptionsWithoutRunningAnything(String volumeId, Map<String, String> context, List<String> flags,
      String message) {
    assertThatThrownBy(() -> publisher.publish(request(volumeId, context, flags, false,
        AccessMode.SINGLE_NODE_WRITER)))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.InvalidArgument.class))
        .hasMessageContaining(message);
    assertThat(runner.commands()).isEmpty();
    assertThat(target).doesNotExist();
  }

  @Test
  void refusesBlockAndOtherFileSystemTypes() {
    var block = new NodePublishRequest("efs:fs-0123abcd", Map.of(), null, target,
        VolumeCapability.block(AccessMode.SINGLE_NODE_WRITER), false, Map.of(), Map.of());
    var ext4 = new NodePublishRequest("efs:fs-0123abcd", Map.of(), null, target,
        VolumeCapability.mount(AccessMode.SINGLE_NODE_WRITER, "ext4"), false, Map.of(), Map.of());

    assertThatThrownBy(() -> publisher.publish(block)).hasMessageContaining("block");
    assertThatThrownBy(() -> publisher.publish(ext4)).hasMessageContaining("ext4");
    assertThat(runner.commands()).isEmpty();
  }

  /** The mount table's line of an efs-utils TLS mount at the target: NFS from the local tunnel on its port. */
  private void tunnelMountAtTarget(String options) throws IOException {
    Files.createDirectories(target);
    Files.writeString(mountInfo, "90 27 0:50 / " + target + " " + options + ",relatime shared:40 - nfs4 127.0.0.1:/ "
        + options + ",vers=4.1,rsize=1048576,wsize=1048576,hard,proto=tcp,port=20049,timeo=600,retrans=2\n",
        java.nio.file.StandardOpenOption.APPEND);
  }

  /** efs-utils's state file of a TLS mount: {@code <fs-id>.<mount point with / as .>.<port>}. */
  private void tunnelStateOf(String fileSystemId) throws IOException {
    Files.writeString(stateDir.resolve(fileSystemId + "." + target.toString().substring(1).replace('/', '.')
        + ".20049"), "{}");
  }

  @Test
  void aTargetAlreadyMountedWithTheVolumeIsNotMountedAgain() throws IOException {
    tunnelMountAtTarget("rw");
    tunnelStateOf("fs-0123abcd");

    publisher.publish(request("efs:fs-0123abcd", Map.of(), List.of(), false, AccessMode.SINGLE_NODE_WRITER));

    assertThat(mountCommands()).isEmpty();
  }

  @Test
  void aTargetMountedReadWriteIsNotPublishedReadOnly() throws IOException {
    tunnelMountAtTarget("rw");
    tunnelStateOf("fs-0123abcd");

    assertThatThrownBy(() -> publisher.publish(request("efs:fs-0123abcd", Map.of(), List.of(), true,
        AccessMode.SINGLE_NODE_WRITER)))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.AlreadyExists.class));
  }

  static Stream<Arguments> otherMounts() {
    return Stream.of(
        Arguments.of("the TLS mount of another file system", "nfs4 127.0.0.1:/ rw,port=20049", "fs-99999999",
            "file system fs-99999999"),
        Arguments.of("a TLS mount without efs-utils state", "nfs4 127.0.0.1:/ rw,port=20049", "",
            "cannot be told"),
        Arguments.of("another path of the file system", "nfs4 fs-0123abcd.efs.us-east-1.amazonaws.com:/other rw",
            "", "path /other"),
        Arguments.of("another file system by name", "nfs4 fs-99999999.efs.us-east-1.amazonaws.com:/ rw", "",
            "fs-99999999"),
        Arguments.of("a tmpfs", "tmpfs tmpfs rw", "", "not an NFS mount"),
        Arguments.of("a bind mount efs-utils' state gives another file system", "ext4 /dev/vda1 rw", "fs-99999999",
            "efs-utils mount of file system fs-99999999"),
        Arguments.of("the host's root", "ext4 /dev/vda1 rw", "", "not an NFS mount"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("otherMounts")
  void aTargetHoldingAnythingElseIsNeverAlreadyPublished(String what, String typeSourceOptions, String stateOf,
      String message) throws IOException {
    Files.createDirectories(target);
    Files.writeString(mountInfo, "90 27 0:50 / " + target + " rw,relatime shared:40 - " + typeSourceOptions + "\n",
        java.nio.file.StandardOpenOption.APPEND);
    if (!stateOf.isEmpty()) {
      tunnelStateOf(stateOf);
    }

    assertThatThrownBy(() -> publisher.publish(request("efs:fs-0123abcd", Map.of(), List.of(), false,
        AccessMode.SINGLE_NODE_WRITER)))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.AlreadyExists.class))
        .hasMessageContaining("target_path").hasMessageContaining(message);
    assertThat(mountCommands()).isEmpty();
  }

  @Test
  void aTargetMountedByNameOfTheFileSystemIsTheVolume() throws IOException {
    Files.createDirectories(target);
    Files.writeString(mountInfo, "90 27 0:50 / " + target + " rw,relatime shared:40 - nfs4 "
        + "fs-0123abcd.efs.us-east-1.amazonaws.com:/data rw\n", java.nio.file.StandardOpenOption.APPEND);

    publisher.publish(request("efs:fs-0123abcd:/data", Map.of(), List.of(), false, AccessMode.SINGLE_NODE_WRITER));

    assertThat(mountCommands()).isEmpty();
  }

  /** efs-utils' stand-in (no NFS client in the kernel) bind-mounts: its state file is what makes it the volume's. */
  private void bindMountAtTarget() throws IOException {
    Files.createDirectories(target);
    Files.writeString(mountInfo, "90 27 254:0 /efs-local/fs-0123abcd " + target + " rw,relatime shared:40 - ext4 "
        + "/dev/vda1 rw\n", java.nio.file.StandardOpenOption.APPEND);
  }

  @Test
  void aMountOfAnotherTypeThatEfsUtilsStateNamesIsTheVolume() throws IOException {
    bindMountAtTarget();
    tunnelStateOf("fs-0123abcd");

    publisher.publish(request("efs:fs-0123abcd", Map.of(), List.of(), false, AccessMode.SINGLE_NODE_WRITER));

    assertThat(mountCommands()).isEmpty();
  }

  @Test
  void unpublishUnmountsAMountOfAnotherTypeOnlyWhenEfsUtilsStateNamesIt() throws IOException {
    bindMountAtTarget();
    umountEmptiesTheTable();

    assertThatThrownBy(() -> publisher.unpublish("efs:fs-0123abcd", target))
        .hasMessageContaining("is not unmounted");
    tunnelStateOf("fs-0123abcd");
    publisher.unpublish("efs:fs-0123abcd", target);

    assertThat(runner.commands().stream().filter(c -> c.tool() == HostTool.UMOUNT).map(Command::arguments))
        .containsExactly(List.of(target.toString()));
    assertThat(target).doesNotExist();
  }

  @Test
  void unpublishNeverUnmountsWhatIsNotAnEfsMountOfTheVolume() throws IOException {
    Files.createDirectories(target);
    Files.writeString(mountInfo, "90 27 0:50 / " + target + " rw,relatime shared:40 - tmpfs tmpfs rw\n",
        java.nio.file.StandardOpenOption.APPEND);

    assertThatThrownBy(() -> publisher.unpublish("efs:fs-0123abcd", target))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.FailedPrecondition.class))
        .hasMessageContaining("is not unmounted");
    assertThat(runner.commands()).isEmpty();
  }

  @Test
  void aTargetThatIsARegularFileIsAFailedPreconditionNotAMountError() throws IOException {
    Files.createDirectories(target.getParent());
    Files.writeString(target, "a file");

    assertThatThrownBy(() -> publisher.publish(request("efs:fs-0123abcd", Map.of(), List.of(), false,
        AccessMode.SINGLE_NODE_WRITER)))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.FailedPrecondition.class))
        .hasMessageContaining("target_path").hasMessageContaining("is a regular file");
    assertThat(runner.commands()).isEmpty();
  }

  @Test
  void aFailedMountRemovesTheTargetItCreatedAndSaysWhy() {
    runner.on(HostTool.MOUNT, RecordingCommandRunner.Reply.exit(32, "mount.efs: Failed to resolve fs-0123abcd"));

    assertThatThrownBy(() -> publisher.publish(request("efs:fs-0123abcd", Map.of(), List.of(), false,
        AccessMode.SINGLE_NODE_WRITER)))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.Unavailable.class))
        .hasMessageContaining("Failed to resolve").hasMessageContaining("efs:fs-0123abcd");
    assertThat(target).doesNotExist();
  }

  @Test
  void moreMountsThanAllowedAreAborted() throws Exception {
    LinuxMounter mounter = new LinuxMounter(runner, mountInfo, Duration.ofSeconds(5));
    java.util.concurrent.CountDownLatch inMount = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    runner.on(c -> c.tool() == HostTool.MOUNT, c -> {
      inMount.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return RecordingCommandRunner.Reply.ok("");
    });
    var limited = EfsNodeProvider.create(options(1), new NodeInfo("i-0123", 0, Map.of()), mounter, runner,
        new EfsUtilsMountBackend(mounter)).publisher();
    var failed = new java.util.concurrent.atomic.AtomicReference<Throwable>();
    Thread first = Thread.ofVirtual().start(() -> {
      try {
        limited.publish(request("efs:fs-0123abcd", Map.of(), List.of(), false, AccessMode.SINGLE_NODE_WRITER));
      } catch (RuntimeException | Error e) {
        failed.set(e);
        inMount.countDown();
      }
    });
    // Bounded: a first publish that fails before its mount must fail the test, not hang it.
    assertThat(inMount.await(30, java.util.concurrent.TimeUnit.SECONDS)).as("the first publish reached mount")
        .isTrue();
    assertThat(failed.get()).as("the first publish").isNull();
    try {
      var second = new NodePublishRequest("efs:fs-0123abcd", Map.of(), null, dir.resolve("other"),
          VolumeCapability.mount(AccessMode.SINGLE_NODE_WRITER, ""), false, Map.of(), Map.of());
      assertThatThrownBy(() -> limited.publish(second))
          .isInstanceOfSatisfying(DriverException.class,
              e -> assertThat(e.error()).isInstanceOf(DriverError.Aborted.class))
          .hasMessageContaining("--max-inflight-mount-calls");
    } finally {
      release.countDown();
      first.join();
    }
  }

  private void mountedInTable(Path path) throws IOException {
    Files.writeString(mountInfo, "90 27 0:50 / " + path + " rw,relatime shared:40 - nfs4 127.0.0.1:/ rw\n",
        java.nio.file.StandardOpenOption.APPEND);
  }

  private void unmountedInTable() throws IOException {
    Files.writeString(mountInfo, "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n");
  }

  /** umount succeeds and leaves the host's root alone in the mount table. */
  private void umountEmptiesTheTable() {
    runner.on(c -> c.tool() == HostTool.UMOUNT, c -> {
      try {
        unmountedInTable();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      return RecordingCommandRunner.Reply.ok("");
    });
  }

  @Test
  void unpublishUnmountsAndRemovesTheTarget() throws IOException {
    Files.createDirectories(target);
    mountedInTable(target);
    umountEmptiesTheTable();

    publisher.unpublish("efs:fs-0123abcd", target);
    publisher.unpublish("efs:fs-0123abcd", target);

    assertThat(runner.commands().stream().filter(c -> c.tool() == HostTool.UMOUNT).map(Command::arguments))
        .containsExactly(List.of(target.toString()));
    assertThat(target).doesNotExist();
  }

  @Test
  void aHungUnmountIsForcedAfterTheTimeout() throws Exception {
    Files.createDirectories(target);
    mountedInTable(target);
    HangingUmountRunner hanging = new HangingUmountRunner(target, this::unmountedInTable);
    LinuxMounter mounter = new LinuxMounter(hanging, mountInfo, Duration.ofSeconds(5));
    EfsNodeOptions forced = new EfsNodeOptions(false, Duration.ofMinutes(240), 5, true, Duration.ofMillis(300), 0);
    var node = EfsNodeProvider.create(forced, new NodeInfo("i-0123", 0, Map.of()), mounter, hanging,
        new EfsUtilsMountBackend(mounter));
    try {
      long start = System.nanoTime();
      node.publisher().unpublish("efs:fs-0123abcd", target);

      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
      assertThat(hanging.umounts).containsExactly(List.of(target.toString()), List.of("-f", target.toString()));
      assertThat(target).doesNotExist();
    } finally {
      hanging.release.countDown();
    }
  }

  /** umount of the target hangs (a dead NFS server) until released; umount -f succeeds and empties the table. */
  private static final class HangingUmountRunner implements io.awscsi.core.host.CommandRunner {
    final List<List<String>> umounts = new java.util.concurrent.CopyOnWriteArrayList<>();
    final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    private final Path target;
    private final IoAction onForced;

    interface IoAction {
      void run() throws IOException;
    }

    HangingUmountRunner(Path target, IoAction onForced) {
      this.target = target;
      this.onForced = onForced;
    }

    @Override
    public io.awscsi.core.host.CommandResult run(Command command) {
      if (command.tool() == HostTool.UMOUNT) {
        umounts.add(command.arguments());
        if (command.arguments().equals(List.of(target.toString()))) {
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          throw new io.awscsi.core.host.CommandException.TimedOut(command, command.timeout(), "");
        }
        try {
          onForced.run();
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
      return new io.awscsi.core.host.CommandResult(command, 0, "", "", Duration.ZERO);
    }
  }
}
