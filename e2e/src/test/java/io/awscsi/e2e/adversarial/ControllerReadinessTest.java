package io.awscsi.e2e.adversarial;

import static io.awscsi.e2e.adversarial.ControllerSupport.GIB;
import static io.awscsi.e2e.adversarial.ControllerSupport.createVolume;
import static io.awscsi.e2e.adversarial.ControllerSupport.efsVolume;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CapacityRange;
import csi.v1.ControllerGetVolumeRequest;
import csi.v1.ProbeRequest;
import io.awscsi.e2e.adversarial.ControllerSupport.Http;
import io.awscsi.e2e.adversarial.DriverFixture.Driver;
import io.awscsi.e2e.adversarial.DriverFixture.Mode;
import io.awscsi.realism.AwsError;
import io.awscsi.realism.Fault;
import io.awscsi.realism.process.FreePorts;
import io.grpc.Status;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 12 item 11, over the controller sockets and HTTP endpoints: liveness (the process serves: Probe,
 * {@code /livez}, {@code /healthz}) stays up through an EC2 or EFS outage, so a liveness probe never restarts a
 * controller cut off from AWS; readiness ({@code /readyz}) follows whether AWS answered the driver's own recent calls,
 * and asking for it makes no AWS call. The old code said ready (Probe and {@code /healthz}) throughout an outage.
 */
@Tag("integration")
class ControllerReadinessTest {

  @RegisterExtension
  static final DriverFixture FX = DriverFixture.create();

  /** The readiness endpoints and Probe, many times: none of them may call AWS. */
  private static void assertLiveAndNoCall(DriverProcess driver, int port) {
    long calls = FX.aws().stats().totalCalls();
    for (int i = 0; i < 5; i++) {
      assertThat(CsiAssert.ok(() -> driver.identity().probe(ProbeRequest.getDefaultInstance())).getReady()
          .getValue()).as("Probe is liveness").isTrue();
      assertThat(ControllerSupport.get(port, "/livez").code()).isEqualTo(200);
      assertThat(ControllerSupport.get(port, "/healthz").code()).isEqualTo(200);
      ControllerSupport.get(port, "/readyz");
    }
    assertThat(FX.aws().stats().totalCalls()).as("probes and readiness make no AWS call").isEqualTo(calls);
  }

  /** EC2 DescribeVolumes failing 503: /readyz 503 naming EC2 and the call, /livez 200; recovered: /readyz 200. */
  @Test
  void ebsReadinessFollowsEc2WhileLivenessStaysUp() {
    int port = FreePorts.pick();
    DriverProcess ebs = FX.start(Driver.EBS, Mode.CONTROLLER, "--http-endpoint", "127.0.0.1:" + port);
    String id = CsiAssert.ok(() -> ebs.controller().createVolume(createVolume("pvc-ready")
        .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(GIB)).build())).getVolume().getVolumeId();
    assertThat(ControllerSupport.get(port, "/readyz")).isEqualTo(new Http(200, "ok\n"));

    try (var outage = FX.aws().proxy().injectFault(Fault.ec2("DescribeVolumes", AwsError.of(503, "Unavailable",
        "EC2 is down")))) {
      var t = ControllerSupport.timed(ebs, Duration.ofSeconds(5), c -> c.controllerGetVolume(
          ControllerGetVolumeRequest.newBuilder().setVolumeId(id).build()));
      assertThat(t.status().getCode()).isIn(Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED);

      Http ready = ControllerSupport.get(port, "/readyz");
      assertThat(ready.code()).isEqualTo(503);
      assertThat(ready.body()).contains("not ready", "EC2", "DescribeVolumes");
      assertLiveAndNoCall(ebs, port);
    }
    assertThat(ControllerSupport.get(port, "/readyz").code()).as("no call since: still not ready").isEqualTo(503);
    CsiAssert.ok(() -> ebs.controller().controllerGetVolume(ControllerGetVolumeRequest.newBuilder().setVolumeId(id)
        .build()));
    assertThat(ControllerSupport.get(port, "/readyz")).isEqualTo(new Http(200, "ok\n"));
  }

  /** The EFS API frozen: /readyz 503 naming EFS, /livez and Probe up; recovered: /readyz 200. */
  @Test
  void efsReadinessFollowsTheEfsApiWhileLivenessStaysUp() {
    int port = FreePorts.pick();
    DriverProcess efs = FX.start(Driver.EFS, Mode.CONTROLLER, "--http-endpoint", "127.0.0.1:" + port);
    Map<String, String> parameters = Map.of("provisioningMode", "efs-ap", "fileSystemId", FX.aws().fileSystemId(),
        "directoryPerms", "700");
    assertThat(ControllerSupport.get(port, "/readyz").code()).isEqualTo(200);

    try (var frozen = FX.aws().proxy().freeze("efs", "*")) {
      var t = ControllerSupport.timed(efs, Duration.ofSeconds(5), c -> c.createVolume(efsVolume("pvc-efs-ready")
          .putAllParameters(parameters).build()));
      assertThat(t.status().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);

      Http ready = ControllerSupport.get(port, "/readyz");
      assertThat(ready.code()).isEqualTo(503);
      assertThat(ready.body()).contains("EFS", "DescribeAccessPoints");
      assertLiveAndNoCall(efs, port);
    }
    CsiAssert.ok(() -> efs.controller().createVolume(efsVolume("pvc-efs-ready").putAllParameters(parameters)
        .build()));
    assertThat(ControllerSupport.get(port, "/readyz").code()).isEqualTo(200);
  }
}
