package io.awscsi.core.testing;

import io.awscsi.core.errors.DriverException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Holds provider calls until the test opens it, so a test can observe a call that is still running (in-flight guard,
 * graceful shutdown). A gate made {@link #opened()} lets every call through at once.
 */
public final class CallGate {

  private final CountDownLatch entered = new CountDownLatch(1);
  private final CountDownLatch open;
  private final CountDownLatch interrupted = new CountDownLatch(1);

  private CallGate(boolean isOpen) {
    this.open = new CountDownLatch(isOpen ? 0 : 1);
  }

  public static CallGate opened() {
    return new CallGate(true);
  }

  public static CallGate closed() {
    return new CallGate(false);
  }

  /** Called by a fake provider: waits until the gate opens. An interrupt fails the call as a shutdown would. */
  public void pass() {
    entered.countDown();
    try {
      open.await();
    } catch (InterruptedException e) {
      interrupted.countDown();
      Thread.currentThread().interrupt();
      throw DriverException.unavailable("call interrupted while held at the test gate");
    }
  }

  /** Waits until a call is held at (or has passed) the gate. */
  public boolean awaitEntered(Duration timeout) throws InterruptedException {
    return entered.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  public void open() {
    open.countDown();
  }

  /** Whether a held call was interrupted instead of released. */
  public boolean wasInterrupted() {
    return interrupted.getCount() == 0;
  }

  /** Waits until a held call is interrupted. */
  public boolean awaitInterrupted(Duration timeout) throws InterruptedException {
    return interrupted.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }
}
