package io.awscsi.ebs.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ClientTokensTest {

  private final AtomicLong now = new AtomicLong();
  private final ClientTokens tokens = new ClientTokens(now::get);

  @Test
  void aNameKeepsItsTokenUntilACreationFailsThenMovesToTheNext() {
    String first = tokens.tokenFor("pvc-1");
    assertThat(tokens.tokenFor("pvc-1")).isEqualTo(first).isEqualTo(ClientTokens.sha256("pvc-1"));
    tokens.advance("pvc-1");
    assertThat(tokens.tokenFor("pvc-1")).isEqualTo(ClientTokens.sha256("pvc-1-1"));
    tokens.advance("pvc-1");
    assertThat(tokens.tokenFor("pvc-1")).isEqualTo(ClientTokens.sha256("pvc-1-2"));
    assertThat(tokens.tokenFor("pvc-2")).isEqualTo(ClientTokens.sha256("pvc-2"));
  }

  @Test
  void suffixesExpireAndExpiredOnesAreNotKept() {
    for (int i = 0; i < 100; i++) {
      tokens.advance("pvc-" + i);
    }
    assertThat(tokens.size()).isEqualTo(100);
    now.addAndGet(ClientTokens.SUFFIX_MEMORY.toNanos() + 1);
    assertThat(tokens.tokenFor("pvc-7")).isEqualTo(ClientTokens.sha256("pvc-7"));
    tokens.advance("pvc-other");
    assertThat(tokens.size()).isEqualTo(1);
    assertThat(tokens.tokenFor("pvc-other")).isEqualTo(ClientTokens.sha256("pvc-other-1"));
  }
}
