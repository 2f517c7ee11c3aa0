package io.awscsi.ebs.cloud;

import java.util.List;

/** One page of an EC2 Describe call, with EC2's own next token (empty at the end). */
public record ListChunk<T>(List<T> items, String nextToken) {

  public ListChunk {
    items = List.copyOf(items);
    nextToken = nextToken == null ? "" : nextToken;
  }
}
