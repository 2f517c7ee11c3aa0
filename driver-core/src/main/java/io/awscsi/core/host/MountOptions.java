package io.awscsi.core.host;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Allowlists of mount options per file-system family. Mount flags come from StorageClass {@code mountOptions} and
 * PersistentVolume specs, so anyone who may create those could otherwise smuggle in options that change <em>what</em>
 * is mounted ({@code bind}, {@code remount}, {@code move}, propagation changes, {@code loop}) rather than how. Only
 * options that tune a mount of the driver's own choosing are accepted; anything else is refused with a message naming
 * the option, so a typo is reported instead of silently ignored by the kernel.
 */
public final class MountOptions {

  /** Which allowlist applies. */
  public enum Family {
    EXT, XFS, NFS;

    /** The family of a file-system type as it appears in a volume capability or mount table. */
    public static Optional<Family> of(String fsType) {
      return switch (fsType.toLowerCase(Locale.ROOT)) {
        case "ext2", "ext3", "ext4" -> Optional.of(EXT);
        case "xfs" -> Optional.of(XFS);
        case "nfs", "nfs4", "efs", "s3files" -> Optional.of(NFS);
        default -> Optional.empty();
      };
    }
  }

  private static final Pattern NUMBER = Pattern.compile("\\d{1,10}");
  private static final Pattern SIZE = Pattern.compile("\\d{1,12}[kKmMgG]?");
  private static final Pattern BOOLEAN_NUMBER = Pattern.compile("[01]");
  private static final Pattern WORD = Pattern.compile("[A-Za-z0-9._-]{1,128}");
  private static final Pattern SELINUX_CONTEXT = Pattern.compile("\"?[A-Za-z0-9_.:,]{1,256}\"?");
  private static final Pattern IP_ADDRESS = Pattern.compile("[0-9A-Fa-f.:]{2,45}");
  private static final Pattern ABSOLUTE_PATH = Pattern.compile("/[A-Za-z0-9._/-]{0,255}");

  private static final Set<String> COMMON_FLAGS = Set.of(
      "defaults", "ro", "rw", "atime", "noatime", "diratime", "nodiratime", "relatime", "norelatime", "strictatime",
      "nostrictatime", "lazytime", "nolazytime", "dev", "nodev", "suid", "nosuid", "exec", "noexec", "sync", "async",
      "dirsync", "iversion", "noiversion", "_netdev");
  private static final Map<String, Pattern> COMMON_VALUED = Map.of(
      "context", SELINUX_CONTEXT, "fscontext", SELINUX_CONTEXT, "defcontext", SELINUX_CONTEXT,
      "rootcontext", SELINUX_CONTEXT);

  private static final Set<String> EXT_FLAGS = Set.of(
      "acl", "noacl", "user_xattr", "nouser_xattr", "barrier", "nobarrier", "discard", "nodiscard",
      "journal_checksum", "nojournal_checksum", "journal_async_commit", "delalloc", "nodelalloc", "auto_da_alloc",
      "noauto_da_alloc", "dioread_nolock", "dioread_lock", "noinit_itable", "block_validity", "noblock_validity",
      "i_version", "nombcache", "quota", "noquota", "usrquota", "grpquota", "prjquota", "grpid", "bsdgroups",
      "nogrpid", "sysvgroups");
  private static final Map<String, Pattern> EXT_VALUED = Map.ofEntries(
      Map.entry("data", Pattern.compile("journal|ordered|writeback")),
      Map.entry("data_err", Pattern.compile("abort|ignore")),
      Map.entry("commit", NUMBER),
      Map.entry("barrier", BOOLEAN_NUMBER),
      // errors=panic would let one volume's corruption take the whole node down.
      Map.entry("errors", Pattern.compile("continue|remount-ro")),
      Map.entry("stripe", NUMBER),
      Map.entry("inode_readahead_blks", NUMBER),
      Map.entry("max_batch_time", NUMBER),
      Map.entry("min_batch_time", NUMBER),
      Map.entry("init_itable", NUMBER),
      Map.entry("journal_ioprio", Pattern.compile("[0-7]")),
      Map.entry("resgid", NUMBER),
      Map.entry("resuid", NUMBER));

  private static final Set<String> XFS_FLAGS = Set.of(
      "nouuid", "attr2", "noattr2", "largeio", "nolargeio", "inode32", "inode64", "swalloc", "noalign", "wsync",
      "discard", "nodiscard", "grpid", "bsdgroups", "nogrpid", "sysvgroups", "filestreams", "ikeep", "noikeep",
      "quota", "noquota", "uquota", "usrquota", "gquota", "grpquota", "pquota", "prjquota", "uqnoenforce",
      "qnoenforce", "gqnoenforce", "pqnoenforce");
  private static final Map<String, Pattern> XFS_VALUED = Map.of(
      "allocsize", SIZE,
      "logbsize", SIZE,
      "logbufs", NUMBER,
      "sunit", NUMBER,
      "swidth", NUMBER,
      "dax", Pattern.compile("always|never|inode"));

  private static final Set<String> NFS_FLAGS = Set.of(
      "tls", "notls", "iam", "noresvport", "resvport", "hard", "soft", "softreval", "nosoftreval", "ac", "noac",
      "cto", "nocto", "fsc", "nofsc", "sharecache", "nosharecache", "crossaccount", "ocsp", "noocsp", "bg", "fg",
      "intr", "nointr");
  private static final Map<String, Pattern> NFS_VALUED = Map.ofEntries(
      Map.entry("accesspoint", Pattern.compile("fsap-[0-9a-f]{8,40}")),
      Map.entry("mounttargetip", IP_ADDRESS),
      Map.entry("az", Pattern.compile("[a-z0-9-]{1,64}")),
      Map.entry("region", Pattern.compile("[a-z0-9-]{1,64}")),
      Map.entry("awsprofile", WORD),
      Map.entry("netns", ABSOLUTE_PATH),
      Map.entry("tlsport", NUMBER),
      Map.entry("rsize", NUMBER),
      Map.entry("wsize", NUMBER),
      Map.entry("timeo", NUMBER),
      Map.entry("retrans", NUMBER),
      Map.entry("retry", NUMBER),
      Map.entry("nfsvers", Pattern.compile("[34](\\.[012])?")),
      Map.entry("vers", Pattern.compile("[34](\\.[012])?")),
      Map.entry("minorversion", Pattern.compile("[012]")),
      Map.entry("proto", Pattern.compile("tcp6?")),
      Map.entry("port", NUMBER),
      Map.entry("sec", Pattern.compile("sys")),
      Map.entry("lookupcache", Pattern.compile("all|none|pos|positive")),
      Map.entry("local_lock", Pattern.compile("none|all|flock|posix")),
      Map.entry("actimeo", NUMBER),
      Map.entry("acregmin", NUMBER),
      Map.entry("acregmax", NUMBER),
      Map.entry("acdirmin", NUMBER),
      Map.entry("acdirmax", NUMBER));

  /** Options that are refused in every family, with the reason given to the operator. */
  private static final Map<String, String> FORBIDDEN = Map.ofEntries(
      Map.entry("bind", "the driver decides when to bind mount"),
      Map.entry("rbind", "the driver decides when to bind mount"),
      Map.entry("remount", "the driver decides when to remount"),
      Map.entry("move", "moving mounts is not a mount option of a volume"),
      Map.entry("loop", "a volume is never mounted through a loop device"),
      Map.entry("offset", "a volume is mounted whole"),
      Map.entry("sizelimit", "a volume is mounted whole"),
      Map.entry("user", "user mounts are not allowed"),
      Map.entry("users", "user mounts are not allowed"),
      Map.entry("owner", "user mounts are not allowed"),
      Map.entry("group", "user mounts are not allowed"));

  private MountOptions() {}

  /**
   * Checks every option against the family's allowlist.
   *
   * @param options options as given (an entry may itself hold several comma-separated options)
   * @return the options split into single entries, in order, without duplicates
   * @throws InvalidMountOptionException naming the first option that is not allowed
   */
  public static List<String> validate(Family family, Collection<String> options) {
    var accepted = new LinkedHashSet<String>();
    for (var entry : options) {
      for (var option : split(entry)) {
        check(family, option);
        accepted.add(option);
      }
    }
    return List.copyOf(accepted);
  }

  /**
   * A read-only mount is read-only whatever its options say: {@code rw} with a read-only publish (or a read-only
   * access mode) is a contradiction the caller must resolve, not something for the last option to decide.
   *
   * @param options options as given (an entry may itself hold several comma-separated options)
   * @throws InvalidMountOptionException naming {@code rw} when {@code readOnly}
   */
  public static void checkReadOnly(boolean readOnly, Collection<String> options) {
    if (!readOnly) {
      return;
    }
    for (var entry : options) {
      for (var option : split(entry)) {
        if (option.strip().equalsIgnoreCase("rw")) {
          throw new InvalidMountOptionException(option, "mount option \"rw\" conflicts with a read-only publish "
              + "(readonly or a read-only access mode): remove rw from the mountOptions, or publish read-write");
        }
      }
    }
  }

  private static void check(Family family, String option) {
    if (option.isEmpty() || option.chars().anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
      throw new InvalidMountOptionException(option,
          "mount option \"" + option + "\" is empty or contains whitespace or control characters");
    }
    int equals = option.indexOf('=');
    var key = equals < 0 ? option : option.substring(0, equals);
    var forbidden = forbiddenReason(key);
    if (forbidden.isPresent()) {
      throw new InvalidMountOptionException(option,
          "mount option \"" + option + "\" is not allowed: " + forbidden.get() + "; remove it from the "
              + "StorageClass mountOptions or the PersistentVolume");
    }
    if (equals < 0) {
      if (flags(family).contains(option)) {
        return;
      }
    } else {
      var pattern = valued(family, key);
      if (pattern != null) {
        if (pattern.matcher(option.substring(equals + 1)).matches()) {
          return;
        }
        throw new InvalidMountOptionException(option, "mount option \"" + option + "\" has a value that is not "
            + "allowed for " + describe(family) + " volumes; expected " + key + "=" + pattern.pattern());
      }
    }
    throw new InvalidMountOptionException(option, "mount option \"" + option + "\" is not allowed for "
        + describe(family) + " volumes; allowed: " + allowed(family));
  }

  private static Optional<String> forbiddenReason(String key) {
    var reason = FORBIDDEN.get(key);
    if (reason != null) {
      return Optional.of(reason);
    }
    if (key.matches("r?(shared|private|slave|unbindable)") || key.startsWith("make-")) {
      return Optional.of("mount propagation is set by the kubelet, not by volume options");
    }
    if (key.startsWith("x-") || key.startsWith("X-")) {
      return Optional.of("userspace mount helper options are not passed through");
    }
    return Optional.empty();
  }

  /**
   * Splits on commas that are not inside double quotes: an SELinux {@code context="...:c0,c1"} option carries a
   * comma in its value, while {@code "ro,bind"} is two options and each is checked.
   */
  static List<String> split(String entry) {
    var parts = new ArrayList<String>();
    var current = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < entry.length(); i++) {
      char c = entry.charAt(i);
      if (c == '"') {
        quoted = !quoted;
      }
      if (c == ',' && !quoted) {
        parts.add(current.toString());
        current.setLength(0);
      } else {
        current.append(c);
      }
    }
    parts.add(current.toString());
    return parts;
  }

  private static Set<String> flags(Family family) {
    var flags = new TreeSet<>(COMMON_FLAGS);
    flags.addAll(switch (family) {
      case EXT -> EXT_FLAGS;
      case XFS -> XFS_FLAGS;
      case NFS -> NFS_FLAGS;
    });
    return flags;
  }

  private static Pattern valued(Family family, String key) {
    var specific = switch (family) {
      case EXT -> EXT_VALUED;
      case XFS -> XFS_VALUED;
      case NFS -> NFS_VALUED;
    };
    return specific.getOrDefault(key, COMMON_VALUED.get(key));
  }

  private static String allowed(Family family) {
    var names = flags(family);
    var specific = switch (family) {
      case EXT -> EXT_VALUED;
      case XFS -> XFS_VALUED;
      case NFS -> NFS_VALUED;
    };
    specific.keySet().forEach(key -> names.add(key + "="));
    COMMON_VALUED.keySet().forEach(key -> names.add(key + "="));
    return names.stream().collect(Collectors.joining(" "));
  }

  private static String describe(Family family) {
    return switch (family) {
      case EXT -> "ext3/ext4";
      case XFS -> "xfs";
      case NFS -> "NFS/EFS";
    };
  }
}
