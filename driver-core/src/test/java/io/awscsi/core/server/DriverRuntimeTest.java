package io.awscsi.core.server;

import io.awscsi.core.host.KubeletDirectory;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.GetPluginInfoRequest;
import csi.v1.IdentityGrpc;
import csi.v1.NodeGetInfoRequest;
import csi.v1.NodeGrpc;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.DriverProvider;
import io.awscsi.core.testing.FakeControllerProvider;
import io.awscsi.core.testing.FakeDriver;
import io.awscsi.core.testing.FakeNodeProvider;
import io.awscsi.core.testing.UnixSocketChannels;
import io.grpc.ManagedChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole serving stack of one driver: socket, services, interceptor, HTTP endpoint, and a clean stop. */
class DriverRuntimeTest {

  @TempDir
  Path dir;

  @Test
  void servesCsiAndHttpThenStopsCleanly() throws Exception {
    AtomicBoolean resourcesClosed = new AtomicBoolean();
    DriverProvider fake = FakeDriver.allMode(new FakeControllerProvider(), new FakeNodeProvider());
    DriverProvider driver = new DriverProvider(fake.driverName(), fake.version(), fake.controller(), fake.node(),
        true, () -> resourcesClosed.set(true));
    Path socket = dir.resolve("csi.sock");
    MetricsRegistry metrics = new MetricsRegistry();

    DriverRuntime runtime = DriverRuntime.start(driver, new KubeletDirectory(Path.of("/")),
        new CsiEndpoint(socket),
        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), metrics, Duration.ofSeconds(5));
    ManagedChannel channel = UnixSocketChannels.open(socket);
    try (HttpClient http = HttpClient.newHttpClient()) {
      String name = IdentityGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS)
          .getPluginInfo(GetPluginInfoRequest.getDefaultInstance()).getName();
      String nodeId = NodeGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS)
          .nodeGetInfo(NodeGetInfoRequest.getDefaultInstance()).getNodeId();
      HttpResponse<String> scrape = http.send(HttpRequest.newBuilder(
              URI.create("http://127.0.0.1:" + runtime.httpAddress().getPort() + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString());

      assertThat(name).isEqualTo(FakeDriver.NAME);
      assertThat(nodeId).isEqualTo(FakeNodeProvider.NODE.nodeId());
      assertThat(scrape.body()).contains("csi_operations_total{method=\"NodeGetInfo\",grpc_code=\"OK\"} 1");
    } finally {
      UnixSocketChannels.close(channel);
      runtime.close();
    }

    assertThat(Files.exists(socket, LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(resourcesClosed).isTrue();
  }

  @Test
  void healthzFailsOnceTheCsiSocketFileIsGoneAsTheLivenessProbeSidecarWouldNotice() throws Exception {
    Path socket = dir.resolve("csi.sock");
    try (DriverRuntime runtime = DriverRuntime.start(FakeDriver.nodeMode(new FakeNodeProvider()),
        new KubeletDirectory(Path.of("/")),
        new CsiEndpoint(socket), new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), new MetricsRegistry(),
        Duration.ofSeconds(1)); HttpClient http = HttpClient.newHttpClient()) {
      HttpRequest healthz = HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + runtime.httpAddress().getPort() + "/healthz")).build();
      int before = http.send(healthz, HttpResponse.BodyHandlers.ofString()).statusCode();

      Files.delete(socket);
      HttpResponse<String> after = http.send(healthz, HttpResponse.BodyHandlers.ofString());

      assertThat(before).isEqualTo(200);
      assertThat(after.statusCode()).isEqualTo(503);
      assertThat(after.body()).contains("the CSI socket " + socket + " was removed or replaced");
    }
  }

  @Test
  void withoutAnHttpAddressOnlyTheSocketIsServed() throws Exception {
    DriverProvider driver = FakeDriver.nodeMode(new FakeNodeProvider());
    try (DriverRuntime runtime = DriverRuntime.start(driver, new KubeletDirectory(Path.of("/")),
        new CsiEndpoint(dir.resolve("csi.sock")), null,
        new MetricsRegistry(), Duration.ofSeconds(1))) {
      assertThat(runtime.httpAddress()).isNull();
      assertThat(runtime.endpoint().socketPath()).isEqualTo(dir.resolve("csi.sock"));
    }
    assertThat(Files.exists(dir.resolve("csi.sock"), LinkOption.NOFOLLOW_LINKS)).isFalse();
  }
}
