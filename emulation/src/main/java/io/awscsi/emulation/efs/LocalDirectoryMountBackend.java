package io.awscsi.emulation.efs;

import io.awscsi.aws.call.AwsCallException;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.DeviceNumbers;
import io.awscsi.core.host.MountInfo;
import io.awscsi.core.host.Mounter;
import io.awscsi.efs.cloud.AccessPoint;
import io.awscsi.efs.cloud.RootDirectory;
import io.awscsi.efs.fs.LinkRefusedException;
import io.awscsi.efs.fs.OpenDirectory;
import io.awscsi.efs.mount.AccessPointLookup;
import io.awscsi.efs.mount.EfsMountBackend;
import io.awscsi.efs.mount.EfsMountRequest;
import io.awscsi.efs.mount.MountMatch;
import io.awscsi.efs.mount.PosixDirectory;
import io.awscsi.efs.volume.EfsPaths;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The local stand-in for EFS where the host has no NFS client: each file system is a directory
 * {@code <root>/<fs-id>/}, and a mount is a bind mount of the path inside it, so publish and unpublish run for real.
 * An access point's root directory is created on first mount with the access point's owner and mode, as EFS does;
 * the access point's POSIX user is not enforced (a bind mount has no identity mapping).
 */
public final class LocalDirectoryMountBackend implements EfsMountBackend {

  private final Path root;
  private final Mounter mounter;
  private final AccessPointLookup accessPoints;

  public LocalDirectoryMountBackend(Path root, Mounter mounter, AccessPointLookup accessPoints) {
    this.root = root.toAbsolutePath().normalize();
    this.mounter = mounter;
    this.accessPoints = accessPoints;
  }

  /**
   * The backend of a controller or node over {@code root} (created if missing), reading access points on its first
   * build: the EFS driver's seam ({@link EfsMountBackend.Factory}) in place of efs-utils.
   */
  public static EfsMountBackend.Factory factory(Path root) {
    return (mounter, accessPoints) -> {
      try {
        Files.createDirectories(root);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create the local EFS root " + root, e);
      }
      return new LocalDirectoryMountBackend(root, mounter, accessPoints.get());
    };
  }

  /** The directory that stands in for the file system's root. */
  public Path fileSystemRoot(String fileSystemId) {
    return root.resolve(fileSystemId);
  }

  @Override
  public void mount(EfsMountRequest request, Path target) {
    try {
      Path source = source(request, true);
      if (!Files.isDirectory(source, LinkOption.NOFOLLOW_LINKS)) {
        throw DriverException.notFound("path " + request.path() + " does not exist in file system "
            + request.fileSystemId() + (request.accessPointId().isEmpty() ? "" : " under access point "
            + request.accessPointId()) + " (local directory " + source + ")");
      }
      // EFS resolves symbolic links inside the file system; here a link a tenant wrote into the volume would lead
      // out of the stand-in's directory onto the host, so the directory must resolve to inside it.
      Path real = source.toRealPath();
      Path within = accessPointRootOf(request).toRealPath();
      if (!real.startsWith(within)) {
        throw DriverException.failedPrecondition("path " + request.path() + " of file system "
            + request.fileSystemId() + " resolves through a symbolic link to " + real + ", outside "
            + (request.accessPointId().isEmpty() ? "the file system" : "access point " + request.accessPointId())
            + "; it is not mounted");
      }
      mounter.bindMount(real, target, request.readOnly(), List.of());
    } catch (LinkRefusedException | NotDirectoryException e) {
      throw DriverException.failedPrecondition("the root directory of access point " + request.accessPointId()
          + " in file system " + request.fileSystemId() + " cannot be made: " + e.getMessage()
          + " (a symbolic link or file where a directory belongs is never followed)");
    } catch (IOException e) {
      throw DriverException.internal("cannot prepare the local stand-in of " + request.fileSystemId() + " under "
          + root + ": " + e.getMessage(), e);
    }
  }

  /** The local directory a request names; with {@code create}, an access point's root is made as EFS makes it. */
  private Path source(EfsMountRequest request, boolean create) throws IOException {
    Path fsRoot = fileSystemRoot(request.fileSystemId());
    if (create) {
      Files.createDirectories(fsRoot);
    }
    String base = EfsPaths.ROOT;
    if (!request.accessPointId().isEmpty()) {
      AccessPoint accessPoint = describe(request.accessPointId()).orElseThrow(() ->
          DriverException.notFound("access point " + request.accessPointId() + " does not exist"));
      if (!accessPoint.fileSystemId().equals(request.fileSystemId())) {
        throw DriverException.notFound("access point " + request.accessPointId() + " belongs to "
            + accessPoint.fileSystemId() + ", not " + request.fileSystemId());
      }
      base = EfsPaths.clean(accessPoint.rootDirectory().path());
      if (create) {
        createAccessPointRoot(fsRoot, accessPoint.rootDirectory());
      }
    }
    return fsRoot.resolve(EfsPaths.relative(EfsPaths.join(base, request.path())));
  }

  /** The directory a request may not leave: the access point's root, or the file system's. */
  private Path accessPointRootOf(EfsMountRequest request) throws IOException {
    return request.accessPointId().isEmpty() ? fileSystemRoot(request.fileSystemId())
        : source(new EfsMountRequest(request.fileSystemId(), EfsPaths.ROOT, request.accessPointId(), List.of(),
            request.readOnly()), false);
  }

  /**
   * A bind mount shows the device of the file system that holds its source and the source's path inside it
   * (mountinfo's root field); both must be the request's directory under this stand-in's root.
   */
  @Override
  public MountMatch match(EfsMountRequest request, MountInfo mount) {
    Path source;
    try {
      source = source(request, false).toRealPath();
    } catch (IOException | DriverException e) {
      return new MountMatch.Different(mount.source() + " (" + mount.fsType() + "): the volume's directory "
          + "cannot be found (" + e.getMessage() + ")");
    }
    Optional<String> expected = bindIdentity(source);
    if (expected.isEmpty()) {
      return new MountMatch.Unknown("the file system holding " + source + " is not in the mount table");
    }
    String actual = mount.deviceNumber() + ":" + mount.root();
    return actual.equals(expected.get()) ? new MountMatch.Same()
        : new MountMatch.Different(mount.source() + " (" + mount.fsType() + ", " + mount.root() + ")");
  }

  @Override
  public boolean madeHere(MountInfo mount) {
    try {
      return bindIdentity(root.toRealPath())
          .map(r -> (mount.deviceNumber() + ":" + mount.root() + "/").startsWith(r.endsWith("/") ? r : r + "/"))
          .orElse(false);
    } catch (IOException e) {
      return false;
    }
  }

  /** {@code major:minor:<path inside its file system>} of a directory, as a bind mount of it shows in mountinfo. */
  private Optional<String> bindIdentity(Path directory) {
    try {
      String device = DeviceNumbers.ofFileSystemOf(directory);
      return mounter.mountContaining(directory).filter(m -> m.deviceNumber().equals(device)).map(m -> {
        String inside = m.mountPoint().relativize(directory).toString();
        return device + ":" + EfsPaths.join(m.root(), inside);
      });
    } catch (IOException | UnsupportedOperationException e) {
      return Optional.empty();
    }
  }

  private Optional<AccessPoint> describe(String accessPointId) {
    try {
      return accessPoints.describe(accessPointId);
    } catch (AwsCallException e) {
      throw DriverException.unavailable("the local EFS stand-in cannot read access point " + accessPointId + ": "
          + e.getMessage(), e);
    }
  }

  /**
   * EFS creates a missing root directory (and its parents) with the creation info on the first mount. Each level is
   * opened from the file system's root without following a link and made with {@code mkdirat} in its open parent, so
   * a tenant's link in the way is refused (FAILED_PRECONDITION) instead of leading the creation onto the host.
   */
  private static void createAccessPointRoot(Path fsRoot, RootDirectory rootDirectory) throws IOException {
    OpenDirectory current = OpenDirectory.openTrusted(fsRoot);
    try {
      for (String segment : EfsPaths.relative(rootDirectory.path()).split("/")) {
        if (segment.isEmpty()) {
          continue;
        }
        Optional<OpenDirectory> next = current.openChildIfPresent(segment);
        if (next.isEmpty()) {
          if (!rootDirectory.hasCreationInfo()) {
            return;
          }
          PosixDirectory.create(current, segment, rootDirectory.ownerUid(), rootDirectory.ownerGid(),
              PosixDirectory.mode(rootDirectory.permissions()));
          next = Optional.of(current.openChild(segment));
        }
        current.close();
        current = next.get();
      }
    } finally {
      current.close();
    }
  }

  @Override
  public String unavailableReason() {
    if (Files.isDirectory(root) && Files.isWritable(root)) {
      return "";
    }
    return "the local EFS stand-in root " + root + " is not a writable directory";
  }

  @Override
  public String name() {
    return "local";
  }
}
