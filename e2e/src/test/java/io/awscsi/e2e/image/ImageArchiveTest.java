package io.awscsi.e2e.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ImageArchiveTest {

  @TempDir
  Path dir;

  @Test
  void appliesTheLayersInTheManifestsOrderWithTheirWhiteouts() throws IOException {
    byte[] base = layer(t -> {
      directory(t, "usr/bin");
      symlink(t, "bin", "usr/bin");
      file(t, "usr/bin/mount", "elf", 0755);
      file(t, "usr/bin/old", "elf", 0755);
      directory(t, "etc/cfg");
      file(t, "etc/cfg/a", "a", 0644);
      file(t, "etc/passwd", "root:x:0:0:root:/root:/bin/sh\n", 0644);
    });
    byte[] top = layer(t -> {
      file(t, "usr/bin/.wh.old", "", 0644);
      directory(t, "etc/cfg");
      file(t, "etc/cfg/.wh..wh..opq", "", 0644);
      file(t, "etc/cfg/b", "b", 0644);
      file(t, "usr/bin/notes", "not executable", 0644);
      symlink(t, "usr/bin/umount", "mount");
    });
    // the top layer comes first in the tarball: the manifest's order counts, not the tarball's
    Path tarball = archive(top, base, """
        [{"Config":"cfg.json","RepoTags":["localhost/x/y:1"],"Layers":["base.tar","top.tar"]}]""");

    ImageArchive image = ImageArchive.read(tarball, p -> p.equals("/etc/passwd"));

    assertThat(image.repoTags()).containsExactly("localhost/x/y:1");
    assertThat(image.config().entrypoint()).containsExactly("/bin/mount");
    assertThat(image.config().env()).containsEntry("PATH", "/sbin:/bin");
    assertThat(image.config().labels()).containsEntry("k", "v");
    assertThat(image.config().architecture()).isEqualTo("arm64");
    assertThat(image.which("mount")).contains("/usr/bin/mount");
    assertThat(image.which("umount")).as("a link to a link").contains("/usr/bin/mount");
    assertThat(image.which("old")).as("whited out").isEmpty();
    assertThat(image.which("notes")).as("not executable").isEmpty();
    assertThat(image.list("/etc/cfg")).as("opaque directory").containsExactly("/etc/cfg/b");
    assertThat(image.text("/etc/passwd")).startsWith("root:x:0:0:");
    assertThatThrownBy(() -> image.text("/etc/cfg/b")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void refusesATarballThatIsNoDockerArchive() throws IOException {
    Path tarball = dir.resolve("plain.tar");
    Files.write(tarball, layer(t -> file(t, "x", "x", 0644)));

    assertThatThrownBy(() -> ImageArchive.read(tarball, p -> false)).hasMessageContaining("no manifest.json");
  }

  private interface Entries {
    void write(TarArchiveOutputStream tar) throws IOException;
  }

  private static byte[] layer(Entries entries) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (TarArchiveOutputStream tar = new TarArchiveOutputStream(bytes)) {
      entries.write(tar);
    }
    return bytes.toByteArray();
  }

  private Path archive(byte[] top, byte[] base, String manifest) throws IOException {
    Path tarball = dir.resolve("image.tar");
    try (OutputStream out = Files.newOutputStream(tarball); TarArchiveOutputStream tar = new TarArchiveOutputStream(out)) {
      put(tar, "top.tar", top);
      put(tar, "base.tar", base);
      put(tar, "cfg.json", """
          {"architecture":"arm64",
           "config":{"Entrypoint":["/bin/mount"],"Env":["PATH=/sbin:/bin"],"Labels":{"k":"v"}}}"""
          .getBytes(StandardCharsets.UTF_8));
      put(tar, "manifest.json", manifest.getBytes(StandardCharsets.UTF_8));
    }
    return tarball;
  }

  private static void put(TarArchiveOutputStream tar, String name, byte[] content) throws IOException {
    TarArchiveEntry e = new TarArchiveEntry(name);
    e.setSize(content.length);
    tar.putArchiveEntry(e);
    tar.write(content);
    tar.closeArchiveEntry();
  }

  private static void file(TarArchiveOutputStream tar, String name, String content, int mode) throws IOException {
    byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
    TarArchiveEntry e = new TarArchiveEntry(name);
    e.setSize(bytes.length);
    e.setMode(mode);
    tar.putArchiveEntry(e);
    tar.write(bytes);
    tar.closeArchiveEntry();
  }

  private static void directory(TarArchiveOutputStream tar, String name) throws IOException {
    tar.putArchiveEntry(new TarArchiveEntry(name + "/"));
    tar.closeArchiveEntry();
  }

  private static void symlink(TarArchiveOutputStream tar, String name, String target) throws IOException {
    TarArchiveEntry e = new TarArchiveEntry(name, TarConstants.LF_SYMLINK);
    e.setLinkName(target);
    tar.putArchiveEntry(e);
    tar.closeArchiveEntry();
  }
}
