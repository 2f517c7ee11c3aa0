package io.awscsi.core.provider;

/** Answer of ValidateVolumeCapabilities for an existing volume. */
public sealed interface CapabilityCheck {

  record Confirmed() implements CapabilityCheck {}

  record Unsupported(String reason) implements CapabilityCheck {}
}
