package io.awscsi.core.provider;

/** A provider's own readiness check, answered by Probe and /healthz. */
public sealed interface Readiness {

  record Ready() implements Readiness {}

  record NotReady(String reason) implements Readiness {}

  static Readiness ready() {
    return new Ready();
  }
}
