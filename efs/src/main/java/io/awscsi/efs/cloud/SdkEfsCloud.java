package io.awscsi.efs.cloud;

import io.awscsi.aws.call.AwsAction;
import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.AwsCallMetrics;
import io.awscsi.aws.call.AwsCallRunner;
import io.awscsi.aws.call.AwsRateLimits;
import io.awscsi.aws.call.AwsRetryPolicy;
import io.awscsi.aws.call.CallDeadline;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.Reachability;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.services.efs.EfsClient;
import software.amazon.awssdk.services.efs.model.AccessPointDescription;
import software.amazon.awssdk.services.efs.model.CreateAccessPointResponse;
import software.amazon.awssdk.services.efs.model.CreationInfo;
import software.amazon.awssdk.services.efs.model.DescribeAccessPointsResponse;
import software.amazon.awssdk.services.efs.model.DescribeMountTargetsResponse;
import software.amazon.awssdk.services.efs.model.FileSystemDescription;
import software.amazon.awssdk.services.efs.model.MountTargetDescription;
import software.amazon.awssdk.services.efs.model.PosixUser;
import software.amazon.awssdk.services.efs.model.Tag;

/**
 * {@link EfsCloud} over the AWS SDK's {@link EfsClient}; every call goes through the shared {@link AwsCallRunner}
 * (per-action rate limit, retries, metrics, readiness) with EFS's error mapping ({@link EfsErrors}), bounded by the
 * current CSI call's gRPC deadline.
 */
public final class SdkEfsCloud implements EfsCloud {

  /** The largest page DescribeAccessPoints allows; fewer round trips when listing for GID allocation. */
  static final int ACCESS_POINT_PAGE_SIZE = 1000;
  /** A file system has at most one mount target per zone, so a page of 100 is always enough; paging is still read. */
  static final int MOUNT_TARGET_PAGE_SIZE = 100;

  /** The deadline of a call made outside a CSI call (startup, tests). */
  static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(60);

  private final EfsClient efs;
  private final AwsCallRunner calls;
  private final int accessPointPageSize;

  /** With the default per-API retries; e.g. for the node's local stand-in, which reads access point roots. */
  public static SdkEfsCloud create(EfsClient efs, MetricsRegistry metrics) {
    return new SdkEfsCloud(efs, callRunner(metrics, AwsRetryPolicy.EFS_DEFAULT));
  }

  /** The runner of EFS calls with the default client-side rate limits; one per driver, shared by every account. */
  public static AwsCallRunner callRunner(MetricsRegistry metrics, AwsRetryPolicy retries) {
    return callRunner(metrics, retries, AwsRateLimits.DEFAULT);
  }

  /** The runner of EFS calls: EFS's error mapping and metric names, readiness under the name "EFS". */
  public static AwsCallRunner callRunner(MetricsRegistry metrics, AwsRetryPolicy retries, AwsRateLimits limits) {
    return new AwsCallRunner("EFS", EfsErrors.MAPPING, limits, retries, AwsCallMetrics.EFS, metrics,
        new Reachability("EFS"));
  }

  public SdkEfsCloud(EfsClient efs, AwsCallRunner calls) {
    this(efs, calls, ACCESS_POINT_PAGE_SIZE);
  }

  /** With a smaller DescribeAccessPoints page, so tests can make paging happen with a few access points. */
  SdkEfsCloud(EfsClient efs, AwsCallRunner calls, int accessPointPageSize) {
    this.efs = efs;
    this.calls = calls;
    this.accessPointPageSize = accessPointPageSize;
  }

  @Override
  public AccessPoint createAccessPoint(AccessPointSpec spec) {
    RootDirectory root = spec.rootDirectory();
    CreateAccessPointResponse response = call("CreateAccessPoint", spec.fileSystemId(), o ->
        efs.createAccessPoint(r -> {
          r.overrideConfiguration(o).clientToken(spec.clientToken()).fileSystemId(spec.fileSystemId())
              .posixUser(PosixUser.builder().uid(spec.uid()).gid(spec.gid()).build())
              .rootDirectory(d -> {
                d.path(root.path());
                if (root.hasCreationInfo()) {
                  d.creationInfo(CreationInfo.builder().ownerUid(root.ownerUid()).ownerGid(root.ownerGid())
                      .permissions(root.permissions()).build());
                }
              });
          if (!spec.tags().isEmpty()) {
            r.tags(spec.tags().entrySet().stream()
                .map(t -> Tag.builder().key(t.getKey()).value(t.getValue()).build()).toList());
          }
        }));
    return new AccessPoint(response.accessPointId(), response.fileSystemId(), response.clientToken(),
        response.posixUser() == null ? AccessPoint.NO_ID : response.posixUser().uid(),
        response.posixUser() == null ? AccessPoint.NO_ID : response.posixUser().gid(),
        rootOf(response.rootDirectory()), tagsOf(response.tags()), response.lifeCycleStateAsString());
  }

  @Override
  public Optional<AccessPoint> describeAccessPoint(String accessPointId) {
    try {
      DescribeAccessPointsResponse response = call("DescribeAccessPoints", accessPointId,
          o -> efs.describeAccessPoints(r -> r.overrideConfiguration(o).accessPointId(accessPointId)));
      return response.accessPoints().stream().findFirst().map(SdkEfsCloud::accessPointOf);
    } catch (AwsCallException e) {
      if (e.error() instanceof AwsCallError.NotFound) {
        return Optional.empty();
      }
      throw e;
    }
  }

  @Override
  public List<AccessPoint> listAccessPoints(String fileSystemId) {
    List<AccessPoint> all = new ArrayList<>();
    Set<String> seenTokens = new HashSet<>();
    String next = null;
    do {
      String token = next;
      DescribeAccessPointsResponse page = call("DescribeAccessPoints", fileSystemId,
          o -> efs.describeAccessPoints(r -> r.overrideConfiguration(o).fileSystemId(fileSystemId)
              .maxResults(accessPointPageSize)
              .nextToken(token)));
      page.accessPoints().forEach(a -> all.add(accessPointOf(a)));
      next = page.nextToken();
      if (next != null && !seenTokens.add(next)) {
        // A token seen twice would page forever; a partial list must not be mistaken for the whole.
        throw new AwsCallException("DescribeAccessPoints", new AwsCallError.Unexpected("RepeatedNextToken",
            "DescribeAccessPoints of " + fileSystemId + " returned the page token " + next + " twice"), null);
      }
    } while (next != null && !next.isEmpty());
    return List.copyOf(all);
  }

  @Override
  public void deleteAccessPoint(String accessPointId) {
    try {
      call("DeleteAccessPoint", accessPointId, o -> efs.deleteAccessPoint(r -> r.overrideConfiguration(o)
          .accessPointId(accessPointId)));
    } catch (AwsCallException e) {
      if (!(e.error() instanceof AwsCallError.NotFound)) {
        throw e;
      }
    }
  }

  @Override
  public FileSystem describeFileSystem(String fileSystemId) {
    List<FileSystemDescription> found = call("DescribeFileSystems", fileSystemId,
        o -> efs.describeFileSystems(r -> r.overrideConfiguration(o).fileSystemId(fileSystemId))).fileSystems();
    if (found.isEmpty()) {
      throw new AwsCallException("DescribeFileSystems", new AwsCallError.NotFound("file system", fileSystemId,
          "file system " + fileSystemId + " does not exist"), null);
    }
    FileSystemDescription fs = found.getFirst();
    return new FileSystem(fs.fileSystemId(), fs.availabilityZoneName() == null ? "" : fs.availabilityZoneName(),
        fs.lifeCycleStateAsString());
  }

  @Override
  public List<MountTarget> listMountTargets(String fileSystemId) {
    List<MountTarget> all = new ArrayList<>();
    String marker = null;
    do {
      String from = marker;
      DescribeMountTargetsResponse page = call("DescribeMountTargets", fileSystemId,
          o -> efs.describeMountTargets(r -> r.overrideConfiguration(o).fileSystemId(fileSystemId)
              .maxItems(MOUNT_TARGET_PAGE_SIZE)
              .marker(from)));
      for (MountTargetDescription m : page.mountTargets()) {
        all.add(new MountTarget(m.mountTargetId(), m.fileSystemId(),
            m.availabilityZoneName() == null ? "" : m.availabilityZoneName(),
            m.ipAddress() == null ? "" : m.ipAddress(), m.lifeCycleStateAsString()));
      }
      marker = page.nextMarker();
    } while (marker != null && !marker.isEmpty());
    return List.copyOf(all);
  }

  private static AccessPoint accessPointOf(AccessPointDescription a) {
    return new AccessPoint(a.accessPointId(), a.fileSystemId(), a.clientToken(),
        a.posixUser() == null ? AccessPoint.NO_ID : a.posixUser().uid(),
        a.posixUser() == null ? AccessPoint.NO_ID : a.posixUser().gid(),
        rootOf(a.rootDirectory()), tagsOf(a.tags()), a.lifeCycleStateAsString());
  }

  private static RootDirectory rootOf(software.amazon.awssdk.services.efs.model.RootDirectory root) {
    if (root == null) {
      return new RootDirectory("/", AccessPoint.NO_ID, AccessPoint.NO_ID, "");
    }
    CreationInfo info = root.creationInfo();
    String path = root.path() == null || root.path().isEmpty() ? "/" : root.path();
    return info == null
        ? new RootDirectory(path, AccessPoint.NO_ID, AccessPoint.NO_ID, "")
        : new RootDirectory(path, info.ownerUid(), info.ownerGid(), info.permissions());
  }

  private static Map<String, String> tagsOf(List<Tag> tags) {
    Map<String, String> out = new LinkedHashMap<>();
    tags.forEach(t -> out.put(t.key(), t.value()));
    return out;
  }

  /**
   * Runs one EFS action within the current CSI call's deadline (its gRPC deadline less the margin to answer).
   *
   * @param request the API action name (CreateAccessPoint), used as the metric label and in messages
   * @param resourceId the file system or access point the call is about, for error messages
   */
  private <T> T call(String request, String resourceId, Function<AwsRequestOverrideConfiguration, T> call) {
    return calls.run(AwsAction.named(request), resourceId, CallDeadline.ofCurrentCall(DEFAULT_CALL_TIMEOUT), call);
  }
}
