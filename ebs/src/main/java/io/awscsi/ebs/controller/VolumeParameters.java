package io.awscsi.ebs.controller;

import io.awscsi.core.errors.DriverException;
import io.awscsi.ebs.volume.EbsFileSystems;
import io.awscsi.core.provider.VolumeCapability;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The StorageClass parameters of CreateVolume (plus VolumeAttributesClass mutable parameters, which win), parsed and
 * checked. Keys match case-insensitively as upstream; an unknown key or a bad value is InvalidArgument naming it.
 * 0 means "not set" for the numbers.
 */
public record VolumeParameters(
    VolumeType type,
    int iops,
    int iopsPerGiB,
    boolean allowAutoIopsPerGiBIncrease,
    boolean allowAutoIopsIncreaseOnModify,
    int throughput,
    boolean encrypted,
    String kmsKeyId,
    String fsType,
    Map<String, String> formatOptions,
    int initializationRate,
    boolean blockAttachUntilInitialized,
    Map<String, String> tagSpecifications,
    Map<String, String> templateFields,
    Map<String, String> createdForTags) {

  private static final Logger LOG = LogManager.getLogger(VolumeParameters.class);

  static final String PVC_NAME = "csi.storage.k8s.io/pvc/name";
  static final String PVC_NAMESPACE = "csi.storage.k8s.io/pvc/namespace";
  static final String PV_NAME = "csi.storage.k8s.io/pv/name";
  static final String DEFAULT_FS_TYPE = "ext4";

  /**
   * Every StorageClass key CreateVolume accepts, spelt as upstream documents it (matched case-insensitively);
   * {@code tagSpecification_N} stands for every key with the case-sensitive {@code tagSpecification} prefix. Any other
   * key is refused before the switch below reads it, so this set is what the parser accepts
   * (docs/parameter-effects.json must name a test for each).
   */
  static final Set<String> STORAGE_CLASS_KEYS = Set.of("type", "iops", "iopsPerGB", "allowAutoIOPSPerGBIncrease",
      "allowAutoIOPSIncreaseOnModify", "throughput", "encrypted", "kmsKeyId", VolumeContextKeys.FS_TYPE, "fstype",
      "blockSize", "inodeSize", "bytesPerInode", "numberOfInodes", "ext4ClusterSize", "ext4BigAlloc",
      "ext4EncryptionSupport", "volumeInitializationRate", "blockAttachUntilInitialized", "blockExpress", PVC_NAME,
      PVC_NAMESPACE, PV_NAME, "tagSpecification_N");

  /** The VolumeAttributesClass keys CreateVolume accepts (exact, as upstream), as {@link #STORAGE_CLASS_KEYS}. */
  static final Set<String> MUTABLE_KEYS_AT_CREATE = Set.of("type", "volumeType", "iops", "throughput",
      "tagSpecification_N");

  private static final Set<String> STORAGE_CLASS_KEYS_LOWER = STORAGE_CLASS_KEYS.stream()
      .map(k -> k.toLowerCase(Locale.ROOT)).collect(java.util.stream.Collectors.toUnmodifiableSet());

  public VolumeParameters {
    formatOptions = Map.copyOf(formatOptions);
    tagSpecifications = Map.copyOf(tagSpecifications);
    templateFields = Map.copyOf(templateFields);
    createdForTags = Map.copyOf(createdForTags);
  }

  /** Parses CreateVolume's parameters; {@code capabilities} decide which mkfs options are allowed. */
  public static VolumeParameters parse(Map<String, String> parameters, Map<String, String> mutableParameters,
      java.util.List<VolumeCapability> capabilities) {
    VolumeType type = VolumeType.GP3;
    int iops = 0;
    int iopsPerGiB = 0;
    boolean autoIncrease = false;
    boolean autoOnModify = false;
    int throughput = 0;
    boolean encrypted = false;
    String kmsKeyId = "";
    String fsType = "";
    Map<String, String> format = new LinkedHashMap<>();
    int initRate = 0;
    boolean blockUntilInitialized = false;
    Map<String, String> tagSpecs = new LinkedHashMap<>();
    Map<String, String> fields = new HashMap<>(Map.of("PVCName", "", "PVCNamespace", "", "PVName", ""));
    Map<String, String> createdFor = new LinkedHashMap<>();

    // Upstream: pkg/driver/controller.go CreateVolume, the switch on strings.ToLower(key). Booleans are isTrue (only
    // "true"), numbers strconv.ParseInt(value, 10, 32) and a value <= 0 leaves the setting off (cloud.CreateDisk only
    // uses values > 0). Coercions upstream does silently are done here too, with one WARN line each.
    for (Map.Entry<String, String> e : parameters.entrySet()) {
      String key = e.getKey();
      String value = e.getValue();
      if (!STORAGE_CLASS_KEYS_LOWER.contains(key.toLowerCase(Locale.ROOT)) && !key.startsWith(TAG_PREFIX)) {
        throw unknownKey(key);
      }
      switch (key.toLowerCase(Locale.ROOT)) {
        case "type" -> type = volumeType(key, value);
        case "iops" -> iops = int32(key, value);
        case "iopspergb" -> iopsPerGiB = int32(key, value);
        case "allowautoiopspergbincrease" -> autoIncrease = isTrue(key, value);
        case "allowautoiopsincreaseonmodify" -> autoOnModify = isTrue(key, value);
        case "throughput" -> throughput = int32(key, value);
        case "encrypted" -> encrypted = isTrue(key, value);
        case "kmskeyid" -> kmsKeyId = value;
        case VolumeContextKeys.FS_TYPE -> fsType = fsType(key, value);
        case "fstype" -> LOG.warn("StorageClass parameter \"{}\" is deprecated and ignored (as upstream); use "
            + "csi.storage.k8s.io/fstype", key);
        case VolumeContextKeys.BLOCK_SIZE, VolumeContextKeys.INODE_SIZE, VolumeContextKeys.BYTES_PER_INODE,
            VolumeContextKeys.NUMBER_OF_INODES, VolumeContextKeys.EXT4_CLUSTER_SIZE -> {
          // Upstream: util.StringIsAlphanumeric, "" accepted and means "not set".
          if (!value.isEmpty()) {
            format.put(key.toLowerCase(Locale.ROOT), Integer.toString(positive(key, value)));
          }
        }
        case VolumeContextKeys.EXT4_BIG_ALLOC, VolumeContextKeys.EXT4_ENCRYPTION_SUPPORT -> {
          if (isTrue(key, value)) {
            format.put(key.toLowerCase(Locale.ROOT), "true");
          }
        }
        case "volumeinitializationrate" -> initRate = int32(key, value);
        case "blockattachuntilinitialized" -> blockUntilInitialized = isTrue(key, value);
        case "blockexpress" -> LOG.warn("StorageClass parameter \"{}\" is deprecated and does nothing (as upstream)",
            key);
        case PVC_NAME -> {
          fields.put("PVCName", value);
          createdFor.put("kubernetes.io/created-for/pvc/name", value);
        }
        case PVC_NAMESPACE -> {
          fields.put("PVCNamespace", value);
          createdFor.put("kubernetes.io/created-for/pvc/namespace", value);
        }
        case PV_NAME -> {
          fields.put("PVName", value);
          createdFor.put("kubernetes.io/created-for/pv/name", value);
        }
        default -> {
          // Upstream: strings.HasPrefix(key, TagKeyPrefix) on the key as written, so the prefix is case-sensitive.
          if (!key.startsWith(TAG_PREFIX)) {
            throw unknownKey(key);
          }
          tagSpecs.put(key, value);
        }
      }
    }
    // VolumeAttributesClass values win over the StorageClass (upstream's precedence). Upstream matches these keys
    // exactly (switch key, no ToLower); volumeType is the deprecated spelling, ignored when type is also given.
    for (Map.Entry<String, String> e : mutableParameters.entrySet()) {
      String key = e.getKey();
      if (!MUTABLE_KEYS_AT_CREATE.contains(key) && !key.startsWith(TAG_PREFIX)) {
        throw unknownMutableKey(key);
      }
      switch (key) {
        case "type" -> type = volumeType(key, e.getValue());
        case "volumeType" -> {
          if (mutableParameters.containsKey("type")) {
            LOG.warn("mutable parameter \"volumeType\" ignored because \"type\" is also set (as upstream)");
          } else {
            type = volumeType(key, e.getValue());
          }
        }
        case "iops" -> iops = int32(key, e.getValue());
        case "throughput" -> throughput = int32(key, e.getValue());
        default -> {
          if (!key.startsWith(TAG_PREFIX)) {
            throw unknownMutableKey(key);
          }
          tagSpecs.put(key, e.getValue());
        }
      }
    }
    // Upstream: ext4ClusterSize without ext4BigAlloc is InvalidArgument.
    if (format.containsKey(VolumeContextKeys.EXT4_CLUSTER_SIZE) && !format.containsKey(VolumeContextKeys.EXT4_BIG_ALLOC)) {
      throw DriverException.invalidArgument("ext4ClusterSize", "cannot be set when ext4BigAlloc is not \"true\"");
    }
    if (iops > 0 && iopsPerGiB > 0) {
      throw DriverException.invalidArgument("iopsPerGB", "iops and iopsPerGB cannot both be set; choose one");
    }
    if (!kmsKeyId.isEmpty()) {
      encrypted = true;
    }
    if (throughput > 0) {
      type.checkThroughput("throughput", throughput);
    }
    if (initRate > 0 && (initRate < 100 || initRate > 300)) {
      throw DriverException.invalidArgument("volumeInitializationRate", "must be 100 to 300 MiB/s; got " + initRate);
    }
    checkFormatOptions(format, fsType, capabilities);
    return new VolumeParameters(type, iops, iopsPerGiB, autoIncrease, autoOnModify, throughput, encrypted, kmsKeyId,
        fsType, format, initRate, blockUntilInitialized, tagSpecs, fields, createdFor);
  }

  private static DriverException unknownKey(String key) {
    return DriverException.invalidArgument(key, "unknown StorageClass parameter \"" + key
        + "\" for ebs.csi.aws.com; see the driver's parameters documentation");
  }

  private static DriverException unknownMutableKey(String key) {
    return DriverException.invalidArgument(key, "unknown mutable parameter \"" + key
        + "\" at CreateVolume; allowed: type, iops, throughput, tagSpecification_N");
  }

  /** The IOPS to ask EC2 for at {@code sizeGiB} (0 = EC2's default), checked against the type's limits. */
  int iopsFor(int sizeGiB) {
    if (iopsPerGiB > 0) {
      return type.iopsFromRatio(iopsPerGiB, sizeGiB, allowAutoIopsPerGiBIncrease);
    }
    if (iops > 0) {
      type.checkIops("iops", iops);
      int capped = type.capIops(iops, sizeGiB);
      if (capped != iops) {
        LOG.info("iops {} is more than a {} GiB {} volume can have; asking EC2 for {}", iops, sizeGiB, type.ec2Name(),
            capped);
      }
      return capped;
    }
    return iops;
  }

  /** The volume context for the node: the mkfs options and the file-system type when the class names one. */
  Map<String, String> volumeContext() {
    Map<String, String> context = new LinkedHashMap<>(formatOptions);
    if (!fsType.isEmpty()) {
      context.put(VolumeContextKeys.FS_TYPE, fsType);
    }
    if (blockAttachUntilInitialized) {
      context.put(VolumeContextKeys.BLOCK_ATTACH_UNTIL_INITIALIZED, "true");
    }
    return context;
  }

  /** Tags the driver keeps for later modifications (upstream's IOPSPerGb and AllowAutoIOPSIncreaseOnModify tags). */
  Map<String, String> driverTags() {
    Map<String, String> tags = new LinkedHashMap<>();
    if (iopsPerGiB > 0) {
      tags.put(ResourceTags.IOPS_PER_GB_TAG, Integer.toString(iopsPerGiB));
    }
    if (allowAutoIopsIncreaseOnModify) {
      tags.put(ResourceTags.AUTO_IOPS_ON_MODIFY_TAG, "true");
    }
    return tags;
  }

  private static void checkFormatOptions(Map<String, String> format, String fsTypeParameter,
      java.util.List<VolumeCapability> capabilities) {
    if (format.isEmpty()) {
      return;
    }
    for (VolumeCapability capability : capabilities) {
      String option = format.keySet().iterator().next();
      if (capability.isBlock()) {
        throw DriverException.invalidArgument(option, "mkfs options cannot be used with a block volume");
      }
      String fs = !capability.fsType().isEmpty() ? capability.fsType().toLowerCase(Locale.ROOT)
          : !fsTypeParameter.isEmpty() ? fsTypeParameter : DEFAULT_FS_TYPE;
      for (String key : format.keySet()) {
        boolean supported = switch (key) {
          case VolumeContextKeys.BLOCK_SIZE, VolumeContextKeys.INODE_SIZE -> !fs.equals("ntfs");
          case VolumeContextKeys.BYTES_PER_INODE, VolumeContextKeys.NUMBER_OF_INODES ->
              fs.equals("ext2") || fs.equals("ext3") || fs.equals("ext4");
          default -> fs.equals("ext4");
        };
        if (!supported) {
          throw DriverException.invalidArgument(key, "mkfs option " + key + " cannot be used with fstype " + fs);
        }
      }
    }
  }

  static int positive(String key, String value) {
    try {
      int n = Integer.parseInt(value.trim());
      if (n <= 0) {
        throw DriverException.invalidArgument(key, "must be a positive integer; got \"" + value + "\"");
      }
      return n;
    } catch (NumberFormatException e) {
      throw DriverException.invalidArgument(key, "must be a positive integer; got \"" + value + "\"");
    }
  }

  static boolean bool(String key, String value) {
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw DriverException.invalidArgument(key, "must be \"true\" or \"false\"; got \"" + value + "\"");
    };
  }

  /** Upstream's tag parameter prefix, matched case-sensitively (constants.go TagKeyPrefix). */
  static final String TAG_PREFIX = "tagSpecification";
  private static final java.util.regex.Pattern GO_INT = java.util.regex.Pattern.compile("[+-]?[0-9]+");

  /**
   * Upstream's isTrue: only the exact string "true" is true; every other value is false, never an error. A value that
   * looks like it meant true ("True", "yes", "1") is coerced to false as upstream does, and said so in a WARN line.
   */
  static boolean isTrue(String key, String value) {
    if (value.equals("true")) {
      return true;
    }
    if (!value.equals("false")) {
      LOG.warn("StorageClass parameter \"{}\": value {} is not \"true\", so it is false (upstream's isTrue "
          + "accepts only \"true\")", key, io.awscsi.core.json.JsonQuoting.quoted(value, 120));
    }
    return false;
  }

  /**
   * Upstream's strconv.ParseInt(value, 10, 32): an optional sign and decimal digits within int32, nothing else (no
   * spaces); otherwise InvalidArgument. A value <= 0 parses but upstream's CreateDisk ignores it, so it is 0 ("not
   * set") here; a negative one gets a WARN line.
   */
  static int int32(String key, String value) {
    long n;
    try {
      if (!GO_INT.matcher(value).matches()) {
        throw new NumberFormatException();
      }
      n = Long.parseLong(value);
    } catch (NumberFormatException e) {
      n = Long.MAX_VALUE;
    }
    if (n > Integer.MAX_VALUE || n < Integer.MIN_VALUE) {
      throw DriverException.invalidArgument(key, "could not parse \"" + value + "\" as a 32-bit integer");
    }
    if (n < 0) {
      LOG.warn("StorageClass parameter \"{}\": negative value {} is ignored (as upstream)", key, n);
      return 0;
    }
    return (int) n;
  }

  /** Upstream passes type to EC2 as written; "" means gp3, anything EC2 does not know fails there (here: now). */
  static VolumeType volumeType(String key, String value) {
    if (value.isEmpty()) {
      return VolumeType.GP3;
    }
    for (VolumeType t : VolumeType.values()) {
      if (t.ec2Name().equals(value)) {
        return t;
      }
    }
    throw DriverException.invalidArgument(key, "unknown EBS volume type \"" + value + "\" (EC2 names are "
        + "lower case: gp3, gp2, io1, io2, sc1, st1, standard)");
  }

  private static String fsType(String key, String value) {
    return EbsFileSystems.normalize(value).orElseThrow(() -> DriverException.invalidArgument(key,
        "unsupported file-system type \"" + value + "\"; " + EbsFileSystems.supportedList()));
  }
}
