package io.awscsi.core.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The node's kubelet directory ({@code --kubelet-dir}, upstream's {@code /var/lib/kubelet}): every staging, target
 * and volume path a node call names lies below it. Each caller path is resolved once: the real path of the existing
 * part of its parent chain (so a symbolic link anywhere in a parent is followed here, once, and then judged by where
 * it leads), the missing directories appended as plain names, and the last component kept as it is (never followed:
 * a link there is refused). Only the resolved path is used afterwards, for mkdir, mkfs, mount and umount alike.
 *
 * @param root the kubelet directory's real path, resolved when the node starts (a kubelet directory that is itself a
 *     link, as on hosts that keep it on another disk, is followed once there)
 */
public record KubeletDirectory(Path root) {

  /** Upstream's kubelet directory: the charts' {@code node.kubeletPath} default. */
  public static final Path DEFAULT = Path.of("/var/lib/kubelet");

  /** Where a caller's path leads. */
  public sealed interface Resolution {

    /** Below the kubelet directory: {@code path} is what to use from now on. */
    record Inside(Path path) implements Resolution {}

    /** Leads outside the kubelet directory (or is the directory itself): {@code resolved} is where it leads. */
    record Outside(Path resolved) implements Resolution {}

    /** The last component is a symbolic link (to {@code target}): a mount there would land wherever it points. */
    record LinkAtEnd(Path resolved, String target) implements Resolution {}

    /** A parent is a symbolic link that leads nowhere: creating the path would follow it to wherever it is made. */
    record DanglingParent(Path link) implements Resolution {}

    /** The parent chain cannot be read (permissions, a file where a directory is expected, an I/O error). */
    record Unresolvable(Path at, String reason) implements Resolution {}
  }

  /** Resolves the configured directory once, at start: it must exist and be a directory. */
  public static KubeletDirectory resolve(Path configured) throws IOException {
    if (!configured.isAbsolute()) {
      throw new IOException("the kubelet directory must be an absolute path, got " + configured);
    }
    Path real;
    try {
      real = configured.toRealPath();
    } catch (NoSuchFileException e) {
      throw new IOException("the kubelet directory " + configured + " does not exist", e);
    }
    if (!Files.isDirectory(real)) {
      throw new NotDirectoryException(configured + " (" + real + ") is not a directory");
    }
    return new KubeletDirectory(real);
  }

  /** Where {@code requested} (absolute, without {@code .} or {@code ..} segments) leads; see the class comment. */
  public Resolution locate(Path requested) {
    Path name = requested.getFileName();
    Path parent = requested.getParent();
    if (name == null || parent == null) {
      return new Resolution.Outside(requested);
    }
    Deque<Path> missing = new ArrayDeque<>();
    Path existing = parent;
    // Files.exists follows links: a link that leads nowhere reads as missing, and is told apart below.
    while (!Files.exists(existing)) {
      if (Files.isSymbolicLink(existing)) {
        return new Resolution.DanglingParent(existing);
      }
      missing.push(existing.getFileName());
      existing = existing.getParent();
    }
    Path resolved;
    try {
      resolved = existing.toRealPath();
    } catch (IOException e) {
      return new Resolution.Unresolvable(existing, e.getClass().getSimpleName() + ": " + e.getMessage());
    }
    while (!missing.isEmpty()) {
      resolved = resolved.resolve(missing.pop());
    }
    resolved = resolved.resolve(name);
    if (!resolved.startsWith(root) || resolved.equals(root)) {
      return new Resolution.Outside(resolved);
    }
    if (Files.isSymbolicLink(resolved)) {
      String target;
      try {
        target = Files.readSymbolicLink(resolved).toString();
      } catch (IOException e) {
        target = "?";
      }
      return new Resolution.LinkAtEnd(resolved, target);
    }
    return new Resolution.Inside(resolved);
  }

  /**
   * Whether {@code resolved} (a path {@link #locate} placed inside) is where the kubelet stages CSI volumes:
   * {@code plugins/kubernetes.io/csi/<driver>/<hash>/globalmount} for file systems and
   * {@code plugins/kubernetes.io/csi/volumeDevices/staging/<pv>} for block volumes (the kubelet's csi plugin
   * layout, unchanged since Kubernetes 1.14 apart from the driver directory of 1.24). The node asks this, not only
   * what it staged itself, so the answer holds after a restart; publish targets never lie there.
   */
  public boolean isStagingPath(Path resolved) {
    if (!resolved.startsWith(root)) {
      return false;
    }
    Path relative = root.relativize(resolved);
    Path csi = Path.of("plugins", "kubernetes.io", "csi");
    if (!relative.startsWith(csi)) {
      return false;
    }
    Path below = csi.relativize(relative);
    int n = below.getNameCount();
    if (n >= 3 && below.getName(0).toString().equals("volumeDevices") && below.getName(1).toString().equals("staging")) {
      return true;
    }
    return n >= 2 && below.getName(n - 1).toString().equals("globalmount");
  }
}
