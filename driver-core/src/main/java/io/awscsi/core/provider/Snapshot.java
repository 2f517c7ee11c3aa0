package io.awscsi.core.provider;

import java.time.Instant;

/** A snapshot as the CO sees it. */
public record Snapshot(String snapshotId, String sourceVolumeId, long sizeBytes, Instant createdAt,
    boolean readyToUse) {}
