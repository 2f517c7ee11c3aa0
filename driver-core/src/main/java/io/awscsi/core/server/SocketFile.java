package io.awscsi.core.server;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Prepares the socket path before binding: a stale socket (left by a crashed process) is removed; a socket some
 * process still answers on, or any other file, is refused so the driver never deletes what it does not own.
 */
public final class SocketFile {

  private SocketFile() {}

  /** The endpoint cannot be served: another process serves it, or something that is not a socket is there. */
  public static final class EndpointInUseException extends IOException {
    EndpointInUseException(String message) {
      super(message);
    }
  }

  /**
   * Removes a stale socket so the path can be bound.
   *
   * @throws EndpointInUseException another process serves on the path, or it is not a socket
   */
  public static void prepare(Path socket) throws IOException {
    if (checkFree(socket)) {
      Files.delete(socket);
    }
  }

  /**
   * Checks, changing nothing, that the path can be served: absent, or a stale socket no process answers on.
   *
   * @return whether a stale socket is there (to be replaced when binding)
   * @throws EndpointInUseException another process serves on the path, or it is not a socket
   */
  public static boolean checkFree(Path socket) throws IOException {
    Path parent = socket.getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    BasicFileAttributes attrs = Files.readAttributes(socket, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (!attrs.isOther()) {
      throw new EndpointInUseException(socket + " exists and is not a socket ("
          + (attrs.isDirectory() ? "a directory" : attrs.isSymbolicLink() ? "a symbolic link" : "a regular file")
          + "); remove it or choose another --endpoint");
    }
    if (answers(socket)) {
      throw new EndpointInUseException("another process is serving on " + socket
          + "; stop it or choose another --endpoint");
    }
    return true;
  }

  /** Whether a process accepts connections on {@code socket}. */
  public static boolean answers(Path socket) {
    try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      return channel.connect(UnixDomainSocketAddress.of(socket));
    } catch (IOException refused) {
      return false;
    }
  }

  /** Whether {@code path} is a socket (not following a symbolic link); false when nothing is there. */
  public static boolean isSocket(Path path) {
    try {
      return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isOther();
    } catch (IOException gone) {
      return false;
    }
  }

  /**
   * What identifies the file at {@code path} (device and inode), or null when nothing is there: a socket bound anew at
   * the same path, by this process or another, has another identity.
   */
  public static Object identity(Path path) {
    try {
      return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
    } catch (IOException gone) {
      return null;
    }
  }

  /** Removes the socket at shutdown; gone already is fine. */
  public static void remove(Path socket) {
    try {
      Files.deleteIfExists(socket);
    } catch (IOException ignored) {
      // Nothing to do: the next start replaces a stale socket anyway.
    }
  }
}
