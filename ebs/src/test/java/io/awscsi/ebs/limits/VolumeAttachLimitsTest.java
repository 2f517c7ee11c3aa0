package io.awscsi.ebs.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.aws.metadata.InstanceMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class VolumeAttachLimitsTest {

  @ParameterizedTest(name = "{0}: {1} with {2} ENIs, {3} boot EBS, limit flag {4}, reserved flag {5} -> {6}")
  @CsvSource({
    // case,                                   type,          enis, ebs, limit, reserved, expected
    "'Nitro default: 27 - root',               m5.large,      1,    0,   -1,    -1,       26",
    "'shared: extra ENIs take slots',          m5.large,      3,    0,   -1,    -1,       24",
    "'shared: boot EBS volumes take slots',    m5.large,      1,    2,   -1,    -1,       24",
    "'shared with instance store',             c5d.24xlarge,  3,    2,   -1,    -1,       18",
    "'dedicated: ENIs do not count',           m7i.16xlarge,  4,    0,   -1,    -1,       47",
    "'dedicated: boot EBS volumes count',      m7i.48xlarge,  2,    3,   -1,    -1,       124",
    "'Xen: 39 dedicated',                      m4.large,      2,    0,   -1,    -1,       38",
    "'explicit limit wins as it is',           m5.large,      8,    5,   5,     -1,       5",
    "'explicit limit 0 is returned as it is',  m5.large,      1,    0,   0,     -1,       0",
    "'reserved flag replaces boot count+root', m5.large,      2,    5,   -1,    3,        23",
    "'reserved flag on dedicated',             m7i.large,     2,    5,   -1,    0,        32",
    "'floored at 1',                           d3.8xlarge,    4,    1,   -1,    -1,       1",
    "'floored at 1 with big reservation',      m5.large,      1,    0,   -1,    40,       1",
  })
  void maxVolumesPerNode(
      String name, String type, int enis, int ebs, int limitFlag, int reservedFlag, long expected) {
    VolumeAttachLimits limits = VolumeAttachLimits.withSettings(new VolumeAttachLimitSettings(limitFlag, reservedFlag));

    assertThat(limits.maxVolumesPerNode(type, enis, ebs)).as(name).isEqualTo(expected);
  }

  @Test
  void readsTypeEnisAndMappingsFromInstanceMetadata() {
    InstanceMetadata metadata =
        new InstanceMetadata("i-0abc", "c5d.24xlarge", "us-east-1", "us-east-1a", null, 3, 2, null);

    assertThat(VolumeAttachLimits.withSettings(VolumeAttachLimitSettings.defaults()).maxVolumesPerNode(metadata))
        .isEqualTo(18);
  }

  @ParameterizedTest
  @CsvSource({"5, 2", "-2, -1", "-1, -7"})
  void invalidFlagCombinationsAreRejected(int limit, int reserved) {
    assertThatThrownBy(() -> new VolumeAttachLimitSettings(limit, reserved))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--");
  }
}
