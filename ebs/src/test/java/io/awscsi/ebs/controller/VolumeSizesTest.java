package io.awscsi.ebs.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.CapacityRange;
import org.junit.jupiter.api.Test;
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
      "107374182400, 0, SC1",
      // Sizes whose rounding used to overflow: never a small volume, always OUT_OF_RANGE.
      "9223372036854775807, 0, GP3",
      "9223372035781033985, 0, GP3",
      "9223372036854775807, 9223372036854775807, IO2",
      "70368744177665, 0, GP3"})
  void outsideTheTypeOrRangeIsOutOfRange(long required, long limit, VolumeType type) {
    assertThatThrownBy(() -> VolumeSizes.resolve(new CapacityRange(required, limit), 100, type))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.OutOfRange.class));
  }

  @ParameterizedTest(name = "{0} bytes -> {1} GiB")
  @CsvSource({"0, 0", "1, 1", "1073741824, 1", "1073741825, 2", "9223372036854775807, 8589934592",
      "9223372035781033985, 8589934592", "9223372035781033984, 8589934591"})
  void ceilGiBIsExactForEveryLong(long bytes, long gib) {
    assertThat(VolumeSizes.ceilGiB(bytes)).isEqualTo(gib);
  }

  @Test
  void theMaximumNamesRequiredBytesAndTheTypesLimit() {
    assertThatThrownBy(() -> VolumeSizes.resolve(new CapacityRange(Long.MAX_VALUE, 0), 100, VolumeType.GP3))
        .hasMessageContaining("capacity_range.required_bytes 9223372036854775807 asks for 8589934592 GiB")
        .hasMessageContaining("gp3 volume must be 1 to 65536 GiB");
    assertThatThrownBy(() -> VolumeSizes.resolve(new CapacityRange(0, 10L << 30), 125, VolumeType.ST1))
        .hasMessageContaining("capacity_range.limit_bytes");
  }

  @ParameterizedTest(name = "expand {0}..{1} of a 10 GiB gp3 -> {2} GiB")
  @CsvSource({"21474836480, 0, 20", "0, 21474836480, 10", "10737418240, 10737418240, 10", "1, 0, 10", "0, 0, 10",
      "68719476736000, 0, 64000"})
  void expandsToWholeGiB(long required, long limit, int expected) {
    assertThat(VolumeSizes.forExpand(new CapacityRange(required, limit), 10, VolumeType.GP3, "vol-1"))
        .isEqualTo(expected);
  }

  @ParameterizedTest(name = "expand {0}..{1} of a 10 GiB gp3 is out of range")
  @CsvSource({"9223372036854775807, 0", "9223372035781033985, 0", "70368744177665, 0", "0, 5368709120",
      "16106127360, 15032385536"})
  void expandOutsideTheTypeOrRangeIsOutOfRange(long required, long limit) {
    assertThatThrownBy(() -> VolumeSizes.forExpand(new CapacityRange(required, limit), 10, VolumeType.GP3, "vol-1"))
        .isInstanceOfSatisfying(DriverException.class,
            e -> assertThat(e.error()).isInstanceOf(DriverError.OutOfRange.class));
    assertThatThrownBy(() -> VolumeSizes.forExpand(new CapacityRange(Long.MAX_VALUE, 0), 10, null, "vol-1"))
        .hasMessageContaining("capacity_range.required_bytes");
  }
}
