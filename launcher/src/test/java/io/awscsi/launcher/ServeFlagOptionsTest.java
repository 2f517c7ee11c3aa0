package io.awscsi.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.aws.Environment;
import io.awscsi.aws.metadata.ImdsMetadataSource;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A given value of each of these flags reaches the option its part is built from (DriverFactories hands the options
 * to the parts unchanged; each part's own test shows what the option does there, docs/parameter-effects.json names
 * both). Defaults are DriverOptionsDefaultsTest's.
 */
class ServeFlagOptionsTest {

  private static DriverOptions parse(String... args) {
    return DriverOptions.parse(args, Map.of());
  }

  @Test
  void ebsControllerFlagsReachTheEbsOptions() {
    DriverOptions o = parse("--driver", "ebs", "--k8s-tag-cluster-id", "prod-1",
        "--modify-volume-request-handler-timeout", "5s");
    assertThat(o.ebs().k8sTagClusterId()).isEqualTo("prod-1");
    assertThat(o.ebs().modifyVolumeRequestHandlerTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(parse().ebs().k8sTagClusterId()).isEmpty();
  }

  @Test
  void ebsNodeFlagsReachTheEbsOptions() {
    DriverOptions o = parse("--driver", "ebs", "--mode", "node", "--reserved-volume-attachments", "2",
        "--legacy-xfs");
    assertThat(o.ebs().reservedVolumeAttachments()).isEqualTo(2);
    assertThat(parse("--driver", "ebs", "--volume-attach-limit", "20").ebs().volumeAttachLimit()).isEqualTo(20);
    assertThat(o.ebs().legacyXfs()).isTrue();
    assertThat(parse().ebs().reservedVolumeAttachments()).isEqualTo(-1);
    assertThat(parse().ebs().legacyXfs()).isFalse();
  }

  @Test
  void efsFlagsReachTheEfsOptions() {
    DriverOptions o = parse("--driver", "efs", "--delete-access-point-root-dir", "--vol-metrics-opt-in",
        "--force-unmount-after-timeout", "--unmount-timeout", "45s");
    assertThat(o.efs().deleteAccessPointRootDir()).isTrue();
    assertThat(o.efs().volMetricsOptIn()).isTrue();
    assertThat(o.efs().forceUnmountAfterTimeout()).isTrue();
    assertThat(o.efs().unmountTimeout()).isEqualTo(Duration.ofSeconds(45));
    DriverOptions none = parse("--driver", "efs");
    assertThat(none.efs().deleteAccessPointRootDir()).isFalse();
    assertThat(none.efs().volMetricsOptIn()).isFalse();
    assertThat(none.efs().forceUnmountAfterTimeout()).isFalse();
  }

  @Test
  void commonFlagsReachTheDriverOptions() {
    DriverOptions o = parse("--http-endpoint", "127.0.0.1:9808", "--shutdown-grace", "7s");
    assertThat(o.httpEndpoint()).isEqualTo("127.0.0.1:9808");
    assertThat(o.shutdownGrace()).isEqualTo(Duration.ofSeconds(7));
  }

  @Test
  void theImdsEndpointIsWhereTheMetadataSourcesLookForImds() {
    Environment env = Environment.of(Map.of(ImdsMetadataSource.ENDPOINT_VARIABLE, "http://169.254.169.254"));
    DriverOptions o = parse("--mode", "node", "--imds-endpoint", "http://127.0.0.1:1338");
    assertThat(DriverFactories.metadataEnvironment(o, env).get(ImdsMetadataSource.ENDPOINT_VARIABLE))
        .contains("http://127.0.0.1:1338");
    // Without the flag the SDK's variable counts, as before.
    assertThat(DriverFactories.metadataEnvironment(parse("--mode", "node"), env)
        .get(ImdsMetadataSource.ENDPOINT_VARIABLE)).contains("http://169.254.169.254");
  }
}
