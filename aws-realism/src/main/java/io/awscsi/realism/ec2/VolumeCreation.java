package io.awscsi.realism.ec2;

import java.time.Instant;

/** A volume created through the proxy: {@code creating} until {@code availableAt}. */
public record VolumeCreation(String volumeId, Instant availableAt) {

  public boolean creating(Instant now) {
    return now.isBefore(availableAt);
  }
}
