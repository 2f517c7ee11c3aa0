package io.awscsi.realism;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LatencyTest {

  @Test
  void logNormalSamplesHaveTheGivenMedianAndP99() {
    var latency = Latency.millis(1_500, 4_000);
    var random = new Random(7);

    long[] samples = new long[20_000];
    Arrays.setAll(samples, i -> latency.sample(random).toMillis());
    Arrays.sort(samples);

    assertThat(samples[samples.length / 2]).isBetween(1_400L, 1_600L);
    assertThat(samples[(int) (samples.length * 0.99)]).isBetween(3_600L, 4_400L);
    assertThat(samples[samples.length - 1]).isLessThanOrEqualTo(8_000L);
  }

  @Test
  void noneAndFixedAreExact() {
    var random = new Random(1);

    assertThat(Latency.none().sample(random)).isEqualTo(Duration.ZERO);
    assertThat(Latency.fixed(Duration.ofMillis(250)).sample(random)).isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void p99BelowTheMedianIsRefused() {
    assertThatThrownBy(() -> Latency.millis(2_000, 1_000)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("below its median");
  }

  @Test
  void profilesByName() {
    assertThat(RealismProfile.named("realistic").volumeCreation().median()).isEqualTo(Duration.ofMillis(1_500));
    assertThat(RealismProfile.named("instant").throttle().enabled()).isFalse();
    assertThat(RealismProfile.named("fast").throttle().enabled()).isTrue();
    assertThatThrownBy(() -> RealismProfile.named("slow")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("realistic, fast or instant");
  }
}
