package io.awscsi.efs.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.HostTool;
import io.awscsi.core.host.LinuxMounter;
import io.awscsi.core.host.RecordingCommandRunner;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.AccessMode;
import io.awscsi.core.provider.CapacityRange;
import io.awscsi.core.provider.TopologyRequirement;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.core.provider.VolumeRequest;
import io.awscsi.core.provider.VolumeSource;
import io.awscsi.efs.cloud.EfsCloudFactory;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.efs.EfsClient;

/** efs-dir needs the controller to mount EFS; when it cannot, the caller gets one actionable INTERNAL line. */
class ControllerMountFailureTest {

  @TempDir Path dir;

  @Test
  void aControllerWithoutEfsUtilsSaysWhatEfsDirNeeds() throws IOException {
    Path mountInfo = Files.writeString(dir.resolve("mountinfo"), "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n");
    RecordingCommandRunner runner = new RecordingCommandRunner()
        .on(HostTool.MOUNT, RecordingCommandRunner.Reply.exit(32, "mount: unknown filesystem type 'efs'."));
    LinuxMounter mounter = new LinuxMounter(runner, mountInfo, Duration.ofSeconds(5));
    // The only EFS API call of an efs-dir volume: is the name taken by an access-point volume? (No.)
    HttpServer efsApi = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    efsApi.createContext("/", exchange -> {
      byte[] body = "{\"AccessPoints\":[]}".getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      try (var out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    efsApi.start();
    EfsClient unused = EfsClient.builder().region(Region.US_EAST_1)
        .endpointOverride(URI.create("http://127.0.0.1:" + efsApi.getAddress().getPort()))
        .credentialsProvider(AnonymousCredentialsProvider.create()).build();
    try (EfsCloudFactory clouds = EfsCloudFactory.create(unused, c -> unused, () -> null, new MetricsRegistry());
         EfsControllerProvider controller = EfsControllerProvider.create(new EfsControllerOptions(Map.of(), false,
             dir.resolve("work"), ""), clouds, mounter)) {
      VolumeRequest request = new VolumeRequest("pvc-1", CapacityRange.UNSPECIFIED,
          List.of(VolumeCapability.mount(AccessMode.MULTI_NODE_MULTI_WRITER, "")),
          Map.of("provisioningMode", "efs-dir", "fileSystemId", "fs-0123abcd"), Map.of(), Map.of(),
          new VolumeSource.Empty(), TopologyRequirement.NONE);

      assertThatThrownBy(() -> controller.provisioner().createVolume(request))
          .isInstanceOfSatisfying(DriverException.class,
              e -> assertThat(e.error()).isInstanceOf(DriverError.Internal.class))
          .hasMessageContaining("unknown filesystem type 'efs'").hasMessageContaining("amazon-efs-utils");
      assertThat(runner.commandLines(HostTool.MOUNT)).containsExactly(
          "mount -t efs -o tls,iam fs-0123abcd:/ " + dir.resolve("work/fs-0123abcd"));
    } finally {
      unused.close();
      efsApi.stop(0);
    }
  }
}
