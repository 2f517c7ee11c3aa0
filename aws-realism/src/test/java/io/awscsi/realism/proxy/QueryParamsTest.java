package io.awscsi.realism.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class QueryParamsTest {

  @Test
  void parsesDecodesAndEncodesBack() {
    var params = QueryParams.parse("Action=CreateVolume&TagSpecification.1.Tag.1.Value=a%20b%26c&Size=10");

    assertThat(params.get("TagSpecification.1.Tag.1.Value")).contains("a b&c");
    assertThat(QueryParams.parse(params.encode()).asMap()).isEqualTo(params.asMap());
  }

  @Test
  void listMembersAreOrderedByIndexNotText() {
    var params = QueryParams.parse("VolumeId.10=v10&VolumeId.2=v2&VolumeId.1=v1&VolumeIds=x");

    assertThat(params.list("VolumeId")).containsExactly("v1", "v2", "v10");
  }

  @Test
  void fingerprintIgnoresOrderAndTheNamedParameters() {
    var first = QueryParams.parse("Size=10&AvailabilityZone=us-east-1a&ClientToken=a");
    var second = QueryParams.parse("AvailabilityZone=us-east-1a&ClientToken=b&Size=10");
    var third = QueryParams.parse("AvailabilityZone=us-east-1a&ClientToken=a&Size=11");

    assertThat(first.fingerprint("ClientToken")).isEqualTo(second.fingerprint("ClientToken"));
    assertThat(first.fingerprint("ClientToken")).isNotEqualTo(third.fingerprint("ClientToken"));
  }
}
