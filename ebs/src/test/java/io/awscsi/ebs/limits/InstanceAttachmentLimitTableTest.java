package io.awscsi.ebs.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class InstanceAttachmentLimitTableTest {

  private final InstanceAttachmentLimitTable table = InstanceAttachmentLimitTable.standard();

  /** Spot checks against the numbers EC2 DescribeInstanceTypes reports (as upstream's table has them). */
  @ParameterizedTest(name = "{0} -> {1} {2}")
  @CsvSource({
    // Nitro types not listed: the default
    "m5.large,            27, shared",
    "c6i.32xlarge,        27, shared",
    "t3.micro,            27, shared",
    "i3.metal,            27, shared",
    "unknown99.large,     27, shared",
    "nodot,               27, shared",
    // Xen
    "m4.large,            39, dedicated",
    "t2.micro,            39, dedicated",
    "x1e.32xlarge,        39, dedicated",
    "p3.16xlarge,         39, dedicated",
    // the dedicated ladder
    "m7i.large,           32, dedicated",
    "m7i.16xlarge,        48, dedicated",
    "m7i.24xlarge,        64, dedicated",
    "m7i.48xlarge,        128, dedicated",
    "m7i.metal-24xl,      39, dedicated",
    "m7i.metal-48xl,      79, dedicated",
    "c7a.32xlarge,        88, dedicated",
    "i7ie.18xlarge,       48, dedicated",
    "r7iz.metal-16xl,     39, dedicated",
    "r7iz.metal-32xl,     79, dedicated",
    "u7i-12tb.224xlarge,  128, dedicated",
    "x8i.64xlarge,        128, dedicated",
    // the API says shared, these are dedicated (upstream's override list)
    "i7i.metal-48xl,      79, dedicated",
    "c8gb.metal-24xl,     39, dedicated",
    "x8i.metal-96xl,      79, dedicated",
    // exceptions to the ladder
    "c8gn.48xlarge,      128, dedicated",
    "r8gn.metal-48xl,     78, dedicated",
    "c8in.96xlarge,      128, dedicated",
    "m8in.metal-96xl,    78, dedicated",
    "g7.48xlarge,        128, dedicated",
    "r8gb.metal-48xl,     78, dedicated",
    "m8a.metal-24xl,      64, dedicated",
    "m8i.metal-48xl,      64, dedicated",
    "x8aedz.12xlarge,     64, dedicated",
    "x8aedz.metal-24xl,   79, dedicated",
    "hpc7a.96xlarge,      27, dedicated",
    "p4d.24xlarge,        28, dedicated",
    "p5.48xlarge,         64, dedicated",
    "p5.4xlarge,          32, dedicated",
    "trn2.48xlarge,       64, dedicated",
    // shared with instance store volumes, metal
    "c5d.24xlarge,        23, shared",
    "c5d.9xlarge,         26, shared",
    "m5d.4xlarge,         25, shared",
    "i4i.32xlarge,        19, shared",
    "d3en.12xlarge,       3, shared",
    "g5.48xlarge,         9, shared",
    "m5.metal,            31, shared",
    "r6id.metal,          31, shared",
    "mac2.metal,          10, shared",
    "mac1.metal,          16, shared",
    "inf2.48xlarge,       28, shared",
    "M5D.4XLARGE,         25, shared",
  })
  void limitOf(String instanceType, int max, String kind) {
    assertThat(table.limitOf(instanceType)).isEqualTo(new AttachmentLimit(max, kind.equals("shared")));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "medium, 32", "large, 32", "xlarge, 32", "2xlarge, 32", "12xlarge, 32", "16xlarge, 48", "18xlarge, 48",
    "24xlarge, 64", "32xlarge, 88", "48xlarge, 128", "96xlarge, 128", "224xlarge, 128",
    "metal-16xl, 39", "metal-24xl, 39", "metal-32xl, 79", "metal-48xl, 79"
  })
  void ladder(String size, int limit) {
    assertThat(InstanceAttachmentLimitTable.ladder(size)).isEqualTo(limit);
  }

  @ParameterizedTest
  @ValueSource(strings = {"metal", "flex", "xlargeish"})
  void ladderDoesNotGuessUnknownSizes(String size) {
    assertThat(InstanceAttachmentLimitTable.ladder(size)).isNull();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "shared m5d",
        "shared m5d large",
        "shared m5d large=x",
        "bogus m5d large=1",
        "xen m4 large=39",
        "shared m5d large=26 large=25",
        "shared m5d large=0",
      })
  void malformedLinesAreRejectedWithTheirLineNumber(String line) {
    assertThatThrownBy(() -> InstanceAttachmentLimitTable.parse(List.of("# header", line)))
        .isInstanceOf(RuntimeException.class)
        .hasMessageContaining("line 2");
  }

  @Test
  void aParsedTableAnswersFromItsLines() {
    InstanceAttachmentLimitTable parsed =
        InstanceAttachmentLimitTable.parse(
            List.of("xen zz1", "ladder zz7", "dedicated zz7 48xlarge=64", "shared zz5d,zz6d large=26 metal=31"));

    assertThat(parsed.limitOf("zz1.large")).isEqualTo(AttachmentLimit.XEN);
    assertThat(parsed.limitOf("zz1.metal")).isEqualTo(AttachmentLimit.NITRO_DEFAULT);
    assertThat(parsed.limitOf("zz7.16xlarge")).isEqualTo(AttachmentLimit.dedicated(48));
    assertThat(parsed.limitOf("zz7.48xlarge")).isEqualTo(AttachmentLimit.dedicated(64));
    assertThat(parsed.limitOf("zz6d.metal")).isEqualTo(AttachmentLimit.shared(31));
    assertThat(parsed.limitOf("zz6d.xlarge")).isEqualTo(AttachmentLimit.NITRO_DEFAULT);
  }
}
