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

/** Identity: name and version, the plugin capabilities of the running mode, and readiness. */
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
      Readiness readiness = readiness();
      boolean ready = readiness instanceof Readiness.Ready;
      if (readiness instanceof Readiness.NotReady(String reason) && !reason.equals(lastNotReady)) {
        LOG.warn("Probe: not ready: {}", reason);
        lastNotReady = reason;
      }
      return ProbeResponse.newBuilder().setReady(BoolValue.of(ready)).build();
    });
  }

  /** Ready only when every part served by this process is ready. */
  public Readiness readiness() {
    if (driver.controller().isPresent()
        && driver.controller().get().readiness() instanceof Readiness.NotReady nr) {
      return new Readiness.NotReady("controller: " + nr.reason());
    }
    if (driver.node().isPresent() && driver.node().get().readiness() instanceof Readiness.NotReady nr) {
      return new Readiness.NotReady("node: " + nr.reason());
    }
    return Readiness.ready();
  }
}
