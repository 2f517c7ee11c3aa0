package io.awscsi.efs.controller;

import io.awscsi.aws.call.AwsCallError;
import io.awscsi.aws.call.AwsCallException;
import io.awscsi.efs.cloud.AccessPoint;
import io.awscsi.efs.cloud.AccessPointSpec;
import io.awscsi.efs.cloud.EfsCloud;
import io.awscsi.efs.cloud.FileSystem;
import io.awscsi.efs.cloud.MountTarget;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/** A hand-written EFS for unit tests: access points in a map, ClientToken idempotency, counted listings. */
final class InMemoryEfsCloud implements EfsCloud {

  private final Map<String, AccessPoint> accessPoints = new LinkedHashMap<>();
  private final AtomicInteger listings = new AtomicInteger();
  private final long listingMillis;
  private int next = 1;

  InMemoryEfsCloud() {
    this(0);
  }

  /** Listings take this long, like a DescribeAccessPoints round trip. */
  InMemoryEfsCloud(long listingMillis) {
    this.listingMillis = listingMillis;
  }

  synchronized AccessPoint add(String fileSystemId, long uid, long gid, String root, Map<String, String> tags) {
    String id = String.format("fsap-%08x", next++);
    AccessPoint ap = new AccessPoint(id, fileSystemId, "token-" + id, uid, gid,
        new io.awscsi.efs.cloud.RootDirectory(root, uid, gid, "0755"), tags, "available");
    accessPoints.put(id, ap);
    return ap;
  }

  int listings() {
    return listings.get();
  }

  @Override
  public synchronized AccessPoint createAccessPoint(AccessPointSpec spec) {
    for (AccessPoint a : accessPoints.values()) {
      if (a.clientToken().equals(spec.clientToken())) {
        if (a.uid() == spec.uid() && a.gid() == spec.gid()) {
          return a;
        }
        throw new AwsCallException("CreateAccessPoint", new AwsCallError.AccessPointAlreadyExists(a.accessPointId(),
            "token used"), null);
      }
    }
    String id = String.format("fsap-%08x", next++);
    AccessPoint ap = new AccessPoint(id, spec.fileSystemId(), spec.clientToken(), spec.uid(), spec.gid(),
        spec.rootDirectory(), spec.tags(), "available");
    accessPoints.put(id, ap);
    return ap;
  }

  @Override
  public synchronized Optional<AccessPoint> describeAccessPoint(String accessPointId) {
    return Optional.ofNullable(accessPoints.get(accessPointId));
  }

  @Override
  public List<AccessPoint> listAccessPoints(String fileSystemId) {
    listings.incrementAndGet();
    if (listingMillis > 0) {
      try {
        Thread.sleep(listingMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    synchronized (this) {
      return new ArrayList<>(accessPoints.values().stream().filter(a -> a.fileSystemId().equals(fileSystemId))
          .toList());
    }
  }

  @Override
  public synchronized void deleteAccessPoint(String accessPointId) {
    accessPoints.remove(accessPointId);
  }

  @Override
  public FileSystem describeFileSystem(String fileSystemId) {
    return new FileSystem(fileSystemId, "", "available");
  }

  @Override
  public List<MountTarget> listMountTargets(String fileSystemId) {
    return List.of();
  }
}
