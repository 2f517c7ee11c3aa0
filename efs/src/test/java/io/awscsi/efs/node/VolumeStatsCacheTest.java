package io.awscsi.efs.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.host.CommandResult;
import io.awscsi.core.host.CommandRunner;
import io.awscsi.core.host.FsStats;
import io.awscsi.core.host.LinuxMounter;
import io.awscsi.core.provider.VolumeStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code --vol-metrics-refresh-period} and {@code --vol-metrics-fs-rate-limit} do to NodeGetVolumeStats: a
 * result younger than the period is answered without a new walk, an older one starts one; at most the limit of walks
 * measure one file system at once. statfs is a fake ({@code stat -f} through the runner) so a walk can be held.
 */
class VolumeStatsCacheTest {

  private static final String FS = "fs-0123456789abcdef0";

  @TempDir
  Path dir;
  private Path mountInfo;
  private final AtomicInteger statfsCalls = new AtomicInteger();
  private final AtomicInteger measuring = new AtomicInteger();
  private final AtomicInteger mostAtOnce = new AtomicInteger();
  private volatile CountDownLatch hold = new CountDownLatch(0);
  private Instant now = Instant.parse("2026-01-01T00:00:00Z");

  private final CommandRunner statfs = command -> {
    statfsCalls.incrementAndGet();
    mostAtOnce.accumulateAndGet(measuring.incrementAndGet(), Math::max);
    try {
      hold.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      measuring.decrementAndGet();
    }
    return new CommandResult(command, 0, "4096 1000 500 500 100 50", "", Duration.ZERO);
  };

  @BeforeEach
  void setUp() throws IOException {
    mountInfo = dir.resolve("mountinfo");
    Files.writeString(mountInfo, "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n");
  }

  private Path publishedVolume(String name) throws IOException {
    Path target = Files.createDirectories(dir.toRealPath().resolve(name));
    Files.writeString(mountInfo, "90 27 0:50 / " + target + " rw,relatime shared:40 - nfs4 127.0.0.1:/ rw\n",
        java.nio.file.StandardOpenOption.APPEND);
    return target;
  }

  private VolumeStatsCache cache(Duration refreshPeriod, int fsRateLimit) {
    Clock clock = new Clock() {
      @Override
      public ZoneOffset getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(java.time.ZoneId zone) {
        return this;
      }

      @Override
      public Instant instant() {
        return now;
      }
    };
    return new VolumeStatsCache(new LinuxMounter(command -> {
      throw new AssertionError("no command expected: " + command);
    }, mountInfo, Duration.ofSeconds(5)), (volumeId, mount) -> true, new FsStats(statfs), refreshPeriod,
        fsRateLimit, clock);
  }

  private static void eventually(java.util.function.BooleanSupplier condition) {
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition not met within 10 s").isLessThan(end);
      sleep(10);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static long usedBytes(VolumeStats stats) {
    return ((VolumeStats.FileSystem) stats).usedBytes();
  }

  @Test
  void aResultYoungerThanTheRefreshPeriodIsAnsweredAndAnOlderOneIsMeasuredAgain() throws IOException {
    Path volume = publishedVolume("v1");
    String id = "efs:" + FS + "::fsap-0123456789abcdef0";
    try (VolumeStatsCache cache = cache(Duration.ofMinutes(10), 5)) {
      assertThat(cache.stats(id, volume)).isInstanceOf(VolumeStats.Unknown.class);
      eventually(() -> cache.stats(id, volume) instanceof VolumeStats.FileSystem);
      assertThat(usedBytes(cache.stats(id, volume))).isZero();

      Files.writeString(volume.resolve("data"), "x".repeat(1000));
      now = now.plus(Duration.ofMinutes(9));
      assertThat(usedBytes(cache.stats(id, volume))).as("within the period: the last result").isZero();
      assertThat(statfsCalls).hasValue(1);

      now = now.plus(Duration.ofMinutes(2));
      cache.stats(id, volume);
      eventually(() -> usedBytes(cache.stats(id, volume)) == 1000);
      assertThat(statfsCalls).hasValue(2);
    }
  }

  @Test
  void atMostTheRateLimitOfWalksMeasureOneFileSystemAtOnce() throws IOException {
    hold = new CountDownLatch(1);
    try (VolumeStatsCache cache = cache(Duration.ofMinutes(10), 2)) {
      for (int i = 0; i < 5; i++) {
        cache.stats("efs:" + FS + "::fsap-000000000000000" + i, publishedVolume("v" + i));
      }
      eventually(() -> measuring.get() == 2);
      // Held walks would be measuring now if the limit let them.
      sleep(300);
      assertThat(measuring).hasValue(2);
      hold.countDown();
      eventually(() -> statfsCalls.get() == 5 && measuring.get() == 0);
      assertThat(mostAtOnce).hasValue(2);
    }
  }
}
