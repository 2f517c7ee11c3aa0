package io.awscsi.ebs.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DeviceNameAllocatorTest {

  private final AtomicLong now = new AtomicLong();
  private final DeviceNameAllocator allocator = new DeviceNameAllocator(now::get);

  @Test
  void rangeIsUpstreamsXvdaaToXvdbz() {
    assertThat(DeviceNameAllocator.NAMES).hasSize(52).startsWith("/dev/xvdaa").endsWith("/dev/xvdbz");
  }

  @Test
  void skipsNamesInUseAndReserved() {
    assertThat(allocator.allocate("i-1", Set.of("/dev/xvdaa", "/dev/xvdab"))).contains("/dev/xvdac");
    assertThat(allocator.allocate("i-1", Set.of("/dev/xvdaa", "/dev/xvdab"))).contains("/dev/xvdad");
  }

  @Test
  void doesNotReuseAJustReleasedName() {
    String first = allocator.allocate("i-1", Set.of()).orElseThrow();
    allocator.release("i-1", first);
    assertThat(allocator.allocate("i-1", Set.of())).isNotEqualTo(first).contains("/dev/xvdab");
  }

  @Test
  void instancesHaveTheirOwnNames() {
    assertThat(allocator.allocate("i-1", Set.of())).contains("/dev/xvdaa");
    assertThat(allocator.allocate("i-2", Set.of())).contains("/dev/xvdaa");
  }

  @Test
  void failedNamesAreTriedLastAndForgottenLater() {
    Set<String> inUse = new HashSet<>(DeviceNameAllocator.NAMES);
    inUse.remove("/dev/xvdaa");
    inUse.remove("/dev/xvdbz");
    String first = allocator.allocate("i-1", inUse).orElseThrow();
    assertThat(first).isEqualTo("/dev/xvdaa");
    allocator.failed("i-1", first);
    assertThat(allocator.allocate("i-1", inUse)).contains("/dev/xvdbz");
    // Only the failed name is left: it is still offered rather than nothing.
    assertThat(allocator.allocate("i-1", inUse)).contains("/dev/xvdaa");
  }

  @Test
  void exhaustedInstanceHasNoName() {
    assertThat(allocator.allocate("i-1", Set.copyOf(DeviceNameAllocator.NAMES))).isEmpty();
    for (int i = 0; i < 52; i++) {
      assertThat(allocator.allocate("i-2", Set.of())).isPresent();
    }
    assertThat(allocator.allocate("i-2", Set.of())).isEmpty();
  }

  @Test
  void failedNameMemoryExpires() {
    Set<String> inUse = new HashSet<>(DeviceNameAllocator.NAMES);
    inUse.remove("/dev/xvdaa");
    inUse.remove("/dev/xvdab");
    allocator.failed("i-1", "/dev/xvdaa");
    assertThat(allocator.allocate("i-1", inUse)).contains("/dev/xvdab");
    allocator.release("i-1", "/dev/xvdab");
    now.addAndGet(DeviceNameAllocator.FAILED_NAME_MEMORY.toNanos() + 1);
    inUse.add("/dev/xvdab");
    assertThat(allocator.allocate("i-1", inUse)).contains("/dev/xvdaa");
  }
}
