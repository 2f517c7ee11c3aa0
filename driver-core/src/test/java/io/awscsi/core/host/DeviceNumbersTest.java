package io.awscsi.core.host;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DeviceNumbersTest {

  /** dev_t values as glibc's makedev(major, minor) builds them. */
  @ParameterizedTest
  @CsvSource({
      "1792, 7:0",
      "66305, 259:1",
      "1050668, 8:300",
      "17592186275842, 5000:2"})
  void decodesMajorAndMinorLikeMountinfo(long dev, String expected) {
    assertThat(DeviceNumbers.format(dev)).isEqualTo(expected);
  }
}
