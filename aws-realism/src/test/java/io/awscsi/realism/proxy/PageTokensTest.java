package io.awscsi.realism.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class PageTokensTest {

  private static final List<String> IDS = List.of("vol-e", "vol-a", "vol-c", "vol-b", "vol-d", "vol-f", "vol-g");

  @Test
  void pagesCoverEveryItemOnceInKeyOrder() {
    var seen = new ArrayList<String>();
    Optional<String> token = Optional.empty();
    int pages = 0;
    do {
      var page = PageTokens.page(IDS, Function.identity(), id -> 1, 3, token, "req");
      seen.addAll(page.items());
      token = page.nextToken();
      pages++;
    } while (token.isPresent());

    assertThat(pages).isEqualTo(3);
    assertThat(seen).containsExactly("vol-a", "vol-b", "vol-c", "vol-d", "vol-e", "vol-f", "vol-g");
  }

  @Test
  void deletionsBetweenPagesSkipNothing() {
    var first = PageTokens.page(IDS, Function.identity(), id -> 1, 3, Optional.empty(), "req");
    var remaining = new ArrayList<>(IDS);
    remaining.removeAll(List.of("vol-a", "vol-b"));

    var second = PageTokens.page(remaining, Function.identity(), id -> 1, 3, first.nextToken(), "req");

    assertThat(second.items()).containsExactly("vol-d", "vol-e", "vol-f");
  }

  @Test
  void weightedItemsFillAPageByUnits() {
    var page = PageTokens.page(List.of("r-1", "r-2", "r-3"), Function.identity(), id -> 2, 3, Optional.empty(), "q");

    assertThat(page.items()).containsExactly("r-1", "r-2");
    assertThat(page.nextToken()).isPresent();
  }

  @Test
  void tokenOfAnotherRequestOrGarbageIsRefused() {
    var first = PageTokens.page(IDS, Function.identity(), id -> 1, 3, Optional.empty(), "req-1");

    assertThatThrownBy(() -> PageTokens.page(IDS, Function.identity(), id -> 1, 3, first.nextToken(), "req-2"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> PageTokens.page(IDS, Function.identity(), id -> 1, 3, Optional.of("%%%"), "req-1"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void lastPageHasNoToken() {
    var page = PageTokens.page(IDS, Function.identity(), id -> 1, 7, Optional.empty(), "req");

    assertThat(page.items()).hasSize(7);
    assertThat(page.nextToken()).isEmpty();
  }
}
