package io.awscsi.core.testing;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Client channels to a driver's Unix socket, as kubelet and the sidecars open them. */
public final class UnixSocketChannels {

  private UnixSocketChannels() {}

  public static ManagedChannel open(Path socket) {
    return Grpc.newChannelBuilder("unix://" + socket, InsecureChannelCredentials.create()).build();
  }

  public static void close(ManagedChannel channel) throws InterruptedException {
    channel.shutdownNow();
    channel.awaitTermination(5, TimeUnit.SECONDS);
  }
}
