package io.awscsi.core.provider;

/**
 * ListSnapshots filters; empty strings mean "not set". {@code maxEntries} 0 means no limit. A token the provider
 * did not issue must be answered with an Aborted error, as the spec requires.
 */
public record SnapshotQuery(String snapshotId, String sourceVolumeId, int maxEntries, String startingToken) {}
