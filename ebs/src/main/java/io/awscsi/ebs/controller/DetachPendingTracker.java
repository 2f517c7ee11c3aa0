package io.awscsi.ebs.controller;

import io.awscsi.core.metrics.MetricsRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Upstream's {@code aws_ebs_csi_ec2_detach_pending_seconds_total}: for each attachment the driver is waiting to see
 * gone, the seconds since it first saw it still there, reported only once that exceeds {@link #REPORTED_AFTER} (a
 * normal detach takes seconds; one that takes minutes is what an operator wants to see before Kubernetes'
 * 6-minute force-detach). Computed at scrape time; an attachment is dropped once seen detached or published again.
 */
final class DetachPendingTracker {

  static final String METRIC = "aws_ebs_csi_ec2_detach_pending_seconds_total";
  /** Detaches pending for less than this are not reported, as upstream. */
  static final Duration REPORTED_AFTER = Duration.ofSeconds(60);

  private record Key(String volumeId, String instanceId) {}

  private record Pending(Instant since, String state) {}

  private final InstantSource clock;
  private final Map<Key, Pending> pending = new ConcurrentHashMap<>();

  DetachPendingTracker(InstantSource clock) {
    this.clock = clock;
  }

  void register(MetricsRegistry metrics) {
    metrics.computedCounter(METRIC, "Seconds since the driver first saw an attachment it is detaching still not "
        + "detached (only after 60 s)", this::values, "volume_id", "instance_id", "attachment_state");
  }

  /** The attachment is still there ({@code state} as EC2 reports it, e.g. {@code detaching}) while a detach waits. */
  void stillAttached(String volumeId, String instanceId, String state) {
    pending.merge(new Key(volumeId, instanceId), new Pending(clock.instant(), state),
        (old, now) -> new Pending(old.since(), now.state()));
  }

  /** The attachment is gone, or wanted again: stop reporting it. */
  void forget(String volumeId, String instanceId) {
    pending.remove(new Key(volumeId, instanceId));
  }

  /** Label values (volume_id, instance_id, attachment_state) -> seconds pending, for those pending long enough. */
  Map<List<String>, Double> values() {
    Instant now = clock.instant();
    Map<List<String>, Double> out = new LinkedHashMap<>();
    pending.forEach((key, p) -> {
      Duration age = Duration.between(p.since(), now);
      if (age.compareTo(REPORTED_AFTER) > 0) {
        out.put(List.of(key.volumeId(), key.instanceId(), p.state()), age.toMillis() / 1000.0);
      }
    });
    return out;
  }
}
