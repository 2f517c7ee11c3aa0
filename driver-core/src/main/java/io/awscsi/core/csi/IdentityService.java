package io.awscsi.core.csi;

import com.google.protobuf.BoolValue;
import csi.v1.GetPluginCapabilitiesRequest;
import csi.v1.GetPluginCapabilitiesResponse;
import csi.v1.GetPluginInfoRequest;
import csi.v1.GetPluginInfoResponse;
import csi.v1.IdentityGrpc;
import csi.v1.PluginCapability;
import csi.v1.ProbeRequest;
import csi.v1.ProbeResponse;
import io.awscsi.core.provider.DriverProvider;
import io.awscsi.core.provider.Readiness;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Identity: name and version, the plugin capabilities of the running mode, and Probe. Probe answers liveness (the
 * process serves: a node once it knows its instance), not the cloud's reachability: the livenessprobe sidecar turns
 * Probe into the container's liveness, and a controller cut off from AWS must not be restarted for it. Readiness
 * (liveness and the cloud answered the driver's recent calls) is served on the HTTP endpoint's {@code /readyz}.
 */
public final class IdentityService extends IdentityGrpc.IdentityImplBase {

  private static final Logger LOG = LogManager.getLogger(IdentityService.class);

  private final DriverProvider driver;
  private volatile String lastNotReady = "";

  public IdentityService(DriverProvider driver) {
    this.driver = driver;
  }

  @Override
  public void getPluginInfo(GetPluginInfoRequest request, StreamObserver<GetPluginInfoResponse> observer) {
    UnaryCall.run(observer, () -> GetPluginInfoResponse.newBuilder()
        .setName(driver.driverName()).setVendorVersion(driver.version()).build());
  }

  @Override
  public void getPluginCapabilities(GetPluginCapabilitiesRequest request,
      StreamObserver<GetPluginCapabilitiesResponse> observer) {
    UnaryCall.run(observer, () -> GetPluginCapabilitiesResponse.newBuilder().addAllCapabilities(capabilities()).build());
  }

  List<PluginCapability> capabilities() {
    List<PluginCapability> caps = new ArrayList<>();
    if (driver.controller().isPresent()) {
      caps.add(service(PluginCapability.Service.Type.CONTROLLER_SERVICE));
      if (driver.controller().get().expander().isPresent()) {
        caps.add(PluginCapability.newBuilder().setVolumeExpansion(PluginCapability.VolumeExpansion.newBuilder()
            .setType(PluginCapability.VolumeExpansion.Type.ONLINE)).build());
      }
      if (driver.controller().get().groupSnapshots().isPresent()) {
        caps.add(service(PluginCapability.Service.Type.GROUP_CONTROLLER_SERVICE));
      }
    }
    if (driver.volumeAccessibilityConstraints()) {
      caps.add(service(PluginCapability.Service.Type.VOLUME_ACCESSIBILITY_CONSTRAINTS));
    }
    return caps;
  }

  private static PluginCapability service(PluginCapability.Service.Type type) {
    return PluginCapability.newBuilder().setService(PluginCapability.Service.newBuilder().setType(type)).build();
  }

  @Override
  public void probe(ProbeRequest request, StreamObserver<ProbeResponse> observer) {
    UnaryCall.run(observer, () -> {
      Readiness readiness = liveness();
      boolean ready = readiness instanceof Readiness.Ready;
      if (readiness instanceof Readiness.NotReady(String reason) && !reason.equals(lastNotReady)) {
        LOG.warn("Probe: not ready: {}", reason);
        lastNotReady = reason;
      }
      return ProbeResponse.newBuilder().setReady(BoolValue.of(ready)).build();
    });
  }

  /** Live when the process serves every part of its mode: a node once its metadata is read; a controller always. */
  public Readiness liveness() {
    if (driver.node().isPresent() && driver.node().get().readiness() instanceof Readiness.NotReady nr) {
      return new Readiness.NotReady("node: " + nr.reason());
    }
    return Readiness.ready();
  }

  /** Ready when live and the controller's cloud answered its recent calls (no call is made for this). */
  public Readiness readiness() {
    Readiness live = liveness();
    if (live instanceof Readiness.NotReady) {
      return live;
    }
    if (driver.controller().isPresent()
        && driver.controller().get().readiness() instanceof Readiness.NotReady nr) {
      return new Readiness.NotReady("controller: " + nr.reason());
    }
    return Readiness.ready();
  }
}
