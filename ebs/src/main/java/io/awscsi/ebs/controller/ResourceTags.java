package io.awscsi.ebs.controller;

import io.awscsi.aws.tags.TagLimits;
import io.awscsi.core.errors.DriverException;
import io.awscsi.ebs.cloud.EbsCloud;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The tags put on volumes and snapshots, as upstream: user tags from {@code tagSpecification_N} (Go-template values),
 * the {@code --extra-tags}, the cluster tags of {@code --k8s-tag-cluster-id}, the {@code kubernetes.io/created-for}
 * tags from the sidecars' extra metadata, and the driver's own tags ({@code CSIVolumeName} /
 * {@code CSIVolumeSnapshotName}, {@code ebs.csi.aws.com/cluster=true}) which nothing can override.
 */
final class ResourceTags {

  private static final Logger LOG = LogManager.getLogger(ResourceTags.class);

  static final String CLUSTER_TAG = "ebs.csi.aws.com/cluster";
  static final String CLUSTER_NAME_TAG = "ebs.csi.aws.com/cluster-name";
  static final String IOPS_PER_GB_TAG = "ebs.csi.aws.com/IOPSPerGb";
  static final String AUTO_IOPS_ON_MODIFY_TAG = "ebs.csi.aws.com/AllowAutoIOPSIncreaseOnModify";
  static final String TAG_SPECIFICATION_PREFIX = "tagspecification";
  static final String TAG_DELETION_PREFIX = "tagdeletion";
  /** How an error about the set of tags as a whole names the parameters. */
  static final String TAG_SPECIFICATION_PARAMETERS = "tagSpecification_N";

  private final Map<String, String> extraTags;
  private final String clusterId;
  private final boolean warnOnInvalidTag;

  ResourceTags(Map<String, String> extraTags, String clusterId, boolean warnOnInvalidTag) {
    this.extraTags = Map.copyOf(extraTags);
    this.clusterId = clusterId == null ? "" : clusterId;
    this.warnOnInvalidTag = warnOnInvalidTag;
  }

  /** Why {@code key} may not be set by a user or {@code --extra-tags}, or null when it may. */
  static String reservedReason(String key) {
    if (key.equals(EbsCloud.VOLUME_NAME_TAG) || key.equals(EbsCloud.SNAPSHOT_NAME_TAG)) {
      return "tag key " + key + " is set by the driver";
    }
    if (key.startsWith("kubernetes.io")) {
      return "tag keys starting with kubernetes.io are reserved";
    }
    if (key.startsWith("ebs.csi.aws.com/")) {
      return "tag keys starting with ebs.csi.aws.com/ are reserved for the driver";
    }
    // EC2's own limits (length, aws: prefix, control characters), before EC2 is asked.
    return TagLimits.keyProblem(key).orElse(null);
  }

  /**
   * Evaluates the {@code prefix_N} parameters ("key=value", value a template over {@code fields}) in order of N.
   * Bad entries are InvalidArgument naming the parameter, or dropped with a warning under --warn-on-invalid-tag.
   */
  Map<String, String> userTags(Map<String, String> parameters, Map<String, String> fields) {
    Map<String, String> specs = new TreeMap<>();
    parameters.forEach((k, v) -> {
      if (k.toLowerCase(Locale.ROOT).startsWith(TAG_SPECIFICATION_PREFIX)) {
        specs.put(k, v);
      }
    });
    Map<String, String> tags = new LinkedHashMap<>();
    specs.forEach((param, spec) -> {
      int eq = spec.indexOf('=');
      if (eq <= 0) {
        invalid(param, "must be \"key=value\" (got \"" + spec + "\")");
        return;
      }
      String key = spec.substring(0, eq).trim();
      String reason = reservedReason(key);
      if (reason != null) {
        invalid(param, reason);
        return;
      }
      try {
        String value = TagTemplate.evaluate(spec.substring(eq + 1), fields);
        Optional<String> problem = TagLimits.valueProblem(key, value);
        if (problem.isPresent()) {
          invalid(param, problem.get());
          return;
        }
        tags.put(key, value);
      } catch (TagTemplate.TemplateException e) {
        invalid(param, "template error in the value of tag " + key + ": " + e.getMessage());
      }
    });
    return tags;
  }

  private void invalid(String param, String reason) {
    if (warnOnInvalidTag) {
      LOG.warn("Ignoring invalid tag parameter {}: {}", param, reason);
      return;
    }
    throw DriverException.invalidArgument(param, reason);
  }

  /** All tags of a new volume named {@code name}. */
  Map<String, String> forVolume(String name, Map<String, String> userTags, Map<String, String> createdFor,
      Map<String, String> driverTags) {
    Map<String, String> tags = common(name, userTags, createdFor);
    tags.putAll(driverTags);
    tags.put(EbsCloud.VOLUME_NAME_TAG, name);
    return withinLimits(tags);
  }

  /** All tags of a new snapshot named {@code name}. */
  Map<String, String> forSnapshot(String name, Map<String, String> userTags, Map<String, String> createdFor) {
    Map<String, String> tags = common(name, userTags, createdFor);
    tags.put(EbsCloud.SNAPSHOT_NAME_TAG, name);
    return withinLimits(tags);
  }

  /**
   * All tags of the snapshots of a new volume group snapshot: the group's name, id and consistency on every member
   * (one CreateSnapshots call tags all its snapshots alike), never the single snapshot's name tag, so a
   * CreateSnapshot of the same name is not mistaken for a member.
   */
  Map<String, String> forGroupSnapshot(String name, String groupId, String consistency, Map<String, String> userTags,
      Map<String, String> createdFor) {
    Map<String, String> tags = common(name, userTags, createdFor);
    tags.put(EbsCloud.GROUP_SNAPSHOT_NAME_TAG, name);
    tags.put(EbsCloud.GROUP_SNAPSHOT_ID_TAG, groupId);
    tags.put(EbsCloud.GROUP_SNAPSHOT_CONSISTENCY_TAG, consistency);
    return withinLimits(tags);
  }

  /**
   * {@code tags} when EC2 takes them all on one resource. Too many is refused even under --warn-on-invalid-tag, as
   * upstream does: which tags to drop is not the driver's choice.
   */
  static Map<String, String> withinLimits(Map<String, String> tags) {
    if (tags.size() > TagLimits.MAX_TAGS) {
      throw DriverException.invalidArgument(TAG_SPECIFICATION_PARAMETERS, "a volume or snapshot can have at most "
          + TagLimits.MAX_TAGS + " tags, the driver's own and --extra-tags included; this one would have "
          + tags.size());
    }
    // Every key and value was checked where it came from; the driver's own values (a name, a cluster id) too here.
    TagLimits.problem(tags).ifPresent(problem -> {
      throw DriverException.invalidArgument(TAG_SPECIFICATION_PARAMETERS, problem);
    });
    return tags;
  }

  private Map<String, String> common(String name, Map<String, String> userTags, Map<String, String> createdFor) {
    Map<String, String> tags = new LinkedHashMap<>(extraTags);
    tags.putAll(userTags);
    tags.putAll(createdFor);
    if (!clusterId.isEmpty()) {
      tags.put("kubernetes.io/cluster/" + clusterId, "owned");
      tags.put("Name", clusterId + "-dynamic-" + name);
      tags.put("KubernetesCluster", clusterId);
      tags.put(CLUSTER_NAME_TAG, clusterId);
    }
    tags.put(CLUSTER_TAG, "true");
    return tags;
  }
}
