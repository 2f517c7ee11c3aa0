package pluginregistration;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.MethodDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The kubelet's plugin registration API as compiled from the downloaded k8s.io/kubelet file: the gRPC names the
 * kubelet's plugin watcher calls and the field numbers on the wire, written down here independently of that file.
 */
class RegistrationApiTest {

  @Test
  void theServiceHasTheNamesTheKubeletCalls() {
    assertThat(RegistrationGrpc.SERVICE_NAME).isEqualTo("pluginregistration.Registration");
    assertThat(RegistrationGrpc.getServiceDescriptor().getMethods()).extracting(MethodDescriptor::getFullMethodName)
        .containsExactlyInAnyOrder("pluginregistration.Registration/GetInfo",
            "pluginregistration.Registration/NotifyRegistrationStatus");
  }

  @Test
  void pluginInfoCarriesTypeNameEndpointAndVersionsAsFields1To4() {
    byte[] wire = PluginInfo.newBuilder().setType("A").setName("B").setEndpoint("C")
        .addAllSupportedVersions(List.of("1", "2")).build().toByteArray();
    // tag (field << 3 | 2 for length-delimited), length, bytes
    assertThat(HexFormat.of().formatHex(wire)).isEqualTo("0a0141" + "120142" + "1a0143" + "220131" + "220132");
  }

  @Test
  void registrationStatusCarriesRegisteredAndErrorAsFields1And2() throws Exception {
    RegistrationStatus status = RegistrationStatus.parseFrom(HexFormat.of().parseHex("0801" + "12026f6f"));
    assertThat(status.getPluginRegistered()).isTrue();
    assertThat(status.getError()).isEqualTo("oo");
  }

  @Test
  void theDownloadedFileIsTheV1RegistrationApiUnpatchedExceptForJavaOptions() throws IOException {
    Path original = Path.of(System.getProperty("kubelet.original.proto", "target/kubelet-proto/original/api.proto"));
    String text = Files.readString(original);
    assertThat(text).contains("package pluginregistration;")
        .contains("rpc GetInfo(InfoRequest) returns (PluginInfo)")
        .contains("rpc NotifyRegistrationStatus(RegistrationStatus) returns (RegistrationStatusResponse)")
        .doesNotContain("java_package");
    Path patched = original.getParent().getParent()
        .resolve("patched/k8s.io/kubelet/pluginregistration/v1/api.proto");
    String compiled = Files.readString(patched);
    assertThat(compiled.replace("option java_multiple_files = true;\n", "")
        .replace("option java_package = \"pluginregistration\";\n", "")).isEqualTo(text);
  }
}
