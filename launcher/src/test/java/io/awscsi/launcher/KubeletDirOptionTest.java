package io.awscsi.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.host.KubeletDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.logging.log4j.LogManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** --kubelet-dir: upstream's directory by default, an absolute directory other than the root, resolved at start. */
class KubeletDirOptionTest {

  private static DriverOptions parse(String... args) {
    return DriverOptions.parse(args, Map.of());
  }

  @Test
  void theDefaultIsUpstreamsKubeletDirectory() {
    assertThat(parse("--mode", "node").kubeletDir()).isEqualTo(Path.of("/var/lib/kubelet"));
    assertThat(parse("--mode", "node", "--kubelet-dir", "/data/kubelet/").kubeletDir())
        .isEqualTo(Path.of("/data/kubelet"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"/", "relative/kubelet", ""})
  void anythingButAnAbsoluteDirectoryBelowTheRootStopsTheStart(String value) {
    assertThatThrownBy(() -> parse("--mode", "node", "--kubelet-dir", value))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--kubelet-dir");
  }

  @Test
  void aKubeletDirectoryThatIsALinkIsResolvedOnceAtStart(@TempDir Path tmp) throws IOException {
    Path real = Files.createDirectories(tmp.resolve("disk/kubelet")).toRealPath();
    Path link = Files.createSymbolicLink(tmp.resolve("kubelet"), real);
    assertThat(Main.kubeletDirectory(link, LogManager.getLogger(KubeletDirOptionTest.class)).root())
        .isEqualTo(real);
    // Not there (yet): kept as configured; a path below it that leads elsewhere is still refused.
    Path absent = tmp.toRealPath().resolve("absent");
    KubeletDirectory kept = Main.kubeletDirectory(absent, LogManager.getLogger(KubeletDirOptionTest.class));
    assertThat(kept.root()).isEqualTo(absent);
    assertThat(kept.locate(absent.resolve("pods/x/mount"))).isInstanceOf(KubeletDirectory.Resolution.Inside.class);
    assertThat(kept.locate(link.resolve("pods/x/mount"))).isInstanceOf(KubeletDirectory.Resolution.Outside.class);
  }
}
