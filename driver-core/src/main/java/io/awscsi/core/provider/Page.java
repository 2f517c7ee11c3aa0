package io.awscsi.core.provider;

import java.util.List;

/** One page of a List call; {@code nextToken} is empty on the last page. */
public record Page<T>(List<T> entries, String nextToken) {

  public Page {
    entries = List.copyOf(entries);
    nextToken = nextToken == null ? "" : nextToken;
  }
}
