package io.awscsi.ebs.node;

import java.util.Locale;

/** EBS volume ids as devices show them: {@code vol-0123...} is serial {@code vol0123...}. */
final class VolumeIds {

  private VolumeIds() {}

  /** The id as an NVMe serial and by-id link carry it: without the dash. */
  static String serialForm(String volumeId) {
    return volumeId.replace("-", "").toLowerCase(Locale.ROOT);
  }

  /** Whether a device identity (serial, or an id derived from a backing file) names this volume. */
  static boolean matches(String identity, String volumeId) {
    return serialForm(identity.strip()).equals(serialForm(volumeId));
  }
}
