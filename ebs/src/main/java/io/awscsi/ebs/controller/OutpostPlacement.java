package io.awscsi.ebs.controller;

import static io.awscsi.aws.metadata.NodeTopology.EBS_ACCOUNT_ID_KEY;
import static io.awscsi.aws.metadata.NodeTopology.EBS_OUTPOST_ID_KEY;
import static io.awscsi.aws.metadata.NodeTopology.EBS_PARTITION_KEY;
import static io.awscsi.aws.metadata.NodeTopology.EBS_REGION_KEY;

import io.awscsi.aws.metadata.OutpostArn;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.TopologyRequirement;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Outpost a new volume goes to, from the CO's accessibility requirements, as upstream's {@code getOutpostArn}:
 * the first preferred segment carrying {@code topology.ebs.csi.aws.com/outpost-id}, else the first requisite one; its
 * ARN is rebuilt from that segment's outpost, region, partition and account keys (what NodeGetInfo reports on an
 * Outpost). No such segment: the volume goes to the region.
 *
 * <p>Better than upstream: a segment whose outpost keys are incomplete or malformed is INVALID_ARGUMENT naming it
 * (upstream silently creates the volume in the region, where the Outpost node can never attach it).
 */
final class OutpostPlacement {

  private OutpostPlacement() {}

  /** The Outpost the requirements place a new volume on; empty for the region. */
  static Optional<OutpostArn> pick(TopologyRequirement topology) {
    Optional<OutpostArn> preferred = first(topology.preferred(), "accessibility_requirements.preferred");
    return preferred.isPresent() ? preferred : first(topology.requisite(), "accessibility_requirements.requisite");
  }

  private static Optional<OutpostArn> first(List<Map<String, String>> segments, String field) {
    for (int i = 0; i < segments.size(); i++) {
      Optional<OutpostArn> outpost = of(segments.get(i), field + "[" + i + "]");
      if (outpost.isPresent()) {
        return outpost;
      }
    }
    return Optional.empty();
  }

  /**
   * The Outpost one segment names; empty when it has no outpost-id key.
   *
   * @throws DriverException InvalidArgument naming {@code field} when the outpost keys do not make an Outpost ARN
   */
  static Optional<OutpostArn> of(Map<String, String> segment, String field) {
    if (!segment.containsKey(EBS_OUTPOST_ID_KEY)) {
      return Optional.empty();
    }
    for (String key : List.of(EBS_OUTPOST_ID_KEY, EBS_REGION_KEY, EBS_PARTITION_KEY, EBS_ACCOUNT_ID_KEY)) {
      String value = segment.get(key);
      if (value == null || value.isBlank()) {
        throw DriverException.invalidArgument(field, key + " is " + (value == null ? "missing" : "empty")
            + "; a segment with " + EBS_OUTPOST_ID_KEY + " needs " + EBS_REGION_KEY + ", " + EBS_PARTITION_KEY
            + " and " + EBS_ACCOUNT_ID_KEY + " too (as NodeGetInfo reports them on an Outpost)");
      }
    }
    String arn = "arn:" + segment.get(EBS_PARTITION_KEY) + ":outposts:" + segment.get(EBS_REGION_KEY) + ":"
        + segment.get(EBS_ACCOUNT_ID_KEY) + ":outpost/" + segment.get(EBS_OUTPOST_ID_KEY);
    return Optional.of(OutpostArn.parse(arn).orElseThrow(() -> DriverException.invalidArgument(field,
        "its outpost keys make " + arn + ", which is not an Outpost ARN (arn:<partition>:outposts:<region>:"
            + "<12-digit account>:outpost/op-<id>)")));
  }

  /** The Outpost of an EC2 volume's {@code OutpostArn}; empty for a volume in the region (or an ARN not parsed). */
  static Optional<OutpostArn> ofVolume(String outpostArn) {
    return outpostArn == null || outpostArn.isEmpty() ? Optional.empty() : OutpostArn.parse(outpostArn);
  }
}
