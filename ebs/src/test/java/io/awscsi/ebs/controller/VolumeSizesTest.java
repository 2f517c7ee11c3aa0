package io.awscsi.ebs.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.CapacityRange;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class VolumeSizesTest {

  @ParameterizedTest(name = "required={0} limit={1} type={2} -> {3} GiB")
  @CsvSource({
      "0, 0, GP3, 100",
      "1, 0, GP3, 1",
      "1073741824, 0, GP3, 1",
      "1073741825, 0, GP3, 2",
      "10737418240, 10737418240, GP3, 10",
      "0, 5368709120, GP3, 5",
      "0, 0, ST1, 125",
      "4294967296, 0, IO2, 4"})
  void resolvesToWholeGiB(long required, long limit, VolumeType type, int expected) {
    int fallback = Math.max(VolumeSizes.DEFAULT_GIB, type.minGiB());
    assertThat(VolumeSizes.resolve(new CapacityRange(required, limit), fallback, type)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "required={0} limit={1} type={2} is out of range")
  @CsvSource({
      "1610612736, 1825361100, GP3",
      "0, 1000, GP3",
      "1073741824, 0, IO1",
      "70369817919488, 0, GP3",
      "2147483648000, 0, STANDARD",
      "107374182400, 0, SC1"})
  void outsideTheTypeOrRangeIsOutOfRange(long required, long limit, VolumeType type) {
    assertThatThrownBy(() -> VolumeSizes.resolve(new CapacityRange(required, limit), 100, type))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.OutOfRange.class));
  }
}
