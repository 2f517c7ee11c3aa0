package io.awscsi.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What the benchmark reads from a chart render: the controller's args and the sidecars' call settings. */
class ChartRenderTest {

  private static final String RENDER = """
      kind: Deployment
      spec:
        template:
          spec:
            containers:
              - name: ebs-plugin
                image: aws-csi-driver:0.1.0
                args:
                 \s
                  - "--driver"
                  - "ebs"
                  - "--mode"
                  - "controller"
                  - "--endpoint=$(CSI_ENDPOINT)"
                env:
                  - name: CSI_ENDPOINT
                    value: unix:///csi/csi.sock
              - name: csi-provisioner
                args:
                  - "--csi-address=$(ADDRESS)"
                  - "--timeout=60s"
                  - "--worker-threads=100"
                  - "--retry-interval-max=30m"
              - name: csi-attacher
                args:
                  - "--timeout=6m"
                  - "--retry-interval-start=500ms"
      """;

  @Test
  void readsTheControllerArgsAndTheSidecarsCallSettings() {
    ChartRender render = ChartRender.parse(RENDER);
    assertThat(render.controllerPlugin("ebs-plugin").args())
        .containsExactly("--driver", "ebs", "--mode", "controller", "--endpoint=$(CSI_ENDPOINT)");
    var provisioner = render.sidecar("csi-provisioner", Duration.ofSeconds(15));
    assertThat(provisioner.timeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(provisioner.workers()).isEqualTo(100);
    assertThat(provisioner.retryMax()).isEqualTo(Duration.ofMinutes(30));
    assertThat(provisioner.retryStart()).isEqualTo(Duration.ofSeconds(1)); // the sidecar's default
    var attacher = render.sidecar("csi-attacher", Duration.ofSeconds(15));
    assertThat(attacher.timeout()).isEqualTo(Duration.ofMinutes(6));
    assertThat(attacher.retryStart()).isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void readsUpstreamsPlainArgsWithoutTakingTheNextContainer() {
    ChartRender render = ChartRender.parse("""
        containers:
          - name: ebs-plugin
            args:
              - controller
              - --endpoint=$(CSI_ENDPOINT)
              - --http-endpoint=0.0.0.0:3301
          - name: csi-provisioner
            args:
              - --timeout=60s
        """);
    assertThat(render.controllerPlugin("ebs-plugin").args())
        .containsExactly("controller", "--endpoint=$(CSI_ENDPOINT)", "--http-endpoint=0.0.0.0:3301");
    assertThat(render.sidecar("csi-provisioner", Duration.ofSeconds(15)).timeout())
        .isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void backoffDoublesPerFailureUpToTheMaximum() {
    var s = new ChartRender.Sidecar("x", Duration.ofSeconds(60), 1, Duration.ofSeconds(1), Duration.ofSeconds(10));
    assertThat(s.backoff(1)).isEqualTo(Duration.ofSeconds(1));
    assertThat(s.backoff(2)).isEqualTo(Duration.ofSeconds(2));
    assertThat(s.backoff(4)).isEqualTo(Duration.ofSeconds(8));
    assertThat(s.backoff(5)).isEqualTo(Duration.ofSeconds(10));
    assertThat(s.backoff(60)).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void goDurations() {
    assertThat(ChartRender.goDuration("1m30s")).isEqualTo(Duration.ofSeconds(90));
    assertThat(ChartRender.goDuration("1.5h")).isEqualTo(Duration.ofMinutes(90));
    assertThatThrownBy(() -> ChartRender.goDuration("60")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ChartRender.goDuration("5x")).isInstanceOf(IllegalArgumentException.class);
  }
}
