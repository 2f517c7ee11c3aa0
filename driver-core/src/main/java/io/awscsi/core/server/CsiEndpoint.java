package io.awscsi.core.server;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** Where the CSI socket lives: parsed from {@code unix:///abs/path} or {@code unix:/abs/path}. */
public record CsiEndpoint(Path socketPath) {

  /** sun_path holds 108 bytes including the terminating NUL. */
  static final int MAX_SOCKET_PATH_BYTES = 107;

  /** Parses an endpoint; the exception message is the one line the operator sees at startup. */
  public static CsiEndpoint parse(String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("--endpoint (or CSI_ENDPOINT) is required, e.g. unix:///csi/csi.sock");
    }
    String path;
    if (value.startsWith("unix://")) {
      path = value.substring("unix://".length());
      if (path.isEmpty()) {
        throw noPath(value);
      }
      if (!path.startsWith("/")) {
        throw new IllegalArgumentException("--endpoint " + value + " names a relative path; use an absolute one,"
            + " e.g. unix:///" + path);
      }
    } else if (value.startsWith("unix:")) {
      path = value.substring("unix:".length());
      if (path.isEmpty()) {
        throw noPath(value);
      }
      if (!path.startsWith("/")) {
        throw new IllegalArgumentException("--endpoint " + value + " names a relative path; use an absolute one,"
            + " e.g. unix:/" + path);
      }
    } else {
      int colon = value.indexOf(':');
      String scheme = colon > 0 ? value.substring(0, colon) : "(none)";
      throw new IllegalArgumentException("--endpoint " + value + " has scheme " + scheme
          + "; only unix sockets are served: unix:///abs/path.sock");
    }
    if (path.endsWith("/")) {
      throw new IllegalArgumentException("--endpoint " + value + " names a directory; add a socket file name");
    }
    Path socket = Path.of(path).normalize();
    if (!socket.toString().equals(path.replaceAll("/+", "/"))) {
      throw new IllegalArgumentException("--endpoint " + value + " must be a clean path without '.' or '..'");
    }
    if (socket.toString().getBytes(StandardCharsets.UTF_8).length > MAX_SOCKET_PATH_BYTES) {
      throw new IllegalArgumentException("--endpoint " + value + " is longer than " + MAX_SOCKET_PATH_BYTES
          + " bytes, the limit of a Unix socket path; choose a shorter path");
    }
    return new CsiEndpoint(socket);
  }

  private static IllegalArgumentException noPath(String value) {
    return new IllegalArgumentException("--endpoint " + value + " names no socket path; use unix:///abs/path.sock");
  }

  @Override
  public String toString() {
    return "unix://" + socketPath;
  }
}
