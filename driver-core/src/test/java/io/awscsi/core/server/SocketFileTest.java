package io.awscsi.core.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SocketFileTest {

  @TempDir
  Path dir;

  /** A socket file whose server is gone: bound, then closed without unlinking, as a crashed process leaves it. */
  static Path staleSocket(Path path) throws IOException {
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(path));
    }
    assertThat(Files.readAttributes(path, "isOther", LinkOption.NOFOLLOW_LINKS)).containsEntry("isOther", true);
    return path;
  }

  @Test
  void removesAStaleSocket() throws IOException {
    Path socket = staleSocket(dir.resolve("csi.sock"));

    SocketFile.prepare(socket);

    assertThat(socket).doesNotExist();
  }

  @Test
  void refusesASocketAnotherProcessServesOn() throws IOException {
    Path socket = dir.resolve("csi.sock");
    try (ServerSocketChannel live = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      live.bind(UnixDomainSocketAddress.of(socket));

      assertThatThrownBy(() -> SocketFile.prepare(socket))
          .isInstanceOf(IOException.class)
          .hasMessage("another process is serving on " + socket + "; stop it or choose another --endpoint");
      assertThat(Files.exists(socket, LinkOption.NOFOLLOW_LINKS)).isTrue();
    }
  }

  @Test
  void refusesARegularFileAndLeavesItAlone() throws IOException {
    Path file = Files.writeString(dir.resolve("csi.sock"), "not mine");

    assertThatThrownBy(() -> SocketFile.prepare(file))
        .isInstanceOf(IOException.class)
        .hasMessage(file + " exists and is not a socket (a regular file); remove it or choose another --endpoint");
    assertThat(file).hasContent("not mine");
  }

  @Test
  void refusesADirectory() throws IOException {
    Path directory = Files.createDirectory(dir.resolve("csi.sock"));

    assertThatThrownBy(() -> SocketFile.prepare(directory))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("exists and is not a socket (a directory)");
    assertThat(directory).isDirectory();
  }

  @Test
  void refusesASymbolicLinkEvenToAStaleSocket() throws IOException {
    Path target = staleSocket(dir.resolve("real.sock"));
    Path link = Files.createSymbolicLink(dir.resolve("csi.sock"), target);

    assertThatThrownBy(() -> SocketFile.prepare(link))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("exists and is not a socket (a symbolic link)");
    assertThat(Files.isSymbolicLink(link)).isTrue();
    assertThat(Files.exists(target, LinkOption.NOFOLLOW_LINKS)).isTrue();
  }

  @Test
  void createsMissingParentDirectories() throws IOException {
    Path socket = dir.resolve("plugins/ebs.csi.aws.com/csi.sock");

    SocketFile.prepare(socket);

    assertThat(socket.getParent()).isDirectory();
    assertThat(socket).doesNotExist();
  }

  @Test
  void removeIsIdempotent() throws IOException {
    Path socket = staleSocket(dir.resolve("csi.sock"));

    SocketFile.remove(socket);
    SocketFile.remove(socket);

    assertThat(Files.exists(socket, LinkOption.NOFOLLOW_LINKS)).isFalse();
  }
}
