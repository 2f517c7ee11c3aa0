package io.awscsi.ebs.controller;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Chooses the device name for an attachment, per instance, from upstream's range /dev/xvdaa to /dev/xvdbz, and keeps
 * the instance's names in use current without describing the instance for every attach.
 *
 * <p>A name is in use when the instance's block-device mapping listed it at the last DescribeInstances, when this
 * driver attached a volume with it since (until it sees that volume detached), or while an attachment in progress
 * holds it reserved. The mapping is learned once and then kept current from the driver's own attaches and detaches;
 * it is learned again when it is older than {@link #REFRESH_AFTER} or when EC2 refused a name as in use (an
 * attachment made by someone else), so other attachments are seen too. A name is never handed out twice: a name
 * leaves "in use" only when this driver saw its own volume detached, or when a later mapping no longer lists it.
 *
 * <p>Names go round-robin rather than lowest-free-first, because reusing a name that was just released is a known
 * way to get an attachment stuck in "attaching"; names that recently failed are tried only when nothing else is left.
 *
 * <p>On an instance type with several EBS cards each name in use also has the card its volume is on (from the
 * mapping's {@code EbsCardIndex}, or the card this driver chose), and {@link #chooseCard} picks the card for a new
 * attachment as upstream does: the one with the fewest volumes, the lower index on a tie.
 */
public final class DeviceNameAllocator {

  static final List<String> NAMES = names();
  static final Duration FAILED_NAME_MEMORY = Duration.ofMinutes(10);
  /** How long a learned mapping is used before it is described again (attachments made by others show then). */
  static final Duration REFRESH_AFTER = Duration.ofMinutes(5);
  /**
   * How long after this driver attached a name a mapping that does not list it is not believed: DescribeInstances is
   * eventually consistent, and a mapping asked for before the attach (answered after it) cannot list it.
   */
  static final Duration ATTACH_VISIBILITY = Duration.ofSeconds(30);

  private static final class InstanceNames {
    final Set<String> reserved = new HashSet<>();
    final Map<String, Long> failedUntil = new HashMap<>();
    /** Names the last mapping listed; null until one was learned. */
    Set<String> mapped;
    long mappedAt;
    boolean stale;
    /** Names this driver attached and has not seen detached, with when. */
    final Map<String, Long> attachedHere = new HashMap<>();
    /** The EBS card of names in use that have one (only meaningful while the name is in use). */
    final Map<String, Integer> cards = new HashMap<>();
    int next;

    boolean inUse(String name) {
      return reserved.contains(name) || attachedHere.containsKey(name) || mapped != null && mapped.contains(name);
    }
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

  /** The time to pass to {@link #mapped} for a DescribeInstances that starts now. */
  public long now() {
    return nanoClock.getAsLong();
  }

  /** Whether the instance's mapping must be described before the next allocation (none yet, old, or refuted). */
  public synchronized boolean needsMapping(String instanceId) {
    InstanceNames state = instances.get(instanceId);
    return state == null || state.mapped == null || state.stale
        || nanoClock.getAsLong() - state.mappedAt > REFRESH_AFTER.toNanos();
  }

  /**
   * The instance's block-device mapping as a DescribeInstances that started at {@code askedAt} (from {@link #now})
   * answered. Names this driver attached shortly before are kept even if the answer does not list them yet; older
   * ones it does not list were detached by someone else.
   */
  public void mapped(String instanceId, Set<String> names, long askedAt) {
    mapped(instanceId, names, Map.of(), askedAt);
  }

  /** As {@link #mapped(String, Set, long)}, with the EBS card of the mapped names that have one. */
  public synchronized void mapped(String instanceId, Set<String> names, Map<String, Integer> cardByName,
      long askedAt) {
    InstanceNames state = instances.computeIfAbsent(instanceId, id -> new InstanceNames());
    if (state.mapped != null && !state.stale && askedAt - state.mappedAt < 0) {
      return; // a newer mapping is already known
    }
    for (String name : names) {
      if (cardByName.containsKey(name)) {
        state.cards.put(name, cardByName.get(name));
      } else {
        state.cards.remove(name);
      }
    }
    state.mapped = Set.copyOf(names);
    state.mappedAt = askedAt;
    state.stale = false;
    state.attachedHere.entrySet().removeIf(e -> !names.contains(e.getKey())
        && askedAt - e.getValue() > ATTACH_VISIBILITY.toNanos());
  }

  /** EC2 refused a name as in use: the mapping missed an attachment, so it is described again before the next use. */
  public synchronized void refuted(String instanceId) {
    InstanceNames state = instances.get(instanceId);
    if (state != null) {
      state.stale = true;
    }
  }

  /** The instance is gone: nothing about it is kept. */
  public synchronized void forget(String instanceId) {
    instances.remove(instanceId);
  }

  /**
   * Reserves a name on {@code instanceId} that is neither in use nor in {@code alsoInUse}; empty when all names are
   * taken. The reservation holds until {@link #attached}, {@link #release} or {@link #failed}.
   */
  public synchronized Optional<String> allocate(String instanceId, Set<String> alsoInUse) {
    InstanceNames state = instances.computeIfAbsent(instanceId, id -> new InstanceNames());
    long now = nanoClock.getAsLong();
    state.failedUntil.values().removeIf(until -> until - now <= 0);
    String fallback = null;
    int fallbackIndex = -1;
    for (int i = 0; i < NAMES.size(); i++) {
      int index = (state.next + i) % NAMES.size();
      String name = NAMES.get(index);
      if (alsoInUse.contains(name) || state.reserved.contains(name) || state.attachedHere.containsKey(name)
          || state.mapped != null && state.mapped.contains(name)) {
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
   * The EBS card for the attachment about to be made with {@code name} (reserved by {@link #allocate}) on an instance
   * with {@code cardCount} cards, remembered with the name: as upstream's {@code getNextCardIndex}, the card with the
   * fewest volumes among the instance's names in use (mapped, attached here, reserved), the lower index on a tie.
   * Empty on an instance with one card, where EC2 takes no card index.
   */
  public synchronized OptionalInt chooseCard(String instanceId, String name, int cardCount) {
    if (cardCount <= 1) {
      return OptionalInt.empty();
    }
    InstanceNames state = instances.computeIfAbsent(instanceId, id -> new InstanceNames());
    int[] volumes = new int[cardCount];
    state.cards.forEach((other, card) -> {
      if (!other.equals(name) && card >= 0 && card < cardCount && state.inUse(other)) {
        volumes[card]++;
      }
    });
    int chosen = 0;
    for (int card = 1; card < cardCount; card++) {
      if (volumes[card] < volumes[chosen]) {
        chosen = card;
      }
    }
    state.cards.put(name, chosen);
    return OptionalInt.of(chosen);
  }

  /** EC2 took an attachment with this name (the reservation, if any, becomes "attached here"). */
  public synchronized void attached(String instanceId, String name) {
    InstanceNames state = instances.computeIfAbsent(instanceId, id -> new InstanceNames());
    state.reserved.remove(name);
    state.attachedHere.put(name, nanoClock.getAsLong());
  }

  /**
   * This driver saw its volume with this name detached from the instance: the name is free again. The round-robin
   * position stays where it is, so the next attachment does not reuse the name just released.
   */
  public synchronized void detached(String instanceId, String name) {
    InstanceNames state = instances.get(instanceId);
    if (state != null) {
      state.attachedHere.remove(name);
      if (state.mapped != null && state.mapped.contains(name)) {
        Set<String> rest = new HashSet<>(state.mapped);
        rest.remove(name);
        state.mapped = Set.copyOf(rest);
      }
    }
  }

  /** Ends a reservation whose attachment was never made. */
  public synchronized void release(String instanceId, String name) {
    InstanceNames state = instances.get(instanceId);
    if (state != null) {
      state.reserved.remove(name);
    }
  }

  /**
   * Ends the reservation (or the attachment here) and avoids the name on this instance for a while: EC2 refused it,
   * or the attachment got stuck and was detached.
   */
  public synchronized void failed(String instanceId, String name) {
    InstanceNames state = instances.computeIfAbsent(instanceId, id -> new InstanceNames());
    state.reserved.remove(name);
    state.attachedHere.remove(name);
    state.failedUntil.put(name, nanoClock.getAsLong() + FAILED_NAME_MEMORY.toNanos());
  }

  /** Instances with state kept (for tests: it is per instance, never per volume). */
  synchronized int instanceCount() {
    return instances.size();
  }
}
