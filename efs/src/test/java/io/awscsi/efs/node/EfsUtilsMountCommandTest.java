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
  private Path mountInfo;
  private RecordingCommandRunner runner;
  private EfsVolumePublisher publisher;

  @BeforeEach
  void setUp() throws IOException {
    mountInfo = dir.resolve("mountinfo");
    Files.writeString(mountInfo, "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n");
    target = dir.toRealPath().resolve("pods/uid/volumes/kubernetes.io~csi/pv/mount");
    runner = new RecordingCommandRunner();
    LinuxMounter mounter = new LinuxMounter(runner, mountInfo, Duration.ofSeconds(5));
    publisher = (EfsVolumePublisher) EfsNodeProvider.create(options(0), new NodeInfo("i-0123", 0,
        Map.of("topology.kubernetes.io/zone", "us-east-1b")), mounter, runner, new EfsUtilsMountBackend(mounter))
        .publisher();
  }

  static EfsNodeOptions options(int maxInflight) {
    return new EfsNodeOptions(false, Duration.ofMinutes(240), 5, false, Duration.ofSeconds(30), maxInflight,
        io.awscsi.efs.mount.EfsMountBackendKind.EFS_UTILS, Path.of("/unused"));
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
        Arguments.of("efs:fs-0123abcd", Map.of(), List.of("rw"), true,
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

  @Test
  void anAlreadyMountedTargetIsNotMountedAgain() throws IOException {
    Files.createDirectories(target);
    Files.writeString(mountInfo, "90 27 0:50 / " + target + " rw,relatime shared:40 - nfs4 127.0.0.1:/ rw\n",
        java.nio.file.StandardOpenOption.APPEND);

    publisher.publish(request("efs:fs-0123abcd", Map.of(), List.of(), false, AccessMode.SINGLE_NODE_WRITER));

    assertThat(mountCommands()).isEmpty();
  }

  @Test
  void aTargetMountedReadWriteIsNotPublishedReadOnly() throws IOException {
    Files.createDirectories(target);
    Files.writeString(mountInfo, "90 27 0:50 / " + target + " rw,relatime shared:40 - nfs4 127.0.0.1:/ rw\n",
        java.nio.file.StandardOpenOption.APPEND);

    assertThatThrownBy(() -> publisher.publish(request("efs:fs-0123abcd", Map.of(), List.of(), true,
        AccessMode.SINGLE_NODE_WRITER)))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.AlreadyExists.class));
  }

  @Test
  void aFailedMountRemovesTheTargetItCreatedAndSaysWhy() {
    runner.on(HostTool.MOUNT, RecordingCommandRunner.Reply.exit(32, "mount.efs: Failed to resolve fs-0123abcd"));

    assertThatThrownBy(() -> publisher.publish(request("efs:fs-0123abcd", Map.of(), List.of(), false,
        AccessMode.SINGLE_NODE_WRITER)))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.Internal.class))
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
    Thread first = Thread.ofVirtual().start(() -> limited.publish(request("efs:fs-0123abcd", Map.of(), List.of(),
        false, AccessMode.SINGLE_NODE_WRITER)));
    inMount.await();
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

  @Test
  void unpublishUnmountsAndRemovesTheTarget() throws IOException {
    Files.createDirectories(target);
    mountedInTable(target);
    runner.on(c -> c.tool() == HostTool.UMOUNT, c -> {
      try {
        unmountedInTable();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      return RecordingCommandRunner.Reply.ok("");
    });

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
    EfsNodeOptions forced = new EfsNodeOptions(false, Duration.ofMinutes(240), 5, true, Duration.ofMillis(300), 0,
        io.awscsi.efs.mount.EfsMountBackendKind.EFS_UTILS, Path.of("/unused"));
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
