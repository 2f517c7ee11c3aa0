package io.awscsi.efs.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.Command;
import io.awscsi.core.host.HostTool;
import io.awscsi.core.host.LinuxMounter;
import io.awscsi.core.host.ProcessCommandRunner;
import io.awscsi.core.host.RecordingCommandRunner;
import io.awscsi.core.provider.AccessMode;
import io.awscsi.core.provider.AccessType;
import io.awscsi.core.provider.NodeInfo;
import io.awscsi.core.provider.NodePublishRequest;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.core.provider.VolumePublisher;
import io.awscsi.efs.mount.EfsUtilsMountBackend;
import io.awscsi.efs.mount.EfsMountRequest;
import io.grpc.Context;
import io.grpc.Deadline;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** NodePublishVolume's mount is bounded by the caller's gRPC deadline, and a hung mount is stopped at it. */
class MountDeadlineTest {

  @TempDir Path dir;
  private Path mountInfo;
  private Path target;
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

  @BeforeEach
  void setUp() throws IOException {
    mountInfo = Files.writeString(dir.resolve("mountinfo"), "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n");
    target = dir.toRealPath().resolve("pods/uid/volumes/kubernetes.io~csi/pv/mount");
  }

  @AfterEach
  void tearDown() {
    timer.shutdownNow();
  }

  private VolumePublisher publisher(io.awscsi.core.host.CommandRunner runner) {
    LinuxMounter mounter = new LinuxMounter(runner, mountInfo, Duration.ofSeconds(5));
    return EfsNodeProvider.create(new EfsNodeOptions(false, Duration.ofMinutes(240), 5, false, Duration.ofSeconds(30),
        0), new NodeInfo("i-0123", 0, Map.of()), mounter, runner,
        new EfsUtilsMountBackend(mounter)).publisher();
  }

  private NodePublishRequest request() {
    return new NodePublishRequest("efs:fs-0123abcd::fsap-0123abcd", Map.of(), null, target,
        new VolumeCapability(AccessMode.SINGLE_NODE_WRITER, new AccessType.Mount("", List.of(), "")), false,
        Map.of(), Map.of());
  }

  /** Runs the call as a gRPC handler would, with the caller's deadline in the context. */
  private <T> T withDeadline(Duration deadline, Callable<T> call) throws Exception {
    return Context.current().withDeadline(Deadline.after(deadline.toMillis(), TimeUnit.MILLISECONDS), timer)
        .call(call);
  }

  @Test
  void theMountGetsWhatIsLeftOfTheCallersDeadline() throws Exception {
    RecordingCommandRunner runner = new RecordingCommandRunner();
    VolumePublisher publisher = publisher(runner);

    withDeadline(Duration.ofSeconds(8), () -> {
      publisher.publish(request());
      return null;
    });

    Command mount = runner.commands().stream().filter(c -> c.tool() == HostTool.MOUNT).findFirst().orElseThrow();
    assertThat(mount.timeout()).isLessThan(Duration.ofSeconds(8)).isGreaterThan(Duration.ofSeconds(6));
  }

  @Test
  void withoutADeadlineTheMountHasTheKubeletsBound() {
    RecordingCommandRunner runner = new RecordingCommandRunner();

    publisher(runner).publish(request());

    assertThat(runner.commands().stream().filter(c -> c.tool() == HostTool.MOUNT).findFirst().orElseThrow()
        .timeout()).isEqualTo(EfsMountRequest.FALLBACK_TIMEOUT);
  }

  @Test
  void aMountThatHangsIsStoppedAtTheDeadlineAndAnsweredDeadlineExceeded() throws Exception {
    // A mount that never returns, as mount.nfs does when no mount target answers; it records its pid first.
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path pidFile = dir.resolve("mount.pid");
    Path mount = bin.resolve("mount");
    Files.writeString(mount, "#!/bin/sh\necho $$ > " + pidFile + "\nexec sleep 300\n");
    Files.setPosixFilePermissions(mount, PosixFilePermissions.fromString("rwxr-xr-x"));
    VolumePublisher publisher = publisher(new ProcessCommandRunner(List.of(bin, Path.of("/usr/bin"),
        Path.of("/bin"))));

    long started = System.nanoTime();
    assertThatThrownBy(() -> withDeadline(Duration.ofMillis(1500), () -> {
      publisher.publish(request());
      return null;
    })).isInstanceOfSatisfying(DriverException.class,
        e -> assertThat(e.error()).isInstanceOf(DriverError.DeadlineExceeded.class))
        .hasMessageContaining("efs:fs-0123abcd::fsap-0123abcd").hasMessageContaining("did not finish within");
    Duration took = Duration.ofNanos(System.nanoTime() - started);

    assertThat(took).isLessThan(Duration.ofMillis(1500 + 3000));
    long pid = Long.parseLong(Files.readString(pidFile).strip());
    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("the hung mount killed")
        .isFalse();
    assertThat(target).doesNotExist();
  }
}
