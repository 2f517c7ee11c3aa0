package io.awscsi.e2e.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.e2e.localstack.LocalStackMode.Kind;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The LocalStack lane's choice: a container only with a token and an engine, else the process; never a skip. */
class LocalStackModeTest {

  @Test
  void withoutTokenRunsTheProcessWithoutProbingDocker() {
    AtomicBoolean probed = new AtomicBoolean();
    LocalStackMode mode = LocalStackMode.choose(Map.of(), () -> probed.getAndSet(true));
    assertThat(mode.kind()).isEqualTo(Kind.PROCESS);
    assertThat(mode.reason()).contains("LOCALSTACK_AUTH_TOKEN");
    assertThat(probed).isFalse();
  }

  @Test
  void withTokenButNoDockerRunsTheProcessNamingDocker() {
    LocalStackMode mode = LocalStackMode.choose(Map.of("LOCALSTACK_AUTH_TOKEN", "t"), () -> false);
    assertThat(mode.kind()).isEqualTo(Kind.PROCESS);
    assertThat(mode.reason()).contains("Docker");
  }

  @Test
  void withTokenAndDockerRunsTheContainer() {
    assertThat(LocalStackMode.choose(Map.of("LOCALSTACK_AUTH_TOKEN", "t"), () -> true).kind())
        .isEqualTo(Kind.CONTAINER);
  }

  @Test
  void modeForcesEitherWayAndRefusesAnythingElse() {
    assertThat(LocalStackMode.choose(Map.of("LOCALSTACK_MODE", "process", "LOCALSTACK_AUTH_TOKEN", "t"), () -> true)
        .kind()).isEqualTo(Kind.PROCESS);
    assertThat(LocalStackMode.choose(Map.of("LOCALSTACK_MODE", "container"), () -> false).kind())
        .isEqualTo(Kind.CONTAINER);
    assertThatThrownBy(() -> LocalStackMode.choose(Map.of("LOCALSTACK_MODE", "docker"), () -> true))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("LOCALSTACK_MODE");
  }
}
