package io.awscsi.efs.controller;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.CallBudget;
import io.awscsi.core.provider.WorkProgress;
import io.awscsi.efs.cloud.AccessPoint;
import io.awscsi.efs.cloud.EfsCloud;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Hands out POSIX ids for access points so that no id is given twice on one file system.
 *
 * <p>Used ids come from the file system's access points (every page read), so they survive a restart. An id being
 * allocated is <em>reserved</em> until its access point exists or the create fails; once created it stays
 * <em>recently created</em> until a listing that began after the creation shows it. Together these close the race
 * upstream has, where two concurrent CreateVolume calls read the same list and pick the same id.
 *
 * <p>Listings are coalesced: a call needs a listing that began after the call did (as fresh as listing on every
 * call), and concurrent calls share one. Fifty concurrent CreateVolume calls then cost two or three listings instead
 * of fifty, which matters because a listing of 10000 access points is ten API calls.
 */
public final class AccessPointGidAllocator {

  /** The access points of a file system as one listing found them; {@code sequence} orders listings. */
  public record Listing(long sequence, List<AccessPoint> accessPoints) {

    public Listing {
      accessPoints = List.copyOf(accessPoints);
    }

    public Optional<AccessPoint> byClientToken(String clientToken) {
      return accessPoints.stream().filter(a -> a.clientToken().equals(clientToken)).findFirst();
    }
  }

  /** An id held for one CreateVolume; close it in every case, after {@link #created()} when the access point exists. */
  public interface Reservation extends AutoCloseable {

    long id();

    /** The access point with this id exists: keep the id used until a listing shows it. */
    void created();

    /** Frees the id unless {@link #created()} was called. */
    @Override
    void close();
  }

  private static final class FileSystemState {
    final ReentrantLock lock = new ReentrantLock();
    Listing listing;
    final Set<Long> reserved = new HashSet<>();
    /** Created ids by the sequence of the newest listing that had begun when the creation finished. */
    final Map<Long, Long> created = new HashMap<>();
  }

  /** The wait for a concurrent listing outside a CSI call (tests). */
  private static final Duration LISTING_WAIT_FALLBACK = Duration.ofSeconds(60);

  private final AtomicLong sequence = new AtomicLong();
  private final Map<String, FileSystemState> fileSystems = new ConcurrentHashMap<>();

  /** Marks the start of a CreateVolume; pass it to {@link #listing} so the call sees a listing newer than itself. */
  public long begin() {
    return sequence.get();
  }

  /**
   * The file system's access points from a listing that began after {@code notBefore}; made now, or shared with
   * concurrent calls.
   */
  public Listing listing(EfsCloud cloud, String fileSystemId, long notBefore) {
    FileSystemState state = state(fileSystemId);
    // A concurrent call may be listing with EFS frozen: wait no longer than this call's own deadline.
    Duration left = Duration.between(Instant.now(), CallBudget.deadline(LISTING_WAIT_FALLBACK));
    try (var waiting = WorkProgress.waitingOn("the DescribeAccessPoints listing of " + fileSystemId
        + " that a concurrent CreateVolume is making")) {
      if (!state.lock.tryLock(Math.max(0, left.toNanos()), TimeUnit.NANOSECONDS)) {
        throw DriverException.deadlineExceeded("waiting for the DescribeAccessPoints listing of " + fileSystemId
            + " that a concurrent CreateVolume is making: EFS did not answer it before this call's deadline");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw DriverException.aborted("interrupted while waiting for the access point listing of " + fileSystemId);
    }
    try {
      if (state.listing != null && state.listing.sequence() > notBefore) {
        return state.listing;
      }
      long started = sequence.incrementAndGet();
      Listing fresh = new Listing(started, cloud.listAccessPoints(fileSystemId));
      state.listing = fresh;
      // Anything created before this listing began is in it, or has been deleted since: the listing now speaks for it.
      state.created.values().removeIf(finished -> finished < started);
      return fresh;
    } finally {
      state.lock.unlock();
    }
  }

  /**
   * Reserves the lowest id of the range that no access point, reservation or recent creation uses. Call
   * {@link #listing} for the file system first.
   *
   * @throws DriverException ResourceExhausted when every id of the range is taken
   */
  public Reservation reserve(String fileSystemId, GidRange range) {
    FileSystemState state = state(fileSystemId);
    state.lock.lock();
    try {
      if (state.listing == null) {
        throw new IllegalStateException("reserve before listing " + fileSystemId);
      }
      Set<Long> used = new HashSet<>(state.reserved);
      used.addAll(state.created.keySet());
      for (AccessPoint a : state.listing.accessPoints()) {
        // An allocated id may be the uid, the gid or both (one of them can be fixed by the StorageClass).
        used.add(a.uid());
        used.add(a.gid());
      }
      for (long id = range.start(); id <= range.end(); id++) {
        if (!used.contains(id)) {
          state.reserved.add(id);
          return new HeldId(state, id);
        }
      }
      long taken = used.stream().filter(range::contains).count();
      throw DriverException.resourceExhausted("no free POSIX id in gidRangeStart-gidRangeEnd " + range
          + " on file system " + fileSystemId + ": all " + taken + " ids are used by access points or creations in "
          + "progress; widen gidRangeStart/gidRangeEnd in the StorageClass, delete unused volumes, or use another "
          + "file system");
    } finally {
      state.lock.unlock();
    }
  }

  /** Ids held by CreateVolume calls in progress (for tests and diagnostics). */
  int reservedCount(String fileSystemId) {
    FileSystemState state = state(fileSystemId);
    state.lock.lock();
    try {
      return state.reserved.size();
    } finally {
      state.lock.unlock();
    }
  }

  private FileSystemState state(String fileSystemId) {
    return fileSystems.computeIfAbsent(fileSystemId, id -> new FileSystemState());
  }

  private final class HeldId implements Reservation {
    private final FileSystemState state;
    private final long id;
    private boolean done;

    HeldId(FileSystemState state, long id) {
      this.state = state;
      this.id = id;
    }

    @Override
    public long id() {
      return id;
    }

    @Override
    public void created() {
      state.lock.lock();
      try {
        if (!done) {
          state.reserved.remove(id);
          state.created.put(id, sequence.get());
          done = true;
        }
      } finally {
        state.lock.unlock();
      }
    }

    @Override
    public void close() {
      state.lock.lock();
      try {
        if (!done) {
          state.reserved.remove(id);
          done = true;
        }
      } finally {
        state.lock.unlock();
      }
    }
  }
}
