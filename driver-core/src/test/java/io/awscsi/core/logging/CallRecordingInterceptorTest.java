package io.awscsi.core.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import csi.v1.ControllerPublishVolumeRequest;
import csi.v1.CreateVolumeRequest;
import csi.v1.DeleteVolumeRequest;
import csi.v1.NodePublishVolumeRequest;
import csi.v1.NodeStageVolumeRequest;
import csi.v1.ProbeRequest;
import csi.v1.ValidateVolumeCapabilitiesRequest;
import csi.v1.VolumeCapability;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.testing.FakeControllerProvider;
import io.awscsi.core.testing.FakeDriver;
import io.awscsi.core.testing.FakeNodeProvider;
import io.awscsi.core.testing.FakeVolumeAttacher;
import io.awscsi.core.testing.FakeVolumeProvisioner;
import io.awscsi.core.testing.FakeVolumeStager;
import io.awscsi.core.testing.InProcessCsiServer;
import io.awscsi.core.testing.LogCapture;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.List;
import org.apache.logging.log4j.Level;
import io.awscsi.core.logging.backend.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Real calls through the services and the interceptor, with what the log backend writes captured. */
class CallRecordingInterceptorTest {

  private static final String CALLS = "csi.calls";
  private static final String PASSWORD = "hunter2";
  private static final String ROLE_ARN = "arn:aws:iam::123456789012:role/ebs-cross-account";
  private static final String SECRET_NAME = "ebs-provisioner-credentials";
  private static final String TOKEN = "FQoGZXIvYXdzEJr-session";

  private final FakeVolumeProvisioner provisioner = new FakeVolumeProvisioner();
  private final FakeVolumeStager stager = new FakeVolumeStager();
  private InProcessCsiServer server;

  private static final VolumeCapability MOUNT = VolumeCapability.newBuilder()
      .setAccessMode(VolumeCapability.AccessMode.newBuilder()
          .setMode(VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER))
      .setMount(VolumeCapability.MountVolume.newBuilder().setFsType("ext4"))
      .build();

  @BeforeEach
  void start() {
    server = InProcessCsiServer.start(FakeDriver.allMode(
        new FakeControllerProvider(provisioner).withAttacher(new FakeVolumeAttacher(false)),
        new FakeNodeProvider().withStager(stager)));
  }

  @AfterEach
  void stop() throws InterruptedException {
    server.close();
  }

  private void callWithSecretsEverywhere() {
    server.controller().createVolume(CreateVolumeRequest.newBuilder()
        .setName("pvc-1")
        .addVolumeCapabilities(MOUNT)
        .putSecrets("password", PASSWORD)
        .putParameters("type", "gp3")
        .putParameters("csi.storage.k8s.io/provisioner-secret-name", SECRET_NAME)
        .putParameters("awsRoleArn", ROLE_ARN)
        .build());
    server.controller().controllerPublishVolume(ControllerPublishVolumeRequest.newBuilder()
        .setVolumeId("vol-pvc-1").setNodeId("i-0abc").setVolumeCapability(MOUNT)
        .putSecrets("password", PASSWORD).build());
    server.node().nodeStageVolume(NodeStageVolumeRequest.newBuilder()
        .setVolumeId("vol-pvc-1")
        .setStagingTargetPath("/var/lib/kubelet/plugins/fake/globalmount")
        .setVolumeCapability(MOUNT)
        .putPublishContext("devicePath", "/dev/xvdba")
        .putSecrets("password", PASSWORD)
        .putVolumeContext("sessionToken", TOKEN)
        .build());
    server.node().nodePublishVolume(NodePublishVolumeRequest.newBuilder()
        .setVolumeId("vol-pvc-1")
        .setStagingTargetPath("/var/lib/kubelet/plugins/fake/globalmount")
        .setTargetPath("/var/lib/kubelet/pods/p1/volumes/kubernetes.io~csi/pv1/mount")
        .setVolumeCapability(MOUNT)
        .putSecrets("password", PASSWORD)
        .putVolumeContext("awsRoleArn", ROLE_ARN)
        .build());
  }

  @Test
  void noSecretReachesTheLogEvenAtDebug() {
    String log;
    try (LogCapture capture = LogCapture.start(Level.DEBUG)) {
      callWithSecretsEverywhere();
      log = capture.text();
    }

    assertThat(log).doesNotContain(PASSWORD, ROLE_ARN, SECRET_NAME, TOKEN);
    assertThat(log).as("bodies were logged, redacted").contains("CreateVolume: request", RequestRedactor.MASK, "gp3");
    assertThat(stager.staged().getFirst().secrets()).as("the provider still gets the secret")
        .containsEntry("password", PASSWORD);
  }

  @Test
  void oneLinePerCallWithMethodIdsDurationAndOutcome() {
    List<String> lines;
    try (LogCapture capture = LogCapture.start(Level.INFO)) {
      callWithSecretsEverywhere();
      lines = capture.messages(CALLS);
    }

    assertThat(lines).hasSize(4);
    assertThat(lines.get(0)).matches("CreateVolume: name=pvc-1 duration=\\d+ms outcome=OK");
    assertThat(lines.get(1))
        .matches("ControllerPublishVolume: volume=vol-pvc-1 node=i-0abc duration=\\d+ms outcome=OK");
    assertThat(lines.get(2)).matches("NodeStageVolume: volume=vol-pvc-1 duration=\\d+ms outcome=OK");
    assertThat(lines.get(3)).matches("NodePublishVolume: volume=vol-pvc-1 duration=\\d+ms outcome=OK");
  }

  @Test
  void callFieldsAreInTheThreadContextForJsonLogs() {
    List<LogRecord> events;
    try (LogCapture capture = LogCapture.start(Level.INFO)) {
      server.controller().deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId("vol-9").build());
      events = capture.events().stream().filter(e -> e.loggerName().equals(CALLS)).toList();
    }

    assertThat(events).singleElement().satisfies(e -> {
      assertThat(e.level()).isEqualTo(Level.INFO);
      assertThat(e.context().get("rpc")).isEqualTo("DeleteVolume");
      assertThat(e.context().get("volumeId")).isEqualTo("vol-9");
      assertThat(e.context().get("grpcCode")).isEqualTo("OK");
      assertThat(e.context().get("durationMs")).matches("\\d+");
    });
  }

  @Test
  void anExpectedErrorIsAWarningWithItsMessageAndNoStackTrace() {
    provisioner.failWith(() -> DriverException.notFound("volume vol-9 does not exist"));
    List<LogRecord> events;
    try (LogCapture capture = LogCapture.start(Level.INFO)) {
      assertThatThrownBy(() -> server.controller().validateVolumeCapabilities(
          ValidateVolumeCapabilitiesRequest.newBuilder().setVolumeId("vol-9").addVolumeCapabilities(MOUNT)
              .build()))
          .isInstanceOf(StatusRuntimeException.class);
      events = capture.events().stream().filter(e -> e.loggerName().equals(CALLS)).toList();
    }

    assertThat(events).singleElement().satisfies(e -> {
      assertThat(e.level()).isEqualTo(Level.WARN);
      assertThat(e.message()).matches(
          "ValidateVolumeCapabilities: volume=vol-9 duration=\\d+ms outcome=NOT_FOUND"
              + " error=\"volume vol-9 does not exist\"");
      assertThat(e.thrown()).isNull();
    });
  }

  @Test
  void anUnexpectedExceptionIsLoggedWithItsStackTraceWhileTheClientSeesOnlyTheStatus() {
    provisioner.failWith(() -> new IllegalStateException("fake disk table is corrupt"));
    List<LogRecord> events;
    try (LogCapture capture = LogCapture.start(Level.INFO)) {
      assertThatThrownBy(() -> server.controller().deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId("vol-9")
          .build()))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
            assertThat(e.getStatus().getDescription())
                .isEqualTo("unexpected IllegalStateException: fake disk table is corrupt");
            assertThat(e.getTrailers().toString()).doesNotContain("FakeVolumeProvisioner");
          });
      events = capture.events().stream().filter(e -> e.loggerName().equals(CALLS)).toList();
    }

    assertThat(events).singleElement().satisfies(e -> {
      assertThat(e.level()).isEqualTo(Level.ERROR);
      assertThat(e.message()).contains("DeleteVolume: volume=vol-9", "outcome=INTERNAL");
      assertThat(e.thrown()).as("the cause is in the server log")
          .isInstanceOf(IllegalStateException.class).hasMessage("fake disk table is corrupt");
    });
  }

  @Test
  void aSecretValueQuotedByAFailureReachesNeitherTheAnswerNorTheLog() {
    // As STS does: an AssumeRole error quotes the role ARN the provisioner secret gave.
    String role = "arn:aws:iam::210987654321:role/quoted-by-sts";
    provisioner.failWith(() -> DriverException.permissionDenied("User: arn:aws:sts::1:assumed-role/x is not "
        + "authorized to perform: sts:AssumeRole on resource: " + role));
    String log;
    try (LogCapture capture = LogCapture.start(Level.DEBUG)) {
      assertThatThrownBy(() -> server.controller().deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId("vol-9")
          .putSecrets("awsRoleArn", role).build()))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
            assertThat(e.getStatus().getDescription()).doesNotContain(role).contains("sts:AssumeRole",
                SecretValues.MASK);
          });
      log = capture.text();
    }

    assertThat(log).contains("outcome=PERMISSION_DENIED").doesNotContain(role);
  }

  @Test
  void aForgedLineInAFailureStaysOnTheCallsLine() {
    provisioner.failWith(() -> DriverException.invalidArgument("name",
        "bad name \"x\n2026-01-01T00:00:00.000Z INFO  calls - CreateVolume: name=forged duration=1ms outcome=OK"
            + "\u001b[2J\""));
    String text;
    try (LogCapture capture = LogCapture.start(Level.INFO)) {
      assertThatThrownBy(() -> server.controller().deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId("vol-9")
          .build())).isInstanceOf(StatusRuntimeException.class);
      text = capture.text();
    }

    assertThat(text.lines().filter(l -> l.contains("name=forged")))
        .allMatch(l -> l.contains("DeleteVolume: volume=vol-9"), "the forged call is part of the real line");
    assertThat(text).doesNotContain("\u001b").contains("\\x1b[2J");
  }

  @Test
  void routineCallsStayOutOfTheInfoLog() {
    try (LogCapture capture = LogCapture.start(Level.INFO)) {
      server.identity().probe(ProbeRequest.getDefaultInstance());
      assertThat(capture.messages(CALLS)).isEmpty();
    }
    try (LogCapture capture = LogCapture.start(Level.DEBUG)) {
      server.identity().probe(ProbeRequest.getDefaultInstance());
      assertThat(capture.messages(CALLS)).anyMatch(m -> m.matches("Probe: duration=\\d+ms outcome=OK.*"));
    }
  }

  @Test
  void countsAndTimesEachCallByMethodAndCode() {
    callWithSecretsEverywhere();
    assertThatThrownBy(() -> server.controller().deleteVolume(DeleteVolumeRequest.getDefaultInstance()))
        .isInstanceOf(StatusRuntimeException.class);

    String scrape = server.metrics().scrape();

    assertThat(scrape)
        .contains("csi_operations_total{method=\"CreateVolume\",grpc_code=\"OK\"} 1\n")
        .contains("csi_operations_total{method=\"DeleteVolume\",grpc_code=\"INVALID_ARGUMENT\"} 1\n")
        .contains("csi_operation_duration_seconds_count{method=\"NodeStageVolume\",grpc_code=\"OK\"} 1\n")
        .contains("csi_operation_duration_seconds_bucket{method=\"NodeStageVolume\",grpc_code=\"OK\",le=\"+Inf\"} 1\n");
  }
}
