package io.awscsi.core.provider;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Readiness from the driver's own calls to a dependency (a cloud API), without calls of its own: ready while the
 * latest call got an answer (any answer, an error included: the service is there), not ready from a call that got
 * none (network, server fault, timeout, refused credentials) until a later call gets one. Probes stay free and a
 * cut-off controller says so at the first call that finds out.
 */
public final class Reachability {

  /** What the latest call found. */
  private record Outcome(boolean answered, String api, String reason, Instant at, int unansweredInARow) {}

  private final String service;
  private final AtomicReference<Outcome> latest = new AtomicReference<>();

  /** {@code service} names the dependency in the not-ready reason, e.g. "EC2". */
  public Reachability(String service) {
    this.service = service;
  }

  /** The call of {@code api} got an answer. */
  public void answered(String api) {
    Outcome now = latest.get();
    if (now == null || !now.answered() || !now.api().equals(api)) {
      latest.set(new Outcome(true, api, "", Instant.now(), 0));
    }
  }

  /** The call of {@code api} got no answer, for {@code reason}. */
  public void unanswered(String api, String reason) {
    latest.updateAndGet(before -> new Outcome(false, api, reason, Instant.now(),
        before == null || before.answered() ? 1 : before.unansweredInARow() + 1));
  }

  /** Ready unless the latest call got no answer; before any call there is nothing against it. */
  public Readiness readiness() {
    Outcome now = latest.get();
    if (now == null || now.answered()) {
      return Readiness.ready();
    }
    long ago = Duration.between(now.at(), Instant.now()).toSeconds();
    return new Readiness.NotReady(service + " did not answer the driver's " + now.api() + " call " + ago
        + " s ago (" + now.reason() + ")" + (now.unansweredInARow() > 1 ? "; " + now.unansweredInARow()
        + " calls in a row got no answer" : "") + "; check the endpoint, the network and the IAM role");
  }
}
