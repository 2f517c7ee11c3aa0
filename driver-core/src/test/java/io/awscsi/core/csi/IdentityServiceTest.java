package io.awscsi.core.csi;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.GetPluginCapabilitiesRequest;
import csi.v1.GetPluginInfoRequest;
import csi.v1.GetPluginInfoResponse;
import csi.v1.PluginCapability;
import csi.v1.ProbeRequest;
import io.awscsi.core.provider.DriverProvider;
import io.awscsi.core.provider.ExpandResult;
import io.awscsi.core.provider.Readiness;
import io.awscsi.core.testing.FakeControllerProvider;
import io.awscsi.core.testing.FakeDriver;
import io.awscsi.core.testing.FakeNodeProvider;
import io.awscsi.core.testing.InProcessCsiServer;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class IdentityServiceTest {

  private InProcessCsiServer server;

  @AfterEach
  void stop() throws InterruptedException {
    if (server != null) {
      server.close();
    }
  }

  private static String name(PluginCapability c) {
    return c.hasService() ? c.getService().getType().name() : "VOLUME_EXPANSION_" + c.getVolumeExpansion().getType();
  }

  static Stream<Arguments> modes() {
    FakeControllerProvider expanding = new FakeControllerProvider().withExpander(r -> new ExpandResult(0, false));
    return Stream.of(
        Arguments.of("controller", FakeDriver.controllerMode(new FakeControllerProvider()),
            List.of("CONTROLLER_SERVICE", "VOLUME_ACCESSIBILITY_CONSTRAINTS")),
        Arguments.of("controller with expansion", FakeDriver.controllerMode(expanding),
            List.of("CONTROLLER_SERVICE", "VOLUME_EXPANSION_ONLINE", "VOLUME_ACCESSIBILITY_CONSTRAINTS")),
        Arguments.of("node", FakeDriver.nodeMode(new FakeNodeProvider()), List.of("VOLUME_ACCESSIBILITY_CONSTRAINTS")),
        Arguments.of("all", FakeDriver.allMode(expanding, new FakeNodeProvider()),
            List.of("CONTROLLER_SERVICE", "VOLUME_EXPANSION_ONLINE", "VOLUME_ACCESSIBILITY_CONSTRAINTS")),
        Arguments.of("all without topology (EFS)", new DriverProvider("efs.csi.aws.com", "1", Optional.of(
                new FakeControllerProvider()), Optional.of(new FakeNodeProvider()), false, () -> { }),
            List.of("CONTROLLER_SERVICE")),
        Arguments.of("node without topology", new DriverProvider("efs.csi.aws.com", "1", Optional.empty(),
            Optional.of(new FakeNodeProvider()), false, () -> { }), List.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("modes")
  void pluginCapabilitiesAreWhatTheRunningModeServes(String mode, DriverProvider driver, List<String> expected) {
    server = InProcessCsiServer.start(driver);

    List<String> advertised = server.identity().getPluginCapabilities(GetPluginCapabilitiesRequest.getDefaultInstance())
        .getCapabilitiesList().stream().map(IdentityServiceTest::name).toList();

    assertThat(advertised).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void pluginInfoNamesTheDriverAndItsVersion() {
    server = InProcessCsiServer.start(FakeDriver.nodeMode(new FakeNodeProvider()));

    GetPluginInfoResponse info = server.identity().getPluginInfo(GetPluginInfoRequest.getDefaultInstance());

    assertThat(info.getName()).isEqualTo(FakeDriver.NAME);
    assertThat(info.getVendorVersion()).isEqualTo(FakeDriver.VERSION);
  }

  @Test
  void probeAnswersLivenessNotTheCloudsReachability() {
    FakeControllerProvider controller = new FakeControllerProvider();
    FakeNodeProvider node = new FakeNodeProvider();
    server = InProcessCsiServer.start(FakeDriver.allMode(controller, node));
    IdentityService identity = new IdentityService(FakeDriver.allMode(controller, node));

    assertThat(probe()).isTrue();
    controller.readiness(new Readiness.NotReady("EC2 did not answer"));
    // The livenessprobe sidecar turns Probe into the container's liveness: an outage must not restart it.
    assertThat(probe()).isTrue();
    assertThat(identity.readiness()).isEqualTo(new Readiness.NotReady("controller: EC2 did not answer"));
    controller.readiness(Readiness.ready());
    node.readiness(new Readiness.NotReady("instance metadata unreachable"));
    assertThat(probe()).isFalse();
    assertThat(identity.liveness()).isEqualTo(new Readiness.NotReady("node: instance metadata unreachable"));
    node.readiness(Readiness.ready());
    assertThat(probe()).isTrue();
    assertThat(identity.readiness()).isEqualTo(Readiness.ready());
  }

  @Test
  void readinessNamesThePartThatIsNotReady() {
    FakeNodeProvider node = new FakeNodeProvider().readiness(new Readiness.NotReady("IMDS unreachable"));

    Readiness readiness = new IdentityService(FakeDriver.allMode(new FakeControllerProvider(), node)).readiness();

    assertThat(readiness).isEqualTo(new Readiness.NotReady("node: IMDS unreachable"));
  }

  private boolean probe() {
    var response = server.identity().probe(ProbeRequest.getDefaultInstance());
    assertThat(response.hasReady()).as("ready is always set").isTrue();
    return response.getReady().getValue();
  }
}
