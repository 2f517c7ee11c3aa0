package io.awscsi.core.server;

import io.awscsi.core.provider.Readiness;
import io.grpc.BindableService;
import io.grpc.Server;
import java.io.IOException;
import java.nio.file.Path;

/**
 * What upstream runs as a sidecar container beside the plugin, served by the plugin process itself (the kubelet
 * plugin registration in place of node-driver-registrar): started once the driver serves, on the CSI server's
 * threads, part of {@code /livez} and {@code /readyz}, and closed before the CSI socket goes.
 */
public interface InProcessSidecar extends AutoCloseable {

  /** Not live when only a restart can make it work again; {@code /livez} (and {@code /healthz}) say why. */
  Readiness liveness();

  /** Not ready while it does not do its job yet (implies not live too); {@code /readyz} says why. */
  Readiness readiness();

  @Override
  void close();

  /** Builds the sidecar given a way to serve gRPC on a socket of its own. */
  @FunctionalInterface
  interface Factory {
    InProcessSidecar start(SocketBinder binder) throws IOException;
  }

  /** Serves a gRPC service on a Unix socket bound at a path (see {@link CsiServer#serveAlso}). */
  @FunctionalInterface
  interface SocketBinder {
    Server bind(Path socket, BindableService service) throws IOException;
  }
}
