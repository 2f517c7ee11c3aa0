package io.awscsi.ebs.controller;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Chooses the device name for an attachment, per instance, from upstream's range /dev/xvdaa to /dev/xvdbz. Names in
 * use on the instance and names reserved by attachments in progress are skipped. Names go round-robin rather than
 * lowest-free-first, because reusing a name that was just released is a known way to get an attachment stuck in
 * "attaching"; names that recently failed are tried only when nothing else is left.
 */
public final class DeviceNameAllocator {

  static final List<String> NAMES = names();
  static final Duration FAILED_NAME_MEMORY = Duration.ofMinutes(10);

  private static final class InstanceNames {
    final Set<String> reserved = new HashSet<>();
    final Map<String, Long> failedUntil = new HashMap<>();
    int next;
  }

  private final Map<String, InstanceNames> instances = new HashMap<>();
  private final LongSupplier nanoClock;

  public DeviceNameAllocator(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
  }

  public DeviceNameAllocator() {
    this(System::nanoTime);
  }

  private static List<String> names() {
    List<String> all = new ArrayList<>();
    for (char first : new char[] {'a', 'b'}) {
      for (char second = 'a'; second <= 'z'; second++) {
        all.add("/dev/xvd" + first + second);
      }
    }
    return List.copyOf(all);
  }

  /**
   * Reserves a name on {@code instanceId} that is not in {@code inUse}; empty when all names are taken. The
   * reservation holds until {@link #release} or {@link #failed}.
   */
  public synchronized Optional<String> allocate(String instanceId, Set<String> inUse) {
    InstanceNames state = instances.computeIfAbsent(instanceId, id -> new InstanceNames());
    long now = nanoClock.getAsLong();
    state.failedUntil.values().removeIf(until -> until - now <= 0);
    String fallback = null;
    int fallbackIndex = -1;
    for (int i = 0; i < NAMES.size(); i++) {
      int index = (state.next + i) % NAMES.size();
      String name = NAMES.get(index);
      if (inUse.contains(name) || state.reserved.contains(name)) {
        continue;
      }
      if (state.failedUntil.containsKey(name)) {
        if (fallback == null) {
          fallback = name;
          fallbackIndex = index;
        }
        continue;
      }
      return Optional.of(take(state, name, index));
    }
    return fallback == null ? Optional.empty() : Optional.of(take(state, fallback, fallbackIndex));
  }

  private static String take(InstanceNames state, String name, int index) {
    state.reserved.add(name);
    state.next = (index + 1) % NAMES.size();
    return name;
  }

  /**
   * Ends the reservation: the attachment finished (EC2 now lists the name) or was never made. The round-robin
   * position stays where it is, so the next attachment does not reuse the name just released.
   */
  public synchronized void release(String instanceId, String name) {
    InstanceNames state = instances.get(instanceId);
    if (state != null) {
      state.reserved.remove(name);
    }
  }

  /** Ends the reservation and avoids the name on this instance for a while (EC2 refused it or it got stuck). */
  public synchronized void failed(String instanceId, String name) {
    InstanceNames state = instances.computeIfAbsent(instanceId, id -> new InstanceNames());
    state.reserved.remove(name);
    state.failedUntil.put(name, nanoClock.getAsLong() + FAILED_NAME_MEMORY.toNanos());
  }
}
