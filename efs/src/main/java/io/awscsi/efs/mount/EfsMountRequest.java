package io.awscsi.efs.mount;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One EFS mount: a path of a file system, optionally through an access point, with the efs-utils options.
 *
 * @param path clean absolute path; relative to the access point's root when {@code accessPointId} is set
 * @param accessPointId the access point, or ""
 * @param options efs-utils/NFS options, validated, without {@code ro} (see {@code readOnly})
 * @param timeout how long the mount may run (what is left of the caller's deadline, {@code CallBudget.remaining}); it is
 *     killed after
 */
public record EfsMountRequest(String fileSystemId, String path, String accessPointId, List<String> options,
    boolean readOnly, Duration timeout) {

  /** The bound of a mount made without a gRPC deadline (direct calls, tests): the kubelet's own for a CSI call. */
  public static final Duration FALLBACK_TIMEOUT = Duration.ofMinutes(2);

  public EfsMountRequest {
    accessPointId = accessPointId == null ? "" : accessPointId;
    options = List.copyOf(options);
    Objects.requireNonNull(timeout, "timeout");
  }

  /**
   * A request to compare with what is mounted ({@code match}, paths), not to be mounted as is: its time bound is the
   * fallback. A request that is mounted takes the caller's deadline at mount time ({@link #withTimeout}).
   */
  public EfsMountRequest(String fileSystemId, String path, String accessPointId, List<String> options,
      boolean readOnly) {
    this(fileSystemId, path, accessPointId, options, readOnly, FALLBACK_TIMEOUT);
  }

  /** The same mount, bounded by {@code timeout}. */
  public EfsMountRequest withTimeout(Duration timeout) {
    return new EfsMountRequest(fileSystemId, path, accessPointId, options, readOnly, timeout);
  }
}
