package io.awscsi.core.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import csi.v1.ControllerPublishVolumeRequest;
import csi.v1.CreateVolumeRequest;
import csi.v1.DeleteVolumeRequest;
import csi.v1.VolumeCapability;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.logging.backend.LineLogging;
import io.awscsi.core.logging.backend.LogLineFormat;
import io.awscsi.core.logging.backend.LogRecord;
import io.awscsi.core.testing.FakeControllerProvider;
import io.awscsi.core.testing.FakeDriver;
import io.awscsi.core.testing.FakeNodeProvider;
import io.awscsi.core.testing.FakeVolumeAttacher;
import io.awscsi.core.testing.FakeVolumeProvisioner;
import io.awscsi.core.testing.InProcessCsiServer;
import io.awscsi.core.testing.LogCapture;
import io.grpc.StatusRuntimeException;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The call lines the interceptor writes, rendered as the backend writes them (text and JSON), read back. */
class CallLogReaderTest {

  private static final VolumeCapability MOUNT = VolumeCapability.newBuilder()
      .setAccessMode(VolumeCapability.AccessMode.newBuilder()
          .setMode(VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER))
      .setMount(VolumeCapability.MountVolume.newBuilder().setFsType("ext4"))
      .build();

  private final FakeVolumeProvisioner provisioner = new FakeVolumeProvisioner();
  private InProcessCsiServer server;

  @BeforeEach
  void start() {
    server = InProcessCsiServer.start(FakeDriver.allMode(
        new FakeControllerProvider(provisioner).withAttacher(new FakeVolumeAttacher(false)),
        new FakeNodeProvider()));
  }

  @AfterEach
  void stop() throws InterruptedException {
    server.close();
  }

  /** A create, a publish, then a delete that fails with a message over two lines (as a host tool's output is). */
  private List<LogRecord> calls() {
    try (LogCapture capture = LogCapture.start(Level.INFO)) {
      server.controller().createVolume(CreateVolumeRequest.newBuilder().setName("pvc-1f2e")
          .addVolumeCapabilities(MOUNT).build());
      server.controller().controllerPublishVolume(ControllerPublishVolumeRequest.newBuilder()
          .setVolumeId("vol-0abc").setNodeId("i-0def").setVolumeCapability(MOUNT).build());
      provisioner.failWith(() -> DriverException.unavailable("EC2 said \"no\":\nVolumeInUse: vol-0abc is attached"));
      assertThatThrownBy(() -> server.controller().deleteVolume(DeleteVolumeRequest.newBuilder()
          .setVolumeId("vol-0abc").build())).isInstanceOf(StatusRuntimeException.class);
      return capture.events();
    }
  }

  private static String render(List<LogRecord> records, LogLineFormat format) {
    return records.stream().map(r -> LineLogging.render(format, r)).collect(Collectors.joining());
  }

  @Test
  void readsEveryCallBackFromTheTextLog() {
    List<LogRecord> records = calls();

    List<CallLogLine> calls = CallLogReader.read("some other line\n" + render(records, LogLineFormat.TEXT));

    assertCalls(calls);
    assertThat(calls.get(2).line()).as("the whole line as written: one line, its line break escaped")
        .contains("DeleteVolume: volume=vol-0abc", "\\nVolumeInUse").doesNotContain("\n");
  }

  @Test
  void readsEveryCallBackFromTheJsonLog() {
    List<LogRecord> records = calls();

    List<CallLogLine> calls = CallLogReader.read(render(records, LogLineFormat.JSON));

    assertCalls(calls);
    assertThat(calls.get(0).line()).startsWith("{").contains("\"log.logger\":\"csi.calls\"");
  }

  private static void assertCalls(List<CallLogLine> calls) {
    assertThat(calls).extracting(CallLogLine::method)
        .containsExactly("CreateVolume", "ControllerPublishVolume", "DeleteVolume");
    assertThat(calls.get(0)).satisfies(c -> {
      assertThat(c.name()).isEqualTo("pvc-1f2e");
      assertThat(c.volumeId()).isEmpty();
      assertThat(c.succeeded()).isTrue();
      assertThat(c.time()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
    });
    assertThat(calls.get(1)).satisfies(c -> {
      assertThat(c.volumeId()).isEqualTo("vol-0abc");
      assertThat(c.nodeId()).isEqualTo("i-0def");
      assertThat(c.concerns("i-0def")).isTrue();
      assertThat(c.outcome()).isEqualTo("OK");
    });
    assertThat(calls.get(2)).satisfies(c -> {
      assertThat(c.outcome()).isEqualTo("UNAVAILABLE");
      assertThat(c.succeeded()).isFalse();
      assertThat(c.error()).isEqualTo("EC2 said \"no\":\nVolumeInUse: vol-0abc is attached");
      assertThat(c.concerns("vol-0abc")).isTrue();
      assertThat(c.concerns("vol-other")).isFalse();
    });
  }

  @Test
  void otherLoggersAndStackTracesAreNotCalls() {
    String log = """
        2026-11-30T10:00:00.000Z INFO  EbsVolumeStager - made ext4 on /dev/xvdba in 20 ms: `mkfs.ext4 -F /dev/xvdba`
        2026-11-30T10:00:01.000Z ERROR calls - DeleteVolume: volume=vol-1 duration=3ms outcome=INTERNAL error="boom"
        java.lang.IllegalStateException: boom
        \tat io.awscsi.Fake.call(Fake.java:1)
        {"@timestamp":"2026-11-30T10:00:02.000Z","log.logger":"io.awscsi.Other","message":"Probe: duration=1ms outcome=OK"}
        2026-11-30T10:00:03.000Z WARN  calls - not a call line
        """;

    List<CallLogLine> calls = CallLogReader.read(log);

    assertThat(calls).singleElement().satisfies(c -> {
      assertThat(c.method()).isEqualTo("DeleteVolume");
      assertThat(c.error()).isEqualTo("boom");
      assertThat(c.time()).isEqualTo("2026-11-30T10:00:01.000Z");
    });
  }
}
