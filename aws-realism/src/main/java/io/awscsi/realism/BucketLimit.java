package io.awscsi.realism;

/** Size and refill rate of one API token bucket (EC2 throttles each API action with its own bucket). */
public record BucketLimit(int capacity, double refillPerSecond) {

  public BucketLimit {
    if (capacity < 1) {
      throw new IllegalArgumentException("bucket capacity must be at least 1, got " + capacity);
    }
    if (!(refillPerSecond > 0)) {
      throw new IllegalArgumentException("bucket refill rate must be positive, got " + refillPerSecond);
    }
  }
}
