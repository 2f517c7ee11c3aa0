package io.awscsi.e2e.adversarial;

import csi.v1.ControllerGrpc;
import csi.v1.CreateVolumeRequest;
import csi.v1.VolumeCapability;
import csi.v1.VolumeCapability.AccessMode.Mode;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Filter;

/** What the controller-side adversarial tests share: timed calls, the HTTP endpoint, what EC2 holds. */
final class ControllerSupport {

  static final VolumeCapability MOUNT = CsiRequests.mount("ext4", Mode.SINGLE_NODE_WRITER);
  /** EFS volumes take no fsType. */
  static final VolumeCapability EFS_MOUNT = CsiRequests.mount("", Mode.SINGLE_NODE_WRITER);
  static final long GIB = 1L << 30;

  private ControllerSupport() {}

  /** A CreateVolume request for an EFS volume {@code name}: one SINGLE_NODE_WRITER mount capability. */
  static CreateVolumeRequest.Builder efsVolume(String name) {
    return CreateVolumeRequest.newBuilder().setName(name).addVolumeCapabilities(EFS_MOUNT);
  }

  /** A CreateVolume request for {@code name} with one ext4 SINGLE_NODE_WRITER capability. */
  static CreateVolumeRequest.Builder createVolume(String name) {
    return CreateVolumeRequest.newBuilder().setName(name).addVolumeCapabilities(MOUNT);
  }

  /** The outcome of a call made with a deadline of its own, and how long it took. */
  record Timed(Status status, Duration took) {}

  /** Calls with a Controller stub whose deadline is {@code deadline}; the status is OK when it answered. */
  static Timed timed(DriverProcess driver, Duration deadline,
      Function<ControllerGrpc.ControllerBlockingStub, ?> call) {
    ControllerGrpc.ControllerBlockingStub stub = ControllerGrpc.newBlockingStub(driver.channel())
        .withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
    long start = System.nanoTime();
    Status status;
    try {
      call.apply(stub);
      status = Status.OK;
    } catch (StatusRuntimeException e) {
      status = e.getStatus();
    }
    return new Timed(status, Duration.ofNanos(System.nanoTime() - start));
  }

  /** GET of the driver's {@code --http-endpoint}: status code and body. */
  record Http(int code, String body) {}

  static Http get(int port, String path) {
    try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
      HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
          .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
      return new Http(r.statusCode(), r.body());
    } catch (IOException e) {
      throw new AssertionError("GET " + path + " on port " + port + " failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** EC2 volumes carrying exactly {@code CSIVolumeName=name}, read directly from emulated EC2. */
  static List<String> volumesNamed(DriverFixture fx, String name) {
    try (Ec2Client ec2 = io.awscsi.local.LocalAws.ec2(fx.aws().endpoint())) {
      return ec2.describeVolumes(r -> r.filters(Filter.builder().name("tag:CSIVolumeName").values(name).build()))
          .volumes().stream().filter(v -> v.tags().stream().anyMatch(t -> t.key().equals("CSIVolumeName")
              && t.value().equals(name))).map(v -> v.volumeId()).toList();
    }
  }

  /** Calls of each EC2 or EFS action so far, to prove that a refused request made none. */
  static Map<String, Long> calls(DriverFixture fx, String service, String... actions) {
    var stats = fx.aws().stats();
    var out = new java.util.LinkedHashMap<String, Long>();
    for (String action : actions) {
      out.put(action, stats.calls(service, action));
    }
    return out;
  }
}
