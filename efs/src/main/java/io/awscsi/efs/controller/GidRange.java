package io.awscsi.efs.controller;

/** POSIX ids the allocator may hand out, both ends included. */
public record GidRange(long start, long end) {

  /** Upstream's code default (DefaultGidMin 50000, DefaultGidMax = min + the 10000 access-point limit). */
  public static final GidRange DEFAULT = new GidRange(50000, 60000);

  public GidRange {
    if (start <= 0 || end <= start) {
      throw new IllegalArgumentException("need 0 < start < end, got " + start + "-" + end);
    }
  }

  public long size() {
    return end - start + 1;
  }

  public boolean contains(long id) {
    return id >= start && id <= end;
  }

  @Override
  public String toString() {
    return start + "-" + end;
  }
}
