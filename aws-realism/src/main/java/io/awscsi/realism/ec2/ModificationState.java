package io.awscsi.realism.ec2;

import java.util.Locale;

/** EC2's volume modification states ({@code failed} is only produced by injected faults, not by the timeline). */
public enum ModificationState {
  MODIFYING, OPTIMIZING, COMPLETED;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public boolean inProgress() {
    return this != COMPLETED;
  }
}
