package io.awscsi.efs.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class AccessPointGidAllocatorTest {

  private static final String FS = "fs-0123abcd";
  private final InMemoryEfsCloud cloud = new InMemoryEfsCloud();
  private final AccessPointGidAllocator allocator = new AccessPointGidAllocator();

  private AccessPointGidAllocator.Reservation reserve(GidRange range) {
    allocator.listing(cloud, FS, allocator.begin());
    return allocator.reserve(FS, range);
  }

  @Test
  void skipsIdsUsedByExistingAccessPointsAsUidOrGid() {
    cloud.add(FS, 100, 100, "/a", Map.of());
    cloud.add(FS, 101, 7, "/b", Map.of());
    cloud.add(FS, 7, 102, "/c", Map.of());
    cloud.add("fs-99999999", 103, 103, "/d", Map.of());

    try (var r = reserve(new GidRange(100, 200))) {
      assertThat(r.id()).isEqualTo(103);
    }
  }

  @Test
  void aReservedIdIsNotHandedOutAgainUntilReleased() {
    GidRange range = new GidRange(100, 200);
    var first = reserve(range);
    var second = reserve(range);

    assertThat(second.id()).isNotEqualTo(first.id());
    first.close();
    second.close();
    try (var third = reserve(range)) {
      assertThat(third.id()).isEqualTo(100);
    }
  }

  @Test
  void aCreatedIdStaysUsedUntilAListingShowsIt() {
    GidRange range = new GidRange(100, 200);
    long begin = allocator.begin();
    allocator.listing(cloud, FS, begin);
    var reservation = allocator.reserve(FS, range);
    // The access point exists, but the listing every later call shares predates it.
    reservation.created();
    reservation.close();

    try (var next = allocator.reserve(FS, range)) {
      assertThat(next.id()).isNotEqualTo(reservation.id());
    }
  }

  @Test
  void aDeletedAccessPointsIdIsFreeAfterTheNextListing() {
    var ap = cloud.add(FS, 100, 100, "/a", Map.of());
    try (var r = reserve(new GidRange(100, 101))) {
      assertThat(r.id()).isEqualTo(101);
    }
    cloud.deleteAccessPoint(ap.accessPointId());

    try (var r = reserve(new GidRange(100, 101))) {
      assertThat(r.id()).isEqualTo(100);
    }
  }

  @Test
  void anExhaustedRangeIsResourceExhaustedSayingWhatToChange() {
    cloud.add(FS, 100, 100, "/a", Map.of());
    cloud.add(FS, 101, 101, "/b", Map.of());

    assertThatThrownBy(() -> reserve(new GidRange(100, 101)))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.ResourceExhausted.class))
        .hasMessageContaining("100-101").hasMessageContaining(FS).hasMessageContaining("widen gidRangeStart");
  }

  @Test
  void concurrentCallsGetDistinctIdsAndShareListings() throws Exception {
    InMemoryEfsCloud cloud = new InMemoryEfsCloud(20);
    int calls = 50;
    GidRange range = new GidRange(1000, 1000 + calls - 1);
    Set<Long> ids = ConcurrentHashMap.newKeySet();
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < calls; i++) {
        int n = i;
        futures.add(pool.submit(() -> {
          start.await();
          long begin = allocator.begin();
          allocator.listing(cloud, FS, begin);
          try (var r = allocator.reserve(FS, range)) {
            ids.add(r.id());
            cloud.add(FS, r.id(), r.id(), "/v" + n, Map.of());
            r.created();
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get();
      }
    }

    assertThat(ids).hasSize(calls).allMatch(range::contains);
    assertThat(cloud.listings()).isLessThan(calls);
    assertThat(allocator.reservedCount(FS)).isZero();
  }

  @Test
  void aListingIsSharedOnlyWithCallsThatBeganBeforeIt() {
    long before = allocator.begin();
    var first = allocator.listing(cloud, FS, before);
    assertThat(allocator.listing(cloud, FS, before)).isSameAs(first);

    long after = allocator.begin();
    assertThat(allocator.listing(cloud, FS, after)).isNotSameAs(first);
    assertThat(cloud.listings()).isEqualTo(2);
  }
}
