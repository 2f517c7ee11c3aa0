package io.awscsi.core.registration;

import java.time.Instant;

/** What the kubelet last told the plugin about its registration. */
public sealed interface RegistrationState {

  /** The socket is served; the kubelet has not reported a registration on it yet. */
  record Waiting(Instant since) implements RegistrationState {}

  /** The kubelet reported the plugin registered. */
  record Registered(Instant at) implements RegistrationState {}

  /**
   * The kubelet reported the registration failed, with its error; the state holds until the kubelet reports a
   * registration again (the socket is served anew after a back-off meanwhile).
   */
  record Failed(String error, Instant at) implements RegistrationState {}
}
