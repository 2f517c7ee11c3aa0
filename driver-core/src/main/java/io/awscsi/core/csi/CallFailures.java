package io.awscsi.core.csi;


/**
 * Hands the cause of a failed call from the handler to the logging interceptor on the same thread, so unexpected
 * exceptions are logged (with their stack trace at debug level) while the client sees only the status.
 */
public final class CallFailures {

  private static final ThreadLocal<Throwable> LAST = new ThreadLocal<>();

  private CallFailures() {}

  static void remember(Throwable failure) {
    LAST.set(failure);
  }

  /** The cause recorded by the current thread's last failed call, cleared on read. */
  public static Throwable take() {
    Throwable t = LAST.get();
    LAST.remove();
    return t;
  }

}
