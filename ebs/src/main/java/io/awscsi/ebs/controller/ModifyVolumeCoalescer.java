package io.awscsi.ebs.controller;

import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.CallDeadline;
import io.awscsi.core.errors.DriverException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Gathers expand and modify requests for one volume that arrive within a window (upstream's
 * {@code --modify-volume-request-handler-timeout}, 2 s) and runs them as one change: EC2 allows only a few
 * modifications per volume per day, so a resize and an attribute change sent together must not spend two. A request
 * that contradicts one already gathered fails alone; every other caller gets the one result.
 */
final class ModifyVolumeCoalescer {

  /** Applies one merged change and returns the volume's size in GiB afterwards. */
  @FunctionalInterface
  interface Applier {
    int apply(String volumeId, VolumeChange change, CallDeadline deadline);
  }

  private static final class Pending {
    VolumeChange change;
    Instant deadline;
    final CompletableFuture<Integer> result = new CompletableFuture<>();

    Pending(VolumeChange change, Instant deadline) {
      this.change = change;
      this.deadline = deadline;
    }
  }

  private final Duration window;
  private final Applier applier;
  private final Map<String, Pending> pending = new HashMap<>();

  ModifyVolumeCoalescer(Duration window, Applier applier) {
    this.window = window;
    this.applier = applier;
  }

  /** Adds {@code change} to the volume's pending change and waits for the merged result (the size in GiB). */
  int submit(String volumeId, VolumeChange change, CallDeadline deadline) {
    Pending mine;
    boolean first = false;
    synchronized (pending) {
      mine = pending.get(volumeId);
      if (mine == null) {
        mine = new Pending(change, deadline.at());
        pending.put(volumeId, mine);
        first = true;
      } else {
        mine.change = mine.change.merge(change, volumeId);
        if (deadline.at().isAfter(mine.deadline)) {
          mine.deadline = deadline.at();
        }
      }
    }
    if (first) {
      Thread.ofVirtual().name("modify-" + volumeId).start(() -> runAfterWindow(volumeId));
    }
    return await(mine, volumeId, deadline);
  }

  private void runAfterWindow(String volumeId) {
    try {
      Thread.sleep(window);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Pending batch;
    synchronized (pending) {
      batch = pending.remove(volumeId);
    }
    try {
      batch.result.complete(applier.apply(volumeId, batch.change, new CallDeadline(batch.deadline)));
    } catch (RuntimeException e) {
      batch.result.completeExceptionally(e);
    }
  }

  private static int await(Pending p, String volumeId, CallDeadline deadline) {
    try {
      return p.result.get(deadline.remaining().toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw DriverException.deadlineExceeded("the modification of volume " + volumeId
          + " did not finish before the call's deadline; it goes on and the retry will find it");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw DriverException.aborted("interrupted while modifying volume " + volumeId);
    } catch (ExecutionException e) {
      throw switch (e.getCause()) {
        case DriverException d -> new DriverException(d.error(), d);
        case AwsCallException c -> Ec2Failures.toDriver(c, "modifying volume " + volumeId);
        default -> DriverException.internal("modifying volume " + volumeId + " failed: " + e.getCause(), e);
      };
    }
  }
}
