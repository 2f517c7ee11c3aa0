package io.awscsi.realism.ec2;

import java.util.Locale;

/** EC2's volume attachment states. */
public enum AttachmentState {
  ATTACHING, ATTACHED, DETACHING, DETACHED;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
