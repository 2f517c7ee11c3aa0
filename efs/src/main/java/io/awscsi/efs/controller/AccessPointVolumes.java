package io.awscsi.efs.controller;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.CapacityRange;
import io.awscsi.efs.cloud.AccessPoint;
import io.awscsi.efs.cloud.AccessPointSpec;
import io.awscsi.efs.cloud.EfsCloud;
import io.awscsi.efs.cloud.RootDirectory;
import io.awscsi.efs.volume.EfsPaths;
import io.awscsi.efs.volume.VolumeHandle;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * efs-ap volumes: one access point per volume, with POSIX ids from the allocator unless the StorageClass fixes them.
 * CreateVolume is idempotent twice over: the client token makes EFS return the first access point, and the listing the
 * allocator reads anyway finds an access point already made for the volume before any new id is reserved.
 */
final class AccessPointVolumes {

  private static final Logger LOG = LogManager.getLogger(AccessPointVolumes.class);

  private final Map<String, String> clusterTags;
  private final AccessPointGidAllocator allocator;

  AccessPointVolumes(Map<String, String> clusterTags, AccessPointGidAllocator allocator) {
    this.clusterTags = Map.copyOf(clusterTags);
    this.allocator = allocator;
  }

  /** Creates (or finds) the volume's access point; a repeat must ask for a capacity the first one satisfies. */
  AccessPoint create(String volumeName, EfsVolumeParameters parameters, CapacityRange capacity, EfsCloud cloud,
      RequestFingerprint fingerprint) {
    String fileSystemId = parameters.fileSystemId();
    String rootPath = parameters.volumePath(volumeName);
    String token = parameters.reuseAccessPoint()
        ? ClientTokens.forReusedAccessPoint(parameters.pvcName()) : ClientTokens.forVolume(volumeName);
    Map<String, String> tags = parameters.enableTagging()
        ? AccessPointTags.forVolume(clusterTags, parameters.reuseAccessPoint()
            ? null : new AccessPointTags.Ownership(parameters.basePath(), rootPath),
            RecordedCapacity.requested(capacity), fingerprint.hash())
        : Map.of();
    Request request = new Request(volumeName, parameters, rootPath, token, tags, capacity, fingerprint.hash());
    long begin = allocator.begin();
    AccessPointGidAllocator.Listing listing;
    try {
      listing = allocator.listing(cloud, fileSystemId, begin);
    } catch (AwsCallException e) {
      throw CloudFailures.toDriver(e, "listing the access points of " + fileSystemId + " for volume " + volumeName);
    }
    Optional<AccessPoint> existing = listing.byClientToken(token);
    if (existing.isPresent() && parameters.needsAllocation()) {
      return adopt(existing.get(), request);
    }
    if (existing.isEmpty()) {
      requireNotNested(listing.accessPoints(), token, rootPath, "access point root of volume " + volumeName);
    }
    if (!parameters.needsAllocation()) {
      return createOrAdopt(cloud, request, parameters.uid(), parameters.gid());
    }
    try (AccessPointGidAllocator.Reservation reservation = allocator.reserve(fileSystemId, parameters.gidRange())) {
      long uid = parameters.uid() == EfsVolumeParameters.UNSET ? reservation.id() : parameters.uid();
      long gid = parameters.gid() == EfsVolumeParameters.UNSET ? reservation.id() : parameters.gid();
      AccessPoint accessPoint = createOrAdopt(cloud, request, uid, gid);
      if (accessPoint.uid() == uid && accessPoint.gid() == gid) {
        reservation.created();
      }
      return accessPoint;
    }
  }

  /**
   * Refuses a directory volume under a name that already has an access-point volume on the file system (its client
   * token is the name's): one name, one volume id.
   */
  void requireNoAccessPointFor(String volumeName, String fileSystemId, String directory, EfsCloud cloud) {
    String token = ClientTokens.forVolume(volumeName);
    AccessPointGidAllocator.Listing listing;
    try {
      listing = allocator.listing(cloud, fileSystemId, allocator.begin());
    } catch (AwsCallException e) {
      throw CloudFailures.toDriver(e, "listing the access points of " + fileSystemId + " for volume " + volumeName);
    }
    listing.byClientToken(token).filter(AccessPointVolumes::live)
        .ifPresent(a -> {
          throw DriverException.alreadyExists("volume " + volumeName + " already exists as access point "
              + a.accessPointId() + " on " + fileSystemId + " (provisioningMode efs-ap); a name cannot also get an "
              + "efs-dir volume: use another name or delete that volume first");
        });
    for (AccessPoint other : volumeAccessPoints(listing.accessPoints(), token)) {
      String otherRoot = EfsPaths.clean(other.rootDirectory().path());
      if (EfsPaths.isAtOrBelow(directory, otherRoot) || EfsPaths.isStrictlyBelow(otherRoot, directory)) {
        throw nested("directory of volume " + volumeName, directory, other, otherRoot);
      }
    }
  }

  /**
   * Refuses a root directory that is an ancestor or a descendant of another volume's access point root: the outer
   * volume's pods would read the inner volume's files, and deleting the outer would delete them. Equal roots are
   * upstream's sharing (ensureUniqueDirectory false), which the deletion guard already handles.
   */
  private static void requireNotNested(List<AccessPoint> accessPoints, String token, String rootPath, String what) {
    for (AccessPoint other : volumeAccessPoints(accessPoints, token)) {
      String otherRoot = EfsPaths.clean(other.rootDirectory().path());
      if (EfsPaths.isStrictlyBelow(rootPath, otherRoot) || EfsPaths.isStrictlyBelow(otherRoot, rootPath)) {
        throw nested(what, rootPath, other, otherRoot);
      }
    }
  }

  /**
   * Live access points this driver made for one volume each (their tags record the directory): those made by hand,
   * by other tools or with reuseAccessPoint may deliberately expose a parent directory and are not volumes here.
   */
  private static List<AccessPoint> volumeAccessPoints(List<AccessPoint> accessPoints, String token) {
    return accessPoints.stream().filter(a -> !a.clientToken().equals(token)).filter(AccessPointVolumes::live)
        .filter(a -> AccessPointTags.ownership(a.tags()).isPresent()).toList();
  }

  private static boolean live(AccessPoint a) {
    return !a.lifeCycleState().equals("deleting") && !a.lifeCycleState().equals("deleted");
  }

  private static DriverException nested(String what, String path, AccessPoint other, String otherRoot) {
    return DriverException.alreadyExists("the " + what + ", " + DirectoryNames.quoted(path) + ", and the root "
        + otherRoot + " of access point " + other.accessPointId() + " (another volume) would lie one inside the "
        + "other; no volume's directory may contain another's: use another name, subPathPattern or basePath");
  }

  /**
   * Deletes the access point, and its root directory first when {@code directories} is given and the guard allows
   * it. An access point that is already gone is success.
   */
  void delete(VolumeHandle handle, EfsCloud cloud, DirectoryRemoval directories) {
    String id = handle.accessPointId();
    try {
      if (directories != null) {
        Optional<AccessPoint> accessPoint = cloud.describeAccessPoint(id);
        if (accessPoint.isEmpty()) {
          LOG.info("access point {} of volume {} is already gone", id, handle.volumeId());
          return;
        }
        if (!accessPoint.get().fileSystemId().equals(handle.fileSystemId())) {
          throw DriverException.failedPrecondition("access point " + id + " belongs to file system "
              + accessPoint.get().fileSystemId() + ", not to " + handle.fileSystemId() + " named in volume id "
              + handle.volumeId() + "; nothing was deleted");
        }
        DirectoryDeletion decision = RootDirectoryGuard.forAccessPoint(accessPoint.get(),
            cloud.listAccessPoints(handle.fileSystemId()));
        switch (decision) {
          case DirectoryDeletion.Remove(String path) -> directories.remove(handle, path);
          case DirectoryDeletion.Keep(String reason) -> LOG.warn("keeping the root directory {} of volume {}: {}",
              accessPoint.get().rootDirectory().path(), handle.volumeId(), reason);
          case DirectoryDeletion.Gone gone -> { }
        }
      }
      cloud.deleteAccessPoint(id);
      LOG.info("deleted access point {} of volume {}", id, handle.volumeId());
    } catch (AwsCallException e) {
      throw CloudFailures.toDriver(e, "deleting access point " + id + " of volume " + handle.volumeId());
    }
  }

  /** Removes a volume directory the guard allowed, with the file system mounted. */
  @FunctionalInterface
  interface DirectoryRemoval {
    void remove(VolumeHandle handle, String path);
  }

  private record Request(String volumeName, EfsVolumeParameters parameters, String rootPath, String token,
      Map<String, String> tags, CapacityRange capacity, String requestHash) {}

  private AccessPoint createOrAdopt(EfsCloud cloud, Request request, long uid, long gid) {
    EfsVolumeParameters p = request.parameters();
    AccessPointSpec spec = new AccessPointSpec(p.fileSystemId(), request.token(), uid, gid,
        new RootDirectory(request.rootPath(), uid, gid, p.directoryPerms()), request.tags());
    String doing = "creating an access point for volume " + request.volumeName() + " on " + p.fileSystemId();
    try {
      AccessPoint created = cloud.createAccessPoint(spec);
      requireSameRequest(created, request);
      LOG.info("access point {} for volume {}: root {} uid {} gid {}", created.accessPointId(), request.volumeName(),
          created.rootDirectory().path(), created.uid(), created.gid());
      return created;
    } catch (AwsCallException e) {
      if (e.error() instanceof AwsCallError.AccessPointAlreadyExists exists) {
        // The token was used with other arguments, e.g. by an earlier attempt with another allocated id.
        AccessPoint earlier = findByToken(cloud, p.fileSystemId(), exists.accessPointId(), request.token())
            .orElseThrow(() -> DriverException.aborted(doing + ": EFS says an access point with client token "
                + request.token() + " exists but it is not listed yet; the call will be retried"));
        return adopt(earlier, request);
      }
      throw CloudFailures.toDriver(e, doing);
    }
  }

  private static Optional<AccessPoint> findByToken(EfsCloud cloud, String fileSystemId, String accessPointId,
      String token) {
    try {
      if (!accessPointId.isEmpty()) {
        Optional<AccessPoint> byId = cloud.describeAccessPoint(accessPointId);
        if (byId.isPresent()) {
          return byId;
        }
      }
      return cloud.listAccessPoints(fileSystemId).stream().filter(a -> a.clientToken().equals(token)).findFirst();
    } catch (AwsCallException e) {
      throw CloudFailures.toDriver(e, "looking up the access point with client token " + token);
    }
  }

  /**
   * Accepts an access point made earlier for the same token if it fits the request: on the same file system, below
   * basePath, with the fixed ids or ids from the range. Anything else is AlreadyExists.
   */
  private static AccessPoint adopt(AccessPoint existing, Request request) {
    EfsVolumeParameters p = request.parameters();
    String state = existing.lifeCycleState();
    if (state.equals("deleting") || state.equals("deleted") || state.equals("error")) {
      throw DriverException.aborted("access point " + existing.accessPointId() + " made for volume "
          + request.volumeName() + " is " + state + "; the call will be retried");
    }
    String root = EfsPaths.clean(existing.rootDirectory().path());
    String mismatch = "";
    if (!existing.fileSystemId().equals(p.fileSystemId())) {
      mismatch = "it is on file system " + existing.fileSystemId();
    } else if (!EfsPaths.isStrictlyBelow(root, p.basePath())) {
      mismatch = "its root " + root + " is not below basePath " + p.basePath();
    } else if (p.uid() != EfsVolumeParameters.UNSET && existing.uid() != p.uid()) {
      mismatch = "its uid is " + existing.uid() + ", not " + p.uid();
    } else if (p.gid() != EfsVolumeParameters.UNSET && existing.gid() != p.gid()) {
      mismatch = "its gid is " + existing.gid() + ", not " + p.gid();
    } else if (p.needsAllocation() && !allocatedIdsFit(existing, p)) {
      mismatch = "its uid/gid " + existing.uid() + "/" + existing.gid() + " are not in gidRangeStart-gidRangeEnd "
          + p.gidRange();
    } else if (!p.reuseAccessPoint() && !root.equals(request.rootPath())) {
      mismatch = "its root is " + root + ", not " + request.rootPath();
    } else if (!samePermissions(existing.rootDirectory().permissions(), p.directoryPerms())) {
      mismatch = "its root directory was created with mode " + existing.rootDirectory().permissions()
          + ", not directoryPerms " + p.directoryPerms();
    } else if (recordedOtherRequest(existing, request)) {
      mismatch = "it was created by a CreateVolume with other parameters or capabilities";
    }
    if (!mismatch.isEmpty()) {
      throw DriverException.alreadyExists("volume " + request.volumeName() + ": access point "
          + existing.accessPointId() + " already exists with client token " + request.token() + " but " + mismatch
          + "; delete that access point or use another name");
    }
    AccessPointTags.capacity(existing.tags()).ifPresent(recorded ->
        RecordedCapacity.requireCompatible(request.volumeName(), recorded, request.capacity()));
    LOG.info("volume {} uses the existing access point {} (root {})", request.volumeName(),
        existing.accessPointId(), root);
    return existing;
  }

  /** A repeat that EFS answered with the first access point must still have asked for the same. */
  private static void requireSameRequest(AccessPoint accessPoint, Request request) {
    if (recordedOtherRequest(accessPoint, request)) {
      throw DriverException.alreadyExists("volume " + request.volumeName() + ": access point "
          + accessPoint.accessPointId() + " already exists with client token " + request.token() + " but it was "
          + "created by a CreateVolume with other parameters or capabilities; delete that volume or use another name");
    }
  }

  private static boolean recordedOtherRequest(AccessPoint accessPoint, Request request) {
    String recorded = accessPoint.tags().get(RequestFingerprint.TAG);
    return recorded != null && request.tags().containsKey(RequestFingerprint.TAG)
        && !recorded.equals(request.requestHash());
  }

  /** Octal modes compared by value ("700" and "0700" are one mode); a mode EFS did not report is not compared. */
  private static boolean samePermissions(String existing, String wanted) {
    if (existing == null || existing.isEmpty() || wanted.isEmpty()) {
      return true;
    }
    try {
      return Integer.parseInt(existing, 8) == Integer.parseInt(wanted, 8);
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static boolean allocatedIdsFit(AccessPoint existing, EfsVolumeParameters p) {
    boolean uidFits = p.uid() != EfsVolumeParameters.UNSET || p.gidRange().contains(existing.uid());
    boolean gidFits = p.gid() != EfsVolumeParameters.UNSET || p.gidRange().contains(existing.gid());
    return uidFits && gidFits;
  }
}
