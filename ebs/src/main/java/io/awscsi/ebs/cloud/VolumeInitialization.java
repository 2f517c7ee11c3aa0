package io.awscsi.ebs.cloud;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What EC2's DescribeVolumeStatus says of a volume's initialization: a volume restored from a snapshot (or copied)
 * fetches its blocks in the background, and reads of blocks not fetched yet are slow until it is complete.
 * {@code progressPercent} and {@code timeLeft} are empty when EC2 does not say (it gives an estimate only for a volume
 * created with a volume initialization rate).
 */
public record VolumeInitialization(boolean initializing, OptionalInt progressPercent, Optional<Duration> timeLeft) {

  /** A volume that is not initializing: never restored, or done. */
  public static final VolumeInitialization COMPLETE = new VolumeInitialization(false, OptionalInt.empty(),
      Optional.empty());

  /** How far it is, for messages: {@code "42% done, about 300 s left"}, or {@code "progress not reported"}. */
  public String progress() {
    String done = progressPercent.isPresent() ? progressPercent.getAsInt() + "% done" : "";
    String left = timeLeft.map(d -> "about " + d.toSeconds() + " s left").orElse("");
    if (done.isEmpty() && left.isEmpty()) {
      return "progress not reported";
    }
    return done.isEmpty() ? left : left.isEmpty() ? done : done + ", " + left;
  }
}
