package io.awscsi.ebs.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.ebs.cloud.ListChunk;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ListTokensTest {

  @Test
  void roundTrips() {
    ListTokens.Position p = new ListTokens.Position("ec2|token==", 3);
    assertThat(ListTokens.decode(ListTokens.encode(p))).isEqualTo(p);
    assertThat(ListTokens.decode("")).isEqualTo(ListTokens.Position.START);
  }

  @ParameterizedTest
  @ValueSource(strings = {"garbage", "Zm9vYmFy", "ZWJzMXwtMXx4", "%%%"})
  void tokensNotIssuedHereAreAborted(String token) {
    assertThatThrownBy(() -> ListTokens.decode(token)).isInstanceOfSatisfying(DriverException.class,
        e -> assertThat(e.error()).isInstanceOf(DriverError.Aborted.class));
  }

  @Test
  void pagesSmallerThanEc2sMinimumWalkThroughOneEc2Page() {
    ListChunk<String> chunk = new ListChunk<>(List.of("a", "b", "c", "d", "e"), "next");
    EbsSnapshotManager.Slice<String> first = EbsSnapshotManager.page(chunk, ListTokens.Position.START, 2, "");
    assertThat(first.entries()).containsExactly("a", "b");
    ListTokens.Position second = ListTokens.decode(first.nextToken());
    assertThat(second).isEqualTo(new ListTokens.Position("", 2));
    EbsSnapshotManager.Slice<String> last = EbsSnapshotManager.page(chunk, new ListTokens.Position("", 4), 2, "t");
    assertThat(last.entries()).containsExactly("e");
    assertThat(ListTokens.decode(last.nextToken())).isEqualTo(new ListTokens.Position("next", 0));
    EbsSnapshotManager.Slice<String> all = EbsSnapshotManager.page(new ListChunk<>(List.of("x"), ""),
        ListTokens.Position.START, 0, "");
    assertThat(all.nextToken()).isEmpty();
  }
}
