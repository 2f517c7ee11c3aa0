package io.awscsi.e2e.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The LocalStack profile's skip rule: token first (without probing Docker), then the Docker engine. */
class LocalStackAvailableTest {

  @Test
  void withoutTokenSkipsWithoutProbingDocker() {
    AtomicBoolean probed = new AtomicBoolean();
    var result = LocalStackAvailable.evaluate(Map.of(), () -> probed.getAndSet(true));
    assertThat(result.isDisabled()).isTrue();
    assertThat(result.getReason()).hasValueSatisfying(r -> assertThat(r).contains("LOCALSTACK_AUTH_TOKEN"));
    assertThat(probed).isFalse();
  }

  @Test
  void withTokenButNoDockerSkipsNamingDocker() {
    var result = LocalStackAvailable.evaluate(Map.of("LOCALSTACK_AUTH_TOKEN", "t"), () -> false);
    assertThat(result.isDisabled()).isTrue();
    assertThat(result.getReason()).hasValueSatisfying(r -> assertThat(r).contains("Docker"));
  }

  @Test
  void withTokenAndDockerRuns() {
    assertThat(LocalStackAvailable.evaluate(Map.of("LOCALSTACK_AUTH_TOKEN", "t"), () -> true).isDisabled()).isFalse();
  }
}
