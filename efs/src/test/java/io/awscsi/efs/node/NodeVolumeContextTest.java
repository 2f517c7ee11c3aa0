package io.awscsi.efs.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NodeVolumeContextTest {

  @Test
  void emptyContextEncryptsInTransit() {
    NodeVolumeContext c = NodeVolumeContext.parse(Map.of());

    assertThat(c.encryptInTransit()).isTrue();
    assertThat(c.crossAccount()).isFalse();
    assertThat(c.mountTargetFor("us-east-1a")).isEmpty();
  }

  @Test
  void keysMatchCaseInsensitivelyAndTheProvisionerIdentityIsIgnored() {
    NodeVolumeContext c = NodeVolumeContext.parse(Map.of("EncryptInTransit", "FALSE", "MountTargetIP", "10.0.0.5",
        "CrossAccount", "true", "storage.kubernetes.io/csiProvisionerIdentity", "1234-efs.csi.aws.com"));

    assertThat(c.encryptInTransit()).isFalse();
    assertThat(c.crossAccount()).isTrue();
    assertThat(c.mountTargetFor("us-east-1a")).isEqualTo("10.0.0.5");
  }

  @Test
  void aMapGivesTheNodesZoneOrElseTheFirstZone() {
    NodeVolumeContext c = NodeVolumeContext.parse(Map.of("mounttargetipmap",
        "{\"us-east-1b\":\"10.0.1.4\",\"us-east-1a\":\"10.0.0.4\"}"));

    assertThat(c.mountTargetFor("us-east-1b")).isEqualTo("10.0.1.4");
    assertThat(c.mountTargetFor("us-east-1c")).isEqualTo("10.0.0.4");
  }

  static Stream<Arguments> invalid() {
    return Stream.of(
        Arguments.of(Map.of("path", "/data"), "volume context property path not supported"),
        Arguments.of(Map.of("fsType", "efs"), "not supported"),
        Arguments.of(Map.of("encryptInTransit", "yes"), "is not true or false"),
        Arguments.of(Map.of("crossaccount", "1"), "is not true or false"),
        Arguments.of(Map.of("mounttargetip", "fs.example.com"), "is not an IP address"),
        Arguments.of(Map.of("mounttargetip", "10.0.0.300"), "is not an IP address"),
        Arguments.of(Map.of("mounttargetip", ""), "is not an IP address"),
        Arguments.of(Map.of("mounttargetipmap", "not json"), "is not a JSON object"),
        Arguments.of(Map.of("mounttargetipmap", "[\"10.0.0.1\"]"), "must be a non-empty JSON object"),
        Arguments.of(Map.of("mounttargetipmap", "{}"), "must be a non-empty JSON object"),
        Arguments.of(Map.of("mounttargetipmap", "{\"us-east-1a\":1}"), "is not a string"),
        Arguments.of(Map.of("mounttargetipmap", "{\"us-east-1a\":\"evil;rm\"}"), "is not an IP address"));
  }

  @ParameterizedTest(name = "{1}: {0}")
  @MethodSource("invalid")
  void refusesUnknownKeysAndBadValues(Map<String, String> context, String message) {
    assertThatThrownBy(() -> NodeVolumeContext.parse(context))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.InvalidArgument.class))
        .hasMessageContaining(message);
  }
}
