package io.awscsi.core.registration;

import io.grpc.stub.StreamObserver;
import java.util.function.Consumer;
import pluginregistration.InfoRequest;
import pluginregistration.PluginInfo;
import pluginregistration.RegistrationGrpc;
import pluginregistration.RegistrationStatus;
import pluginregistration.RegistrationStatusResponse;

/** The kubelet's {@code pluginregistration.Registration} service: what to register, and the outcome reported back. */
final class RegistrationService extends RegistrationGrpc.RegistrationImplBase {

  /** The plugin type the kubelet's CSI handler takes (k8s.io/kubelet's {@code CSIPlugin} constant). */
  static final String CSI_PLUGIN = "CSIPlugin";

  private final PluginInfo info;
  private final Runnable onGetInfo;
  private final Consumer<RegistrationStatus> onStatus;

  RegistrationService(RegistrationSettings settings, Runnable onGetInfo, Consumer<RegistrationStatus> onStatus) {
    this.info = PluginInfo.newBuilder().setType(CSI_PLUGIN).setName(settings.driverName())
        .setEndpoint(settings.kubeletRegistrationPath())
        .addAllSupportedVersions(RegistrationSettings.SUPPORTED_VERSIONS).build();
    this.onGetInfo = onGetInfo;
    this.onStatus = onStatus;
  }

  @Override
  public void getInfo(InfoRequest request, StreamObserver<PluginInfo> observer) {
    onGetInfo.run();
    observer.onNext(info);
    observer.onCompleted();
  }

  @Override
  public void notifyRegistrationStatus(RegistrationStatus status,
      StreamObserver<RegistrationStatusResponse> observer) {
    onStatus.accept(status);
    observer.onNext(RegistrationStatusResponse.getDefaultInstance());
    observer.onCompleted();
  }
}
