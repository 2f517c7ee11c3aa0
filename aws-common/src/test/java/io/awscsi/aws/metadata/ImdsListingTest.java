package io.awscsi.aws.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The counts taken from IMDS listings (the metadata mock serves one ENI and one EBS mapping only); {@code ;} stands
 * for a line break in the cases.
 */
class ImdsListingTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "one ENI           | 0e:49:61:0f:c3:11/                                         | 1",
        "three ENIs        | 0e:49:61:0f:c3:11/;0e:49:61:0f:c3:22/;02:AB:cd:00:11:22/  | 3",
        "dash separators   | 0e-49-61-0f-c3-11/                                         | 1",
        "empty             | ''                                                         | 0",
        "not MACs          | eth0/;lo/                                                 | 0",
      })
  void countsMacAddresses(String name, String listing, int expected) {
    assertThat(ImdsMetadataSource.countMacAddresses(listing.replace(";", "\n"))).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "root only                  | ami;root                              | 0",
        "mock default               | ami;ebs0;ephemeral0;root;swap        | 1",
        "two extra volumes          | ami;ebs1;ebs2;root                  | 2",
        "instance store not counted | ami;ephemeral0;ephemeral1;root      | 0",
        "empty                      | ''                                     | 0",
      })
  void countsEbsMappings(String name, String listing, int expected) {
    assertThat(ImdsMetadataSource.countEbsMappings(listing.replace(";", "\n"))).isEqualTo(expected);
  }
}
