package io.awscsi.ebs.cloud;

import java.time.Instant;

/**
 * EC2 LockSnapshot arguments: {@code mode} governance or compliance; a duration in days or an expiration date;
 * {@code coolOffHours} only for compliance. 0 and null mean "not set".
 */
public record SnapshotLock(String mode, int durationDays, Instant expiresAt, int coolOffHours) {}
