package io.awscsi.ebs.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.aws.call.CallDeadline;
import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class ModifyVolumeCoalescerTest {

  private final List<VolumeChange> applied = new CopyOnWriteArrayList<>();
  private final ModifyVolumeCoalescer coalescer = new ModifyVolumeCoalescer(Duration.ofMillis(300),
      (volumeId, change, deadline) -> {
        applied.add(change);
        return change.sizeGiB() > 0 ? change.sizeGiB() : 10;
      });

  private Future<Integer> submit(ExecutorService pool, String volumeId, VolumeChange change) {
    return pool.submit(() -> coalescer.submit(volumeId, change, CallDeadline.after(Duration.ofSeconds(10))));
  }

  @Test
  void expandAndModifyArrivingTogetherCostOneChange() throws Exception {
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<Integer> expand = submit(pool, "vol-1", VolumeChange.size(20));
      Thread.sleep(50);
      Future<Integer> modify = submit(pool, "vol-1", new VolumeChange(0, "io2", 4000, 0, Map.of("a", "1"), Set.of()));
      assertThat(expand.get()).isEqualTo(20);
      assertThat(modify.get()).isEqualTo(20);
    }
    assertThat(applied).containsExactly(new VolumeChange(20, "io2", 4000, 0, Map.of("a", "1"), Set.of()));
  }

  @Test
  void aConflictingRequestFailsAloneAndTheOthersProceed() throws Exception {
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<Integer> first = submit(pool, "vol-1", new VolumeChange(0, "gp3", 3000, 0, Map.of(), Set.of()));
      Thread.sleep(50);
      Future<Integer> conflicting = submit(pool, "vol-1", new VolumeChange(0, "io2", 0, 0, Map.of(), Set.of()));
      Future<Integer> compatible = submit(pool, "vol-1", VolumeChange.size(30));
      assertThat(first.get()).isEqualTo(30);
      assertThat(compatible.get()).isEqualTo(30);
      try {
        conflicting.get();
        throw new AssertionError("the conflicting request should fail");
      } catch (java.util.concurrent.ExecutionException e) {
        assertThat(e.getCause()).isInstanceOfSatisfying(DriverException.class,
            d -> assertThat(d.error()).isInstanceOf(DriverError.Aborted.class));
        assertThat(e.getCause()).hasMessageContaining("type");
      }
    }
    assertThat(applied).containsExactly(new VolumeChange(30, "gp3", 3000, 0, Map.of(), Set.of()));
  }

  @Test
  void differentVolumesAndLaterRequestsGetTheirOwnChange() throws Exception {
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<Integer> a = submit(pool, "vol-a", VolumeChange.size(11));
      Future<Integer> b = submit(pool, "vol-b", VolumeChange.size(12));
      assertThat(a.get()).isEqualTo(11);
      assertThat(b.get()).isEqualTo(12);
      assertThat(submit(pool, "vol-a", VolumeChange.size(13)).get()).isEqualTo(13);
    }
    assertThat(applied).hasSize(3);
  }

  @Test
  void aFailureReachesEveryMergedCaller() throws Exception {
    ModifyVolumeCoalescer failing = new ModifyVolumeCoalescer(Duration.ofMillis(200), (v, c, d) -> {
      throw DriverException.resourceExhausted("too many modifications of " + v);
    });
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      CallDeadline deadline = CallDeadline.after(Duration.ofSeconds(5));
      Future<Integer> one = pool.submit(() -> failing.submit("vol-1", VolumeChange.size(5), deadline));
      Future<Integer> two = pool.submit(() -> failing.submit("vol-1", new VolumeChange(0, "", 0, 200, Map.of(),
          Set.of()), deadline));
      for (Future<Integer> f : List.of(one, two)) {
        try {
          f.get();
          throw new AssertionError("should fail");
        } catch (java.util.concurrent.ExecutionException e) {
          assertThat(e.getCause()).hasMessageContaining("too many modifications of vol-1");
        }
      }
    }
  }

  @Test
  void tagChangesMergeAndConflictingTagValuesAreRefused() {
    VolumeChange a = new VolumeChange(0, "", 0, 0, Map.of("x", "1"), Set.of("old"));
    VolumeChange merged = a.merge(new VolumeChange(0, "", 0, 0, Map.of("y", "2"), Set.of("older")), "vol-1");
    assertThat(merged.addTags()).containsOnly(Map.entry("x", "1"), Map.entry("y", "2"));
    assertThat(merged.removeTags()).containsExactlyInAnyOrder("old", "older");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> a.merge(new VolumeChange(0, "", 0, 0, Map.of("x", "2"),
        Set.of()), "vol-1")).hasMessageContaining("tag x");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> a.merge(new VolumeChange(0, "", 0, 0, Map.of("old", "v"),
        Set.of()), "vol-1")).hasMessageContaining("tag old");
  }
}
