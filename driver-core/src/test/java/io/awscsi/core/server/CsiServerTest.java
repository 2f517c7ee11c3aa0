package io.awscsi.core.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.util.concurrent.ListenableFuture;
import csi.v1.ControllerGrpc;
import csi.v1.CreateVolumeRequest;
import csi.v1.CreateVolumeResponse;
import csi.v1.GetPluginInfoRequest;
import csi.v1.IdentityGrpc;
import csi.v1.VolumeCapability;
import io.awscsi.core.csi.ControllerService;
import io.awscsi.core.csi.IdentityService;
import io.awscsi.core.inflight.InFlightOperations;
import io.awscsi.core.logging.CallRecordingInterceptor;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.DriverProvider;
import io.awscsi.core.testing.CallGate;
import io.awscsi.core.testing.FakeControllerProvider;
import io.awscsi.core.testing.FakeDriver;
import io.awscsi.core.testing.FakeVolumeProvisioner;
import io.awscsi.core.testing.UnixSocketChannels;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server on a real Unix socket: socket-file handling at start, graceful shutdown at stop. */
class CsiServerTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir
  Path dir;

  private final FakeVolumeProvisioner provisioner = new FakeVolumeProvisioner();
  private final DriverProvider driver = FakeDriver.controllerMode(new FakeControllerProvider(provisioner));
  private CsiServer server;
  private ManagedChannel channel;

  @AfterEach
  void stop() throws InterruptedException {
    if (channel != null) {
      UnixSocketChannels.close(channel);
    }
    if (server != null) {
      server.shutdown(Duration.ZERO);
    }
  }

  private CsiServer start(Path socket) throws IOException {
    return CsiServer.start(new CsiEndpoint(socket),
        List.of(new IdentityService(driver), new ControllerService(driver.controller().orElseThrow(),
            new InFlightOperations())),
        List.of(new CallRecordingInterceptor(new MetricsRegistry())));
  }

  private String pluginName(ManagedChannel ch) {
    return IdentityGrpc.newBlockingStub(ch).withDeadlineAfter(5, TimeUnit.SECONDS)
        .getPluginInfo(GetPluginInfoRequest.getDefaultInstance()).getName();
  }

  private static CreateVolumeRequest createVolume(String name) {
    return CreateVolumeRequest.newBuilder().setName(name)
        .addVolumeCapabilities(VolumeCapability.newBuilder()
            .setAccessMode(VolumeCapability.AccessMode.newBuilder()
                .setMode(VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER))
            .setMount(VolumeCapability.MountVolume.getDefaultInstance()))
        .build();
  }

  @Test
  void replacesAStaleSocketAndServesOnIt() throws Exception {
    Path socket = SocketFileTest.staleSocket(dir.resolve("csi.sock"));

    server = start(socket);
    channel = UnixSocketChannels.open(socket);

    assertThat(pluginName(channel)).isEqualTo(FakeDriver.NAME);
  }

  @Test
  void createsTheSocketDirectory() throws Exception {
    Path socket = dir.resolve("plugins/fake/csi.sock");

    server = start(socket);
    channel = UnixSocketChannels.open(socket);

    assertThat(pluginName(channel)).isEqualTo(FakeDriver.NAME);
  }

  @Test
  void refusesToStartWhereAnotherServerServes() throws Exception {
    Path socket = dir.resolve("csi.sock");
    server = start(socket);

    assertThatThrownBy(() -> start(socket))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("another process is serving on " + socket);

    channel = UnixSocketChannels.open(socket);
    assertThat(pluginName(channel)).as("the first server keeps serving").isEqualTo(FakeDriver.NAME);
  }

  @Test
  void refusesToStartOverARegularFile() throws IOException {
    Path file = Files.writeString(dir.resolve("csi.sock"), "data");

    assertThatThrownBy(() -> start(file))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("is not a socket (a regular file)");
    assertThat(file).hasContent("data");
  }

  @Test
  void shutdownLetsARunningCallFinishRefusesNewCallsAndRemovesTheSocket() throws Exception {
    Path socket = dir.resolve("csi.sock");
    CallGate gate = CallGate.closed();
    ListenableFuture<CreateVolumeResponse> running = startWithAHeldCall(socket, gate, "pvc-running");

    CompletableFuture<Void> shutdown = CompletableFuture.runAsync(() -> server.shutdown(Duration.ofSeconds(20)),
        r -> Thread.ofVirtual().start(r));

    Status refused = awaitRefusal(channel);
    assertThat(refused.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(running).isNotDone();
    assertThat(shutdown).as("shutdown waits for the running call").isNotDone();

    gate.open();

    assertThat(running.get(WAIT.toSeconds(), TimeUnit.SECONDS).getVolume().getVolumeId()).isEqualTo("vol-pvc-running");
    shutdown.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(Files.exists(socket, LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(gate.wasInterrupted()).isFalse();
  }

  @Test
  void shutdownCancelsCallsStillRunningAfterTheGracePeriod() throws Exception {
    Path socket = dir.resolve("csi.sock");
    CallGate gate = CallGate.closed();
    ListenableFuture<CreateVolumeResponse> stuck = startWithAHeldCall(socket, gate, "pvc-stuck");

    server.shutdown(Duration.ofMillis(200));

    assertThatThrownBy(() -> stuck.get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(StatusRuntimeException.class)
        .satisfies(e -> assertThat(((StatusRuntimeException) e).getStatus().getCode())
            .isIn(Status.Code.UNAVAILABLE, Status.Code.CANCELLED));
    assertThat(gate.awaitInterrupted(WAIT)).as("the handler thread was interrupted").isTrue();
    assertThat(Files.exists(socket, LinkOption.NOFOLLOW_LINKS)).isFalse();
  }

  /** Starts the server and a CreateVolume that the provider holds at {@code gate}. */
  private ListenableFuture<CreateVolumeResponse> startWithAHeldCall(Path socket, CallGate gate, String name)
      throws Exception {
    provisioner.holdAt(gate);
    server = start(socket);
    channel = UnixSocketChannels.open(socket);
    ListenableFuture<CreateVolumeResponse> call = ControllerGrpc.newFutureStub(channel)
        .withDeadlineAfter(30, TimeUnit.SECONDS).createVolume(createVolume(name));
    assertThat(gate.awaitEntered(WAIT)).as("the call reached the provider").isTrue();
    return call;
  }

  /** Calls GetPluginInfo until the server refuses it (it starts refusing once shutdown begins). */
  private Status awaitRefusal(ManagedChannel ch) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        pluginName(ch);
      } catch (StatusRuntimeException e) {
        return e.getStatus();
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the server still accepted calls " + WAIT + " after shutdown began");
  }
}
