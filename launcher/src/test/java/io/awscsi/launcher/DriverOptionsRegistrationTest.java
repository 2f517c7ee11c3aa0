package io.awscsi.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The kubelet registration flags: named as node-driver-registrar's, refused with one line when they cannot work. */
class DriverOptionsRegistrationTest {

  private static DriverOptions parse(String... args) {
    return DriverOptions.parse(args, Map.of());
  }

  @Test
  void offUnlessTheKubeletRegistrationPathIsGiven() {
    assertThat(parse("--mode", "node").registration()).isEmpty();
  }

  @Test
  void theKubeletPathTurnsItOnWithTheKubeletsDefaultDirectory() {
    DriverOptions o = parse("--driver", "ebs", "--mode", "node",
        "--kubelet-registration-path", "/var/lib/kubelet/plugins/ebs.csi.aws.com/csi.sock");

    assertThat(o.registration()).hasValueSatisfying(r -> {
      assertThat(r.kubeletRegistrationPath()).isEqualTo("/var/lib/kubelet/plugins/ebs.csi.aws.com/csi.sock");
      assertThat(r.pluginRegistrationDir()).isEqualTo(Path.of("/var/lib/kubelet/plugins_registry"));
    });
  }

  @Test
  void theDirectoryCanBeChosen() {
    DriverOptions o = parse("--mode=all", "--kubelet-registration-path=/k/plugins/x/csi.sock",
        "--plugin-registration-path=/registration");

    assertThat(o.registration()).hasValueSatisfying(
        r -> assertThat(r.pluginRegistrationDir()).isEqualTo(Path.of("/registration")));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "--mode controller --kubelet-registration-path /k/csi.sock | use it with --mode node or all",
      "--mode node --plugin-registration-path /registration | --plugin-registration-path needs --kubelet-registration-path",
      "--mode node --kubelet-registration-path unix:///k/csi.sock | --kubelet-registration-path takes the CSI socket's clean absolute path",
      "--mode node --kubelet-registration-path k/csi.sock | --kubelet-registration-path takes the CSI socket's clean absolute path",
      "--mode node --kubelet-registration-path /k/../csi.sock | --kubelet-registration-path takes the CSI socket's clean absolute path",
      "--mode node --kubelet-registration-path /k/csi.sock --plugin-registration-path registry | --plugin-registration-path takes an absolute directory",
  })
  void refusedWithOneLineNamingTheFlag(String args, String message) {
    assertThatThrownBy(() -> parse(args.trim().split(" "))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }

  @Test
  void aDirectoryTooLongForASocketPathIsRefused() {
    String dir = "/" + "d".repeat(90);

    assertThatThrownBy(() -> parse("--mode", "node", "--kubelet-registration-path", "/k/csi.sock",
        "--plugin-registration-path", dir)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is too long for a Unix socket path");
  }
}
