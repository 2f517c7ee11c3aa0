package io.awscsi.core.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class CsiEndpointTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
      "unix:///csi/csi.sock,                                   /csi/csi.sock",
      "unix:/csi/csi.sock,                                     /csi/csi.sock",
      "unix:///var/lib/csi/sockets/pluginproxy/csi.sock,       /var/lib/csi/sockets/pluginproxy/csi.sock",
      "unix:/var/lib/kubelet/plugins/ebs.csi.aws.com/csi.sock, /var/lib/kubelet/plugins/ebs.csi.aws.com/csi.sock",
      "unix:////tmp//csi.sock,                                 /tmp/csi.sock",
  })
  void acceptsAbsoluteUnixPaths(String value, String socket) {
    CsiEndpoint endpoint = CsiEndpoint.parse(value);

    assertThat(endpoint.socketPath()).isEqualTo(Path.of(socket));
    assertThat(endpoint).hasToString("unix://" + socket);
  }

  static Stream<Arguments> refused() {
    String tooLong = "/tmp/" + "a".repeat(98) + ".sock"; // 108 bytes
    String tooLongInBytes = "/tmp/" + "é".repeat(50) + ".sock"; // 60 characters, 110 bytes
    return Stream.of(
        Arguments.of("", "is required"),
        Arguments.of("   ", "is required"),
        Arguments.of(null, "is required"),
        Arguments.of("tcp://127.0.0.1:10000", "has scheme tcp; only unix sockets are served"),
        Arguments.of("/csi/csi.sock", "has scheme (none)"),
        Arguments.of("unix://tmp/csi.sock", "names a relative path; use an absolute one, e.g. unix:///tmp/csi.sock"),
        Arguments.of("unix:tmp/csi.sock", "names a relative path; use an absolute one, e.g. unix:/tmp/csi.sock"),
        Arguments.of("unix://", "names no socket path"),
        Arguments.of("unix:", "names no socket path"),
        Arguments.of("unix:///csi/", "names a directory; add a socket file name"),
        Arguments.of("unix:///csi/../csi.sock", "must be a clean path without '.' or '..'"),
        Arguments.of("unix:///csi/./csi.sock", "must be a clean path without '.' or '..'"),
        Arguments.of("unix://" + tooLong,
            "is longer than 107 bytes, the limit of a Unix socket path; choose a shorter"),
        Arguments.of("unix://" + tooLongInBytes, "is longer than 107 bytes"));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("refused")
  void refusesWithAMessageSayingWhatToFix(String value, String fix) {
    assertThatThrownBy(() -> CsiEndpoint.parse(value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--endpoint")
        .hasMessageContaining(fix)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  void namesTheRefusedValueSoTheOperatorFindsIt() {
    assertThatThrownBy(() -> CsiEndpoint.parse("tcp://127.0.0.1:10000"))
        .hasMessageStartingWith("--endpoint tcp://127.0.0.1:10000 ");
  }

  @Test
  void acceptsAPathOfExactly107Bytes() {
    String path = "/tmp/" + "a".repeat(97) + ".sock";
    assertThat(path).hasSize(107);

    assertThat(CsiEndpoint.parse("unix://" + path).socketPath()).isEqualTo(Path.of(path));
  }
}
