package io.awscsi.efs.mount;

import io.awscsi.core.host.HostTool;
import io.awscsi.core.host.MountInfo;
import io.awscsi.core.host.Mounter;
import io.awscsi.efs.volume.EfsPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Mounts with amazon-efs-utils: {@code mount -t efs -o tls,accesspoint=fsap-...,... fs-...:/path target}. {@code mount}
 * hands the call to {@code mount.efs}, which starts the TLS proxy and mounts NFS 4.1 through it.
 */
public final class EfsUtilsMountBackend implements EfsMountBackend {

  static final String FS_TYPE = "efs";
  private static final List<String> HELPER_DIRECTORIES = List.of("/sbin", "/usr/sbin");
  /** Where efs-utils keeps one state file per TLS mount: {@code <fs-id>.<mount point, / as .>.<tunnel port>}. */
  public static final Path DEFAULT_STATE_DIRECTORY = Path.of("/var/run/efs");
  private static final Set<String> NFS_TYPES = Set.of("nfs", "nfs4");
  private static final Pattern FILE_SYSTEM_ID = Pattern.compile("fs-[0-9a-f]{8,40}");

  private final Mounter mounter;
  private final Path stateDirectory;
  private final Runnable beforeMount;

  public EfsUtilsMountBackend(Mounter mounter) {
    this(mounter, DEFAULT_STATE_DIRECTORY, () -> { });
  }

  public EfsUtilsMountBackend(Mounter mounter, Path stateDirectory) {
    this(mounter, stateDirectory, () -> { });
  }

  public EfsUtilsMountBackend(Mounter mounter, Runnable beforeMount) {
    this(mounter, DEFAULT_STATE_DIRECTORY, beforeMount);
  }

  /**
   * @param stateDirectory efs-utils' state files, which name the file system of a TLS mount
   * @param beforeMount run before every mount (idempotent): makes efs-utils ready where that is left to the first mount
   */
  public EfsUtilsMountBackend(Mounter mounter, Path stateDirectory, Runnable beforeMount) {
    this.mounter = mounter;
    this.stateDirectory = stateDirectory;
    this.beforeMount = beforeMount;
  }

  /**
   * An efs-utils mount shows as NFS from {@code <host>:<path>}: the file system's DNS name, a mount target's address
   * ({@code mounttargetip}), or {@code 127.0.0.1} for the TLS tunnel, whose file system only efs-utils's state file
   * for that mount point and tunnel port names. The path is the handle's (relative to an access point's root, which
   * the mount table does not show).
   */
  @Override
  public MountMatch match(EfsMountRequest request, MountInfo mount) {
    if (!NFS_TYPES.contains(mount.fsType())) {
      List<String> owners = stateOwners(mount, "[0-9]+");
      if (owners.contains(request.fileSystemId())) {
        return new MountMatch.Same();
      }
      return new MountMatch.Different(owners.isEmpty()
          ? mount.source() + " (" + mount.fsType() + "), not an NFS mount of EFS"
          : "the efs-utils mount of file system " + owners.getFirst());
    }
    int colon = mount.source().indexOf(':');
    if (colon < 0) {
      return new MountMatch.Different(mount.source() + " (" + mount.fsType() + ")");
    }
    String host = mount.source().substring(0, colon);
    String path = EfsPaths.clean(mount.source().substring(colon + 1));
    if (!path.equals(EfsPaths.clean(request.path()))) {
      return new MountMatch.Different(mount.source() + ": path " + path + ", not " + request.path());
    }
    Matcher named = FILE_SYSTEM_ID.matcher(host);
    if (named.find()) {
      return named.group().equals(request.fileSystemId()) ? new MountMatch.Same()
          : new MountMatch.Different(mount.source() + " of file system " + named.group());
    }
    if (host.equals("127.0.0.1") || host.equals("localhost")) {
      return tunnelled(request, mount);
    }
    if (request.options().contains("mounttargetip=" + host)) {
      return new MountMatch.Same();
    }
    return new MountMatch.Unknown(mount.source() + " is a mount target address that does not name a file system");
  }

  private MountMatch tunnelled(EfsMountRequest request, MountInfo mount) {
    String port = option(mount, "port=");
    if (port.isEmpty()) {
      return new MountMatch.Unknown(mount.source() + " without the TLS tunnel's port");
    }
    List<String> owners;
    try {
      owners = stateFiles(mount, Pattern.quote(port));
    } catch (IOException e) {
      return new MountMatch.Unknown("efs-utils state " + stateDirectory + " is not readable: " + e.getMessage());
    }
    if (owners.contains(request.fileSystemId())) {
      return new MountMatch.Same();
    }
    return owners.isEmpty()
        ? new MountMatch.Unknown("no efs-utils state for the TLS mount at " + mount.mountPoint() + " in "
            + stateDirectory)
        : new MountMatch.Different("the TLS mount of file system " + owners.getFirst());
  }

  /**
   * The file systems efs-utils' state files name for the mount point with a tunnel port matching {@code port}
   * (files {@code <fs-id>.<mount point, / as .>.<port>}); none when the state is not readable.
   */
  private List<String> stateOwners(MountInfo mount, String port) {
    try {
      return stateFiles(mount, port);
    } catch (IOException e) {
      return List.of();
    }
  }

  private List<String> stateFiles(MountInfo mount, String port) throws IOException {
    String mountPoint = mount.mountPoint().toString().replace('/', '.').replaceFirst("^\\.+", "");
    Pattern name = Pattern.compile("(fs-[0-9a-f]+)\\." + Pattern.quote(mountPoint) + "\\." + port);
    try (Stream<Path> files = Files.list(stateDirectory)) {
      return files.map(f -> name.matcher(f.getFileName().toString())).filter(Matcher::matches)
          .map(m -> m.group(1)).toList();
    }
  }

  private static String option(MountInfo mount, String prefix) {
    for (List<String> options : List.of(mount.superOptions(), mount.mountOptions())) {
      for (String option : options) {
        if (option.startsWith(prefix)) {
          return option.substring(prefix.length());
        }
      }
    }
    return "";
  }

  /**
   * NFS mounts, and a mount of another type that efs-utils' state names: the state file is efs-utils' own record of
   * the mounts it made (its stand-in on a kernel without an NFS client bind-mounts; see hack/efs-utils-standin).
   */
  @Override
  public boolean madeHere(MountInfo mount) {
    return NFS_TYPES.contains(mount.fsType()) || !stateOwners(mount, "[0-9]+").isEmpty();
  }

  @Override
  public void mount(EfsMountRequest request, Path target) {
    beforeMount.run();
    List<String> options = new ArrayList<>();
    if (request.readOnly()) {
      options.add("ro");
    }
    options.addAll(request.options());
    mounter.mount(request.fileSystemId() + ":" + request.path(), target, FS_TYPE, options, request.timeout());
  }

  @Override
  public String unavailableReason() {
    // mount(8) looks for its helpers in /sbin (which is /usr/sbin on merged-/usr systems).
    String executable = HostTool.MOUNT_EFS.executable();
    for (String dir : HELPER_DIRECTORIES) {
      if (Files.isExecutable(Path.of(dir, executable))) {
        return "";
      }
    }
    return executable + " (package " + HostTool.MOUNT_EFS.imagePackage() + ") is not installed in "
        + String.join(" or ", HELPER_DIRECTORIES) + "; EFS volumes cannot be mounted";
  }

  @Override
  public String name() {
    return "efs-utils";
  }
}
