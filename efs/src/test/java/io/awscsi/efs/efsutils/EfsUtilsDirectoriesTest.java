package io.awscsi.efs.efsutils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The host directories as the chart mounts them, each case a state a node can be found in. */
class EfsUtilsDirectoriesTest {

  @TempDir Path root;
  private EfsUtilsDirectories dirs;

  @BeforeEach
  void setUp() throws IOException {
    dirs = new EfsUtilsDirectories(root.resolve("var/amazon/efs"), root.resolve("etc/amazon/efs-legacy"),
        root.resolve("etc/amazon/efs-static-files"), root.resolve("etc/amazon/efs"), root.resolve("var/run/efs"));
    Files.createDirectories(dirs.staticFilesDir());
    Files.writeString(dirs.staticFilesDir().resolve("efs-utils.crt"), "CA of the image");
    Files.writeString(dirs.staticFilesDir().resolve("efs-utils.conf"), "package default");
  }

  @Test
  void aFreshHostDirectoryIsLinkedAndGetsThePackagesFiles() throws IOException {
    Files.createDirectories(dirs.configDir());

    Path used = dirs.prepare();

    assertThat(Files.isSymbolicLink(dirs.etcDir())).isTrue();
    assertThat(Files.readSymbolicLink(dirs.etcDir())).isEqualTo(dirs.configDir());
    assertThat(used).isEqualTo(dirs.configDir().toRealPath());
    assertThat(dirs.configDir().resolve("efs-utils.crt")).hasContent("CA of the image");
    assertThat(dirs.configDir().resolve("efs-utils.conf")).hasContent("package default");
    assertThat(dirs.stateDir()).isDirectory();
  }

  @Test
  void keysAndConfigurationOfAnEarlierStartAreKeptAndTheCaBundleFollowsTheImage() throws IOException {
    Files.createDirectories(dirs.configDir());
    Files.writeString(dirs.configDir().resolve("privateKey.pem"), "the node's key");
    Files.writeString(dirs.configDir().resolve("efs-utils.conf"), "written at the last start");
    Files.writeString(dirs.configDir().resolve("efs-utils.crt"), "an older CA");

    dirs.prepare();

    assertThat(dirs.configDir().resolve("privateKey.pem")).hasContent("the node's key");
    assertThat(dirs.configDir().resolve("efs-utils.conf")).hasContent("written at the last start");
    assertThat(dirs.configDir().resolve("efs-utils.crt")).hasContent("CA of the image");
  }

  @Test
  void aLegacyDirectoryWithAConfigurationIsUsedAsEarlierDriversLeftIt() throws IOException {
    Files.createDirectories(dirs.configDir());
    Files.createDirectories(dirs.legacyConfigDir());
    Files.writeString(dirs.legacyConfigDir().resolve("efs-utils.conf"), "legacy");

    assertThat(dirs.prepare()).isEqualTo(dirs.legacyConfigDir().toRealPath());
    assertThat(Files.readSymbolicLink(dirs.etcDir())).isEqualTo(dirs.legacyConfigDir());
  }

  @Test
  void anExistingLinkIsUsedAndADanglingOneIsPointedAnew() throws IOException {
    Files.createDirectories(dirs.configDir());
    Files.createDirectories(dirs.legacyConfigDir());
    Files.createDirectories(dirs.etcDir().getParent());
    Files.createSymbolicLink(dirs.etcDir(), dirs.legacyConfigDir());
    assertThat(dirs.prepare()).isEqualTo(dirs.legacyConfigDir().toRealPath());

    // The legacy host directory is not mounted this time: the link into it dangles.
    Files.delete(dirs.etcDir());
    Files.createSymbolicLink(dirs.etcDir(), root.resolve("gone"));
    try (var files = Files.list(dirs.legacyConfigDir())) {
      for (Path file : files.toList()) {
        Files.delete(file);
      }
    }
    Files.delete(dirs.legacyConfigDir());
    assertThat(dirs.prepare()).isEqualTo(dirs.configDir().toRealPath());
    assertThat(Files.readSymbolicLink(dirs.etcDir())).isEqualTo(dirs.configDir());
  }

  @Test
  void withNothingMountedTheConfigurationLivesInThePlainDirectory() throws IOException {
    Path used = dirs.prepare();

    assertThat(Files.isSymbolicLink(dirs.etcDir())).isFalse();
    assertThat(used).isEqualTo(dirs.etcDir().toRealPath());
    assertThat(dirs.etcDir().resolve("efs-utils.crt")).hasContent("CA of the image");
  }

  @Test
  void oldStunnelStateLosesTheOptionNewStunnelRefuses() throws IOException {
    Files.createDirectories(dirs.configDir());
    Files.createDirectories(dirs.stateDir());
    Path stunnel = dirs.stateDir().resolve("stunnel-config.fs-0123abcd.mnt.20049");
    Files.writeString(stunnel, "[efs]\nclient = yes\nlibwrap = no\naccept = 127.0.0.1:20049\n");
    Path state = dirs.stateDir().resolve("fs-0123abcd.mnt.20049");
    Files.writeString(state, "{\"pid\": 1, \"note\": \"libwrap = no\"}");

    dirs.prepare();

    assertThat(stunnel).content().doesNotContain("libwrap").contains("accept = 127.0.0.1:20049");
    assertThat(state).hasContent("{\"pid\": 1, \"note\": \"libwrap = no\"}");
  }

  @Test
  void aMissingStaticFilesDirectoryStopsThePreparationNamingIt() throws IOException {
    Files.createDirectories(dirs.configDir());
    EfsUtilsDirectories without = new EfsUtilsDirectories(dirs.configDir(), dirs.legacyConfigDir(),
        root.resolve("nowhere"), dirs.etcDir(), dirs.stateDir());

    assertThatThrownBy(without::prepare).isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining(root.resolve("nowhere").toString());
  }
}
