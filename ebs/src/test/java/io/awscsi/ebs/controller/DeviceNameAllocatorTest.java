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

  @Test
  void theMappingIsLearnedOnceAndKeptCurrentFromTheDriversOwnAttaches() {
    assertThat(allocator.needsMapping("i-1")).isTrue();
    allocator.mapped("i-1", Set.of("/dev/xvda", "/dev/xvdaa"), allocator.now());
    assertThat(allocator.needsMapping("i-1")).isFalse();

    Set<String> handedOut = new HashSet<>();
    for (int i = 0; i < 10; i++) {
      String name = allocator.allocate("i-1", Set.of()).orElseThrow();
      allocator.attached("i-1", name);
      assertThat(handedOut.add(name)).as("handed out twice: " + name).isTrue();
    }
    assertThat(handedOut).doesNotContain("/dev/xvdaa");
    // Without any new mapping, every name taken so far stays in use: a full instance has nothing left to give.
    for (int i = 0; i < DeviceNameAllocator.NAMES.size() - 11; i++) {
      allocator.attached("i-1", allocator.allocate("i-1", Set.of()).orElseThrow());
    }
    assertThat(allocator.allocate("i-1", Set.of())).isEmpty();
    assertThat(allocator.needsMapping("i-1")).isFalse();
  }

  @Test
  void aNameSeenDetachedIsFreeAgainWithoutADescribe() {
    allocator.mapped("i-1", Set.of("/dev/xvdaa"), allocator.now());
    for (int i = 1; i < DeviceNameAllocator.NAMES.size(); i++) {
      allocator.attached("i-1", allocator.allocate("i-1", Set.of()).orElseThrow());
    }
    assertThat(allocator.allocate("i-1", Set.of())).isEmpty();
    allocator.detached("i-1", "/dev/xvdba");
    assertThat(allocator.allocate("i-1", Set.of())).contains("/dev/xvdba");
    // The mapped name (not attached by this driver) frees up the same way once its detach was seen.
    allocator.detached("i-1", "/dev/xvdaa");
    assertThat(allocator.allocate("i-1", Set.of())).contains("/dev/xvdaa");
  }

  @Test
  void theMappingIsDescribedAgainWhenOldOrRefutedAndOthersAttachmentsThenShow() {
    allocator.mapped("i-1", Set.of(), allocator.now());
    now.addAndGet(DeviceNameAllocator.REFRESH_AFTER.toNanos() + 1);
    assertThat(allocator.needsMapping("i-1")).isTrue();
    allocator.mapped("i-1", Set.of("/dev/xvdaa"), allocator.now());
    assertThat(allocator.needsMapping("i-1")).isFalse();
    assertThat(allocator.allocate("i-1", Set.of())).contains("/dev/xvdab");

    allocator.refuted("i-1");
    assertThat(allocator.needsMapping("i-1")).isTrue();
    allocator.mapped("i-1", Set.of("/dev/xvdaa", "/dev/xvdac"), allocator.now());
    // xvdab is still reserved by the attach in progress; xvdac belongs to someone else now.
    assertThat(allocator.allocate("i-1", Set.of())).contains("/dev/xvdad");
  }

  @Test
  void aMappingAskedForBeforeTheDriversAttachCannotFreeItsName() {
    allocator.mapped("i-1", Set.of(), allocator.now());
    long askedBefore = allocator.now();
    now.addAndGet(1_000_000);
    String mine = allocator.allocate("i-1", Set.of()).orElseThrow();
    allocator.attached("i-1", mine);
    allocator.refuted("i-1");
    // The answer to a DescribeInstances sent before the attach does not list it, and must not free it.
    allocator.mapped("i-1", Set.of(), askedBefore);
    for (int i = 1; i < DeviceNameAllocator.NAMES.size(); i++) {
      assertThat(allocator.allocate("i-1", Set.of())).isPresent().get().isNotEqualTo(mine);
    }
    assertThat(allocator.allocate("i-1", Set.of())).isEmpty();
  }

  @Test
  void anAttachmentDetachedBySomeoneElseIsDroppedOnceTheMappingCanShowIt() {
    allocator.mapped("i-1", Set.of(), allocator.now());
    String mine = allocator.allocate("i-1", Set.of()).orElseThrow();
    allocator.attached("i-1", mine);
    now.addAndGet(DeviceNameAllocator.ATTACH_VISIBILITY.toNanos() + 1);
    allocator.refuted("i-1");
    allocator.mapped("i-1", Set.of(), allocator.now()); // an admin detached it: the mapping no longer lists it
    Set<String> left = new HashSet<>();
    while (true) {
      var name = allocator.allocate("i-1", Set.of());
      if (name.isEmpty()) {
        break;
      }
      left.add(name.get());
    }
    assertThat(left).contains(mine).hasSize(52);
  }

  @Test
  void nothingIsKeptForAnInstanceThatIsGone() {
    allocator.mapped("i-1", Set.of("/dev/xvdaa"), allocator.now());
    allocator.attached("i-1", allocator.allocate("i-1", Set.of()).orElseThrow());
    allocator.mapped("i-2", Set.of(), allocator.now());
    assertThat(allocator.instanceCount()).isEqualTo(2);
    allocator.forget("i-1");
    assertThat(allocator.instanceCount()).isEqualTo(1);
    assertThat(allocator.needsMapping("i-1")).isTrue();
  }
}
