package io.awscsi.realism.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Free loopback ports for child servers that cannot pick their own. */
public final class FreePorts {

  private FreePorts() {}

  /** A port that was free on 127.0.0.1 a moment ago (another process may still take it: callers retry). */
  public static int pick() {
    try (var socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on 127.0.0.1", e);
    }
  }
}
