package io.awscsi.aws.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MetadataFieldsTest {

  private static InstanceMetadata metadata(String id, String type, String region, String zone, String zoneId) {
    return new InstanceMetadata(id, type, region, zone, zoneId, 1, 0, null);
  }

  @ParameterizedTest
  @CsvSource({
    "i-0123abcd,                  m5.large,       us-east-1,     us-east-1a,         use1-az1",
    "i-0123456789abcdef0,         c7gn.16xlarge,  eu-west-3,     eu-west-3c,         euw3-az3",
    "s.i-0123456789abcdef0,       sbe-c.large,    us-west-2,     us-west-2b,",
    "hyperpod-abc1-i-0123abcd,    p5.48xlarge,    us-gov-west-1, us-gov-west-1a,     usgw1-az1",
    "i-0123456789abcdef0,         u-6tb1.metal,   us-west-2,     us-west-2-lax-1a,   usw2-lax1-az1",
    "i-0123456789abcdef0,         m7i-flex.large, us-east-1,     us-east-1-wl1-bos-wlz-1, use1-wl1-bos-wlz1",
  })
  void realAnswersPass(String id, String type, String region, String zone, String zoneId) throws Exception {
    InstanceMetadata m = metadata(id, type, region, zone, zoneId);
    assertThat(MetadataFields.check("imds", m)).isSameAs(m);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
    "i-../../etc/passwd  | m5.large     | us-east-1  | us-east-1a    | use1-az1 | instanceId",
    "i-0123abc           | m5.large     | us-east-1  | us-east-1a    | use1-az1 | instanceId",
    "i-0123ABCD          | m5.large     | us-east-1  | us-east-1a    | use1-az1 | instanceId",
    "i-0123abcd\\n       | m5.large     | us-east-1  | us-east-1a    | use1-az1 | instanceId",
    "i-0123abcd          | ../x.large   | us-east-1  | us-east-1a    | use1-az1 | instanceType",
    "i-0123abcd          | m5.large     | us-east-1/ | us-east-1/a   | use1-az1 | region",
    "i-0123abcd          | m5.large     | us-east-1  | us-west-2a    | use1-az1 | availabilityZone",
    "i-0123abcd          | m5.large     | us-east-1  | us-east-1a/.. | use1-az1 | availabilityZone",
    "i-0123abcd          | m5.large     | us-east-1  | us-east-1a    | ../az1   | availabilityZoneId",
  })
  void anythingElseIsRefusedNamingTheField(String id, String type, String region, String zone, String zoneId,
      String field) {
    InstanceMetadata m = metadata(id.replace("\\n", "\n"), type, region, zone, zoneId);

    assertThatThrownBy(() -> MetadataFields.check("kubernetes", m))
        .isInstanceOfSatisfying(InvalidMetadataException.class, e -> {
          assertThat(e.field()).isEqualTo(field);
          assertThat(e.source()).isEqualTo("kubernetes");
          assertThat(e.getMessage()).contains("source kubernetes gave " + field);
        });
  }

  @org.junit.jupiter.api.Test
  void aLongValueIsQuotedOnlyInPart() {
    InstanceMetadata m = metadata("i-" + "x".repeat(10_000), "m5.large", "us-east-1", "us-east-1a", null);

    assertThatThrownBy(() -> MetadataFields.check("imds", m)).hasMessageContaining("(10002 characters)")
        .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(600));
  }
}
