package io.awscsi.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.ControllerGrpc;
import csi.v1.CreateVolumeRequest;
import csi.v1.CreateVolumeResponse;
import csi.v1.Volume;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.registration.KubeletRegistration;
import io.awscsi.core.registration.RegistrationSettings;
import io.awscsi.core.registration.RegistrationState;
import io.awscsi.core.server.CsiEndpoint;
import io.awscsi.core.server.CsiServer;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code client} subcommand against a real server on a Unix socket: JSON in, the call, JSON out. */
class CsiClientTest {

  @TempDir
  Path dir;

  private CsiServer server;
  private String endpoint;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  /** Echoes the request back in the volume, so the test sees what reached the server. */
  private static final class EchoController extends ControllerGrpc.ControllerImplBase {
    @Override
    public void createVolume(CreateVolumeRequest request, StreamObserver<CreateVolumeResponse> response) {
      if (request.getName().equals("fail")) {
        response.onError(Status.ALREADY_EXISTS.withDescription("volume fail exists with another size")
            .asRuntimeException());
        return;
      }
      response.onNext(CreateVolumeResponse.newBuilder().setVolume(Volume.newBuilder()
          .setVolumeId("vol-" + request.getName())
          .setCapacityBytes(request.getCapacityRange().getRequiredBytes())
          .putAllVolumeContext(request.getParametersMap())
          .putVolumeContext("fsType", request.getVolumeCapabilities(0).getMount().getFsType())
          .putVolumeContext("mode", request.getVolumeCapabilities(0).getAccessMode().getMode().name()))
          .build());
      response.onCompleted();
    }
  }

  @BeforeEach
  void serve() throws Exception {
    Path socket = dir.resolve("csi.sock");
    server = CsiServer.start(new CsiEndpoint(socket), List.of(new EchoController()), List.of());
    endpoint = "unix:" + socket;
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private int client(String rpc, String json) {
    return CsiClient.run(endpoint, rpc, json, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void callsTheKubeletRegistrationOnItsSocketAsTheKubeletWould() throws Exception {
    Path registry = dir.resolve("registry");
    try (KubeletRegistration registration = KubeletRegistration.start(
        RegistrationSettings.of("ebs.csi.aws.com", "/var/lib/kubelet/plugins/ebs.csi.aws.com/csi.sock", registry),
        server::serveAlso, new MetricsRegistry())) {
      endpoint = "unix://" + registration.socketPath();

      int info = client("GetInfo", "{}");
      String printed = out.toString();
      int notify = client("NotifyRegistrationStatus", "{\"pluginRegistered\":true}");

      assertThat(info).as(err.toString()).isZero();
      assertThat(printed).contains("\"type\": \"CSIPlugin\"", "\"name\": \"ebs.csi.aws.com\"",
          "\"endpoint\": \"/var/lib/kubelet/plugins/ebs.csi.aws.com/csi.sock\"", "\"supportedVersions\": [");
      assertThat(notify).as(err.toString()).isZero();
      assertThat(registration.state()).isInstanceOf(RegistrationState.Registered.class);
    }
  }

  @Test
  void sendsTheJsonRequestAndPrintsTheJsonResponse() {
    int code = client("CreateVolume", """
        {"name":"pvc-1","capacityRange":{"requiredBytes":"1073741824"},"parameters":{"type":"gp3"},
         "volumeCapabilities":[{"mount":{"fsType":"xfs"},"accessMode":{"mode":"SINGLE_NODE_WRITER"}}]}""");

    assertThat(code).as(err.toString()).isZero();
    assertThat(out.toString()).contains("\"volumeId\": \"vol-pvc-1\"", "\"capacityBytes\": \"1073741824\"",
        "\"type\": \"gp3\"", "\"fsType\": \"xfs\"", "\"mode\": \"SINGLE_NODE_WRITER\"");
  }

  @Test
  void aRequestThatDoesNotFitItsTypeIsRejectedBeforeAnyCallWithThePath() {
    int code = client("createvolume", "{\"name\":\"x\",\"volumeCapabilities\":[{\"accessMode\":{\"mode\":\"RWX\"}}]}");

    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains("request JSON does not match CreateVolumeRequest",
        "$.volumeCapabilities[0].accessMode.mode");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void aFailedCallPrintsTheGrpcCodeAndMessage() {
    int code = client("CreateVolume", "{\"name\":\"fail\"}");

    assertThat(code).isEqualTo(1);
    assertThat(err.toString()).contains("CreateVolume failed: ALREADY_EXISTS: volume fail exists with another size");
  }

  @Test
  void anUnknownRpcListsTheKnownOnes() {
    assertThat(client("MakeVolume", "{}")).isEqualTo(2);
    assertThat(err.toString()).contains("unknown RPC MakeVolume", "CreateVolume", "NodeGetInfo", "Probe");
  }
}
