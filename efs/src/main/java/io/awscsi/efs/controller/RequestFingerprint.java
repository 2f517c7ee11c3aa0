package io.awscsi.efs.controller;

import io.awscsi.core.provider.AccessType;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.core.provider.VolumeRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Everything a CreateVolume asked for besides its name, capacity and secrets, in a canonical form: every parameter,
 * every mutable parameter and the set of capabilities. It is recorded with the volume (its access point's tag, its
 * efs-dir ledger entry, and in memory), so a repeated CreateVolume of the same name that differs in anything is
 * ALREADY_EXISTS, as the CSI spec asks, instead of returning the first volume as if it fitted or making a second.
 * Capacity is compared on its own, by range ({@link RecordedCapacity}).
 */
record RequestFingerprint(SortedMap<String, String> fields) {

  /** The access point tag that records the fingerprint's hash. */
  static final String TAG = "efs.csi.aws.com/request";

  RequestFingerprint {
    fields = new TreeMap<>(fields);
  }

  static RequestFingerprint of(VolumeRequest request) {
    SortedMap<String, String> fields = new TreeMap<>();
    request.parameters().forEach((k, v) -> fields.put("parameters." + k, v));
    request.mutableParameters().forEach((k, v) -> fields.put("mutable_parameters." + k, v));
    fields.put("volume_capabilities", capabilities(request.capabilities()));
    return new RequestFingerprint(fields);
  }

  /** SHA-256 of the canonical text: what the access point tag and the ledger keep. */
  String hash() {
    StringBuilder text = new StringBuilder();
    fields.forEach((k, v) -> text.append(k.length()).append(':').append(k).append(v.length()).append(':').append(v)
        .append('\n'));
    return ClientTokens.sha256Hex(text.toString());
  }

  /** What differs from {@code earlier}, for the refusal: "parameters.directoryPerms 700 -> 777". */
  List<String> differences(RequestFingerprint earlier) {
    List<String> out = new ArrayList<>();
    SortedMap<String, String> keys = new TreeMap<>(earlier.fields);
    keys.putAll(fields);
    for (String key : keys.keySet()) {
      String before = earlier.fields.get(key);
      String now = fields.get(key);
      if (before == null || now == null || !before.equals(now)) {
        out.add(key + " " + (before == null ? "(unset)" : "\"" + before + "\"") + " -> "
            + (now == null ? "(unset)" : "\"" + now + "\""));
      }
    }
    return out;
  }

  private static String capabilities(List<VolumeCapability> capabilities) {
    List<String> each = new ArrayList<>();
    for (VolumeCapability c : capabilities) {
      String type = switch (c.accessType()) {
        case AccessType.Block b -> "block";
        case AccessType.Mount m -> "mount(fs_type=" + m.fsType().toLowerCase(Locale.ROOT) + ", mount_flags="
            + m.mountFlags().stream().sorted().toList() + ", volume_mount_group=" + m.volumeMountGroup() + ")";
      };
      each.add(c.accessMode() + " " + type);
    }
    return String.join("; ", each.stream().sorted().distinct().toList());
  }
}
