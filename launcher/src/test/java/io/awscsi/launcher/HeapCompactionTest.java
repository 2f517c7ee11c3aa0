package io.awscsi.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class HeapCompactionTest {

  private static final long SECOND = 1_000_000_000L;

  @Test
  void collectsOnceAfterABusySpellWhenCallsStoppedForTheQuietTime() {
    AtomicLong calls = new AtomicLong();
    HeapCompaction compaction = new HeapCompaction(calls::get, 0);
    assertThat(compaction.tick(60 * SECOND)).as("idle since start: nothing grew").isFalse();

    calls.addAndGet(500);
    assertThat(compaction.tick(65 * SECOND)).isFalse();
    calls.addAndGet(10);
    assertThat(compaction.tick(70 * SECOND)).isFalse();
    assertThat(compaction.tick(95 * SECOND)).as("25 s quiet").isFalse();
    assertThat(compaction.tick(100 * SECOND)).as("30 s quiet").isTrue();
    assertThat(compaction.tick(200 * SECOND)).as("once per spell").isFalse();

    calls.incrementAndGet();
    assertThat(compaction.tick(205 * SECOND)).isFalse();
    assertThat(compaction.tick(235 * SECOND)).isTrue();
  }

  @Test
  void probesAndPeriodicQuestionsAreNotWork() {
    assertThat(HeapCompaction.isWork("Probe")).isFalse();
    assertThat(HeapCompaction.isWork("NodeGetVolumeStats")).isFalse();
    assertThat(HeapCompaction.isWork("ListVolumes")).isFalse();
    assertThat(HeapCompaction.isWork("CreateVolume")).isTrue();
    assertThat(HeapCompaction.isWork("NodeStageVolume")).isTrue();
  }
}
